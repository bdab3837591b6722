"""sb3-contrib's MaskablePPO learns squared through the Gymnasium adapter (``gymnasium.make`` of the registered id,
masks from ``action_masks()``), well above a random policy: the learned policy's Wilson interval of success lies
wholly above the random one's."""

import gymnasium
import torch
from scipy.stats import binomtest
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import sparring  # noqa: F401  (registers sparring/squared-v0)

SIZE = 5  # a 5x5 grid: learnable in a few seconds of CPU; a random walk still finds the target now and then
EPISODES = 300


def _successes(policy, seed: int) -> int:
    """Episodes of ``EPISODES`` that reach the target, the policy choosing from (obs, info, env)."""
    env = gymnasium.make("sparring/squared-v0", size=SIZE)
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed)
    wins = 0
    for _ in range(EPISODES):
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(policy(obs, info, env))
            done = term or trunc
        wins += info["is_success"]
        obs, info = env.reset()
    return wins


def test_maskable_ppo_learns_squared_above_random():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        venv = make_vec_env("sparring/squared-v0", n_envs=8, seed=0, env_kwargs={"size": SIZE})
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=64,
            batch_size=256,
            n_epochs=4,
            learning_rate=3e-3,
            seed=0,
            device="cpu",
            policy_kwargs={"net_arch": [64, 64]},
        )
        model.learn(30_000)
        learned = _successes(
            lambda obs, info, env: int(
                model.predict(obs, action_masks=env.get_wrapper_attr("action_masks")(), deterministic=True)[0]
            ),
            seed=1,
        )
    finally:
        torch.set_num_threads(threads)
    random = _successes(lambda obs, info, env: int(env.action_space.sample(mask=info["action_mask"])), seed=2)
    learned_ci = binomtest(learned, EPISODES).proportion_ci(method="wilson")
    random_ci = binomtest(random, EPISODES).proportion_ci(method="wilson")
    assert learned_ci.low > random_ci.high, (learned, random)
