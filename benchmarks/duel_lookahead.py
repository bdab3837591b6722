"""Does a rollout search on top of a trained duel policy win more than the policy alone?

Usage:
  .venv/bin/python benchmarks/duel_lookahead.py RUN_OR_CHECKPOINT [--episodes 400] [--candidates 6]
      [--rollouts 16] [--depth 8] [--z 2] [--sampled-rollouts] [--no-search] [--seed 12345]
      [--env-set KEY=VALUE ...]

Each tick, for every live episode, the search draws ``--candidates`` actions for seat 0 (the
policy's greedy action and samples from it), copies the episode's record ``--rollouts`` times per
candidate, and plays each copy ``--depth`` ticks: the candidate first, then the policy (greedy
unless ``--sampled-rollouts``), adding the policy's value estimate where a copy is still running.
The candidate with the best mean return is played, but a sampled one only when it beats the greedy
action by more than ``--z`` standard errors of the paired difference (``--z 0``: the best mean).
The copies get fresh random generator states, so the search never sees the real episode's coming
dice or the robot's foresight draws; copies of different candidates share their generator states
(common random numbers), so the comparison between candidates is less noisy. A depth of 250 plays
every copy to the end of its episode.

Reported: the win rate with Wilson intervals of the greedy policy alone and of the search, on the
same episodes (env ``i`` of both is seeded from ``(--seed, i)``), the env config the checkpoint
trained with (shaping off) and ``--env-set`` overrides. ``--no-search`` plays the policy alone only,
e.g. to measure it over many more episodes than the search affords.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from sparring.kit.stats import wilson_interval  # noqa: E402
from sparring.kit import BatchedEnv, registry  # noqa: E402
from sparring.players.load import load_policy, read_meta  # noqa: E402

SHAPING_OFF = {"reward_damage": 0.0, "reward_taken": 0.0, "reward_prayer": 0.0}


def _actions(policy, obs: np.ndarray, mask: np.ndarray, greedy: bool) -> torch.Tensor:
    return policy.act(torch.from_numpy(obs), torch.from_numpy(mask), greedy=greedy)[0]


def _search_tick(policy, env, sim, rng, args) -> np.ndarray:
    """Seat 0's chosen action [E, heads] for every env of ``env``, by rollouts in ``sim``."""
    e, k, m = env.num_envs, args.candidates, args.rollouts
    obs, mask = env.obs[0::2], env.mask[0::2]
    cand = torch.stack(
        [_actions(policy, obs, mask, True)] + [_actions(policy, obs, mask, False) for _ in range(k - 1)], 1
    ).numpy()
    records = np.repeat(env.records, k * m)
    seeds = rng.integers(1, 2**63, size=(e, 1, m), dtype=np.uint64)
    records["rng"] = np.broadcast_to(seeds, (e, k, m)).reshape(-1)
    sim.restore(None, records)
    acts = np.zeros((sim.rows, len(sim.heads.sizes)), np.int32)
    acts[0::2] = np.repeat(cand.reshape(e * k, -1), m, 0)
    total = np.zeros(sim.num_envs)
    running = np.ones(sim.num_envs, np.bool_)
    for t in range(args.depth):
        if t > 0:
            acts[0::2] = _actions(policy, sim.obs[0::2], sim.mask[0::2], not args.sampled_rollouts).numpy()
        sim.step(acts)
        total += np.where(running, sim.rewards[0::2], 0.0)
        running &= ~sim.done
        if not running.any():
            break
    total += np.where(running, policy.value(torch.from_numpy(sim.obs[0::2])).numpy(), 0.0)
    gain = total.reshape(e, k, m) - total.reshape(e, k, m)[:, :1]  # paired with the greedy candidate's rollouts
    error = gain.std(-1, ddof=1) / np.sqrt(m) if m > 1 else np.zeros((e, k))
    score = np.where(gain.mean(-1) > args.z * error, gain.mean(-1), 0.0)
    score[:, 0] = 0.0
    return cand[np.arange(e), score.argmax(1)]


def play(policy, env_cls, config: dict, args, search: bool) -> tuple[int, int]:
    """Wins and draws of seat 0 over ``args.episodes`` episodes, one per env."""
    env = BatchedEnv(env_cls, num_envs=args.episodes, seed=args.seed, autoreset=False, **config)
    sim = (
        BatchedEnv(
            env_cls, num_envs=args.episodes * args.candidates * args.rollouts, seed=args.seed, autoreset=False, **config
        )
        if search
        else None
    )
    rng = np.random.default_rng(args.seed)
    acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    live = np.ones(env.num_envs, np.bool_)
    with torch.inference_mode():
        while live.any():
            if search:
                acts[0::2] = _search_tick(policy, env, sim, rng, args)
            else:
                acts[0::2] = _actions(policy, env.obs[0::2], env.mask[0::2], True).numpy()
            env.step(acts)
            live &= ~env.done
    names = list(env_cls.metrics)
    metrics = env.records["metrics"]
    return int((metrics[:, names.index("win")] > 0.5).sum()), int((metrics[:, names.index("draw")] > 0.5).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint", help="a duel run folder or checkpoints/step-N folder")
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--candidates", type=int, default=6)
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument(
        "--z", type=float, default=2.0, help="standard errors by which a sampled candidate must beat the greedy action"
    )
    parser.add_argument("--sampled-rollouts", action="store_true")
    parser.add_argument("--no-search", action="store_true", help="play only the policy alone")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--env-set", nargs="*", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    if min(args.episodes, args.candidates, args.rollouts, args.depth) < 1:
        parser.error("--episodes, --candidates, --rollouts and --depth must each be at least 1")
    torch.set_num_threads(1)
    meta = read_meta(args.checkpoint)
    if meta["env"] != "duel":
        parser.error(f"the checkpoint trained env {meta['env']!r}; this benchmark searches duel")
    env_cls = registry.get("duel")
    bad = [item for item in args.env_set if "=" not in item]
    if bad:
        parser.error(f"--env-set takes KEY=VALUE items, got {bad}")
    overrides = dict(item.split("=", 1) for item in args.env_set)
    config = {**meta["env_config"], **SHAPING_OFF, **overrides}  # the env config coerces the strings
    policy, _ = load_policy(args.checkpoint, "duel", BatchedEnv(env_cls, num_envs=1, **config))
    policy.eval()
    print(f"duel, env overrides {config}, {args.episodes} episodes from seed {args.seed}")
    searched = (
        f"search: {args.candidates} candidates x {args.rollouts} rollouts, depth {args.depth}, z {args.z}, "
        f"{'sampled' if args.sampled_rollouts else 'greedy'} rollouts"
    )
    for label, search in (("policy alone (greedy)", False), (searched, True))[: 1 if args.no_search else 2]:
        start = time.perf_counter()
        wins, draws = play(policy, env_cls, config, args, search)
        low, high = wilson_interval(wins, args.episodes)
        print(
            f"  {label}: win {wins / args.episodes:.3f} [{low:.3f}, {high:.3f}], draws {draws}, "
            f"{time.perf_counter() - start:.0f} s"
        )


if __name__ == "__main__":
    main()
