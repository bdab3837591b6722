"""sparring's envs through Gymnasium and PettingZoo: the ids, a vector env of learner seats, masks, episode figures.

docs/kit.md shows its regions; ``python docs/examples/adapters.py`` runs them all (tests/docs/test_examples.py too).
"""

# region make
import gymnasium
import numpy as np

import sparring  # noqa: F401  (registers sparring/NAME-v0 once Gymnasium is imported)

env = gymnasium.make("sparring/squared-v0", size=7)  # a GymEnv: one game from one learner seat
vec = gymnasium.make_vec("sparring/duel-v0", num_envs=8, vectorization_mode="vector_entry_point", opponent="learner")
# a GymVectorEnv: 8 games of 2 learner seats each, so vec.num_envs == 16
# endregion make

# region vector
finished = []
obs, info = vec.reset(seed=0)  # game g from (0, g); reset() with no seed continues each game's generator
while len(finished) < 16:
    # duel has 5 heads: the batched space is a Box, so each sub-env samples from its own space and mask
    actions = np.stack([vec.single_action_space.sample(mask=m) for m in info["action_mask"]])
    obs, rewards, terminations, truncations, info = vec.step(actions)
    if "sparring_episode" in info:  # per-sub-env arrays; "_sparring_episode" marks the sub-envs that ended
        stats = info["sparring_episode"]
        for i in np.flatnonzero(info["_sparring_episode"]):
            finished.append((stats["return"][i].item(), stats["length"][i].item(), stats["phase"][i].item()))
# endregion vector

# region pettingzoo
from sparring.kit.pz_adapter import PettingZooEnv  # noqa: E402

town = PettingZooEnv("town")  # agents are the learner seats: agent_0 ... agent_7
observations, infos = town.reset(seed=0)
while town.agents:  # a character that faints leaves the agents; the episode ends with all of them
    actions = {a: town.action_space(a).sample(mask=infos[a]["action_mask"]) for a in town.agents}
    observations, rewards, terminations, truncations, infos = town.step(actions)
# endregion pettingzoo

if __name__ == "__main__":
    print(f"{env.unwrapped.batch.env_cls.name}: observation {env.observation_space.shape}")
    print(f"duel: {vec.num_envs} sub-envs, {len(finished)} episodes, the first {finished[0]} (return, length, phase)")
    print(f"town: {len(town.possible_agents)} agents, episode over at tick {town.batch.records['tick'][0]}")
