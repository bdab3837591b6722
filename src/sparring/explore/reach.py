"""How far a policy gets from ordinary starts, measured in the env's progress cell field.

"Reach" of an episode is the first (progress) field of the cell of its final record: the wave
reached in `gauntlet`, boss damage in 36s in `serpent`. A clear is an episode with a positive
return (the env's terminal +1), the same success rule the archive uses. An env without cells (``duel``)
reports its episodes' lengths in ticks as their reach, so its clears (wins) can be measured the same way.
"""

from __future__ import annotations

import numpy as np
import torch

from sparring.explore.cells import cell_fields, decode, has_cells, keys_of
from sparring.kit import registry


def reach(
    env_name: str, policy, episodes: int, seed: int = 0, greedy: bool = False, env_config: dict | None = None
) -> dict:
    """Play ``episodes`` fresh episodes at once with ``policy``; returns per-episode ``reach`` and ``clear`` lists.

    Each env plays exactly one episode from its reset (no auto-reset, no archive), so the
    numbers describe starts at the beginning of the encounter.
    """
    if episodes < 1:
        raise ValueError(f"reach needs at least one episode, got {episodes}")
    env = registry.make(env_name, num_envs=int(episodes), seed=seed, autoreset=False, **(env_config or {}))
    cells = has_cells(env.env_cls)
    fields = cell_fields(env.env_cls) if cells else ("tick",)
    state = policy.initial_state(env.rows)
    with torch.inference_mode():
        while not env.done.all():
            obs, mask = torch.from_numpy(env.obs), torch.from_numpy(env.mask)
            actions, _, _, state = policy.act(obs, mask, state, None, greedy=greedy)
            env.step(actions.numpy().astype(np.int32))
    ticks = env.records["tick"]
    depth = decode(keys_of(env.env_cls, env.snapshot()), len(fields))[:, 0] if cells else ticks
    return {
        "field": fields[0],
        "reach": depth.tolist(),
        "clear": (env.ended_return > 0).tolist(),
        "ticks": ticks.tolist(),
    }
