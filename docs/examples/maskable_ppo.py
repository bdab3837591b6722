"""sb3-contrib's MaskablePPO on sparring's squared through Gymnasium: train, then count the greedy policy's wins.

Run it as ``python docs/examples/maskable_ppo.py`` (needs ``pip install sb3-contrib``): about two minutes on
two CPU cores.
"""

import gymnasium
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import sparring  # noqa: F401  (registers every env as sparring/NAME-v0 once Gymnasium is imported)

ENV_ID, CONFIG = "sparring/squared-v0", {"size": 5}  # env config keys go to the env


def train(steps: int = 30_000) -> MaskablePPO:
    """MaskablePPO over 8 GymEnvs; it reads each env's action_masks() by itself."""
    venv = make_vec_env(ENV_ID, n_envs=8, seed=0, env_kwargs=CONFIG)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=4, learning_rate=3e-3, seed=0)
    return model.learn(steps)


def wins(model: MaskablePPO, episodes: int = 100) -> int:
    """Episodes the greedy policy wins (``info["is_success"]``), given the mask at every step."""
    env = gymnasium.make(ENV_ID, **CONFIG)
    obs, info = env.reset(seed=1)  # later resets continue from this seed
    won = 0
    for _ in range(episodes):
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        won += info["is_success"]
        obs, info = env.reset()
    return won


if __name__ == "__main__":
    print(f"won {wins(train())} of 100 episodes")
