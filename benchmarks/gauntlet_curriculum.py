"""Does a start-state curriculum make PPO reach deeper from wave 1? Plain PPO against a curriculum, equal wall time.

Usage:
  .venv/bin/python benchmarks/gauntlet_curriculum.py [--env gauntlet] [--seeds 5] [--first-seed 0]
      [--minutes 15] [--episodes 300] [--states FILE] [--per-wave 64] [--true 0.2]
      [--set KEY=VALUE ...] [--curriculum-set KEY=VALUE ...] [--env-set KEY=VALUE ...]
      [--shaping KEY=VALUE ...] [--greedy] [--jobs J] [--json OUT]

For each seed, two runs of ``sparring.train.Trainer`` with the env's [train] defaults and the same
wall-time budget (``--minutes`` of training each, ``train.minutes``): ``baseline`` (plain PPO) and
``curriculum`` (``train.curriculum states:FILE`` with ``train.curriculum_true`` = ``--true``, and
``--curriculum-set`` settings such as ``curriculum_floor=0.05``). FILE is ``--states`` (a state set
of the env, e.g. the arrival states of a reference player) or, for gauntlet without it, a set built
first from the scripted ``expert`` player (it clears about 89% of runs): ``--per-wave`` records on
the tick each wave 1..30 begins, a uniform draw over its runs (its build time is reported apart). Each trained policy
then plays ``--episodes`` fresh runs from the start of the encounter (wave 1 in gauntlet, unless
``--env-set`` moves it; no curriculum, no auto-reset) and we record the wave reached (the env's
progress cell field) and whether it cleared (a positive return). ``--env-set`` configures the env
of training and evaluation; ``--shaping`` only training's (shaping such as gauntlet's reward_wave
would make a deep death count as a clear in both the curriculum's success and the evaluation).
``--jobs J`` runs J trainings at once, each in its own process: pass ``--set threads=1`` so that
two jobs on two cores do not fight over threads, and compare arms only within one --jobs setting
(the budget is wall time).

Reported: per seed and arm the mean wave and the clear rate; per arm the distribution of waves
reached, the per-seed means and the pooled clear rate; and a one-sided Mann-Whitney U test of the
per-seed mean wave (curriculum > baseline). Seeds are the independent units. With 5 seeds per arm
the smallest possible p is 1/252, so p < 0.01 needs at least 5. Keep pilot seeds (``--first-seed
0``) apart from confirmation seeds (e.g. ``--first-seed 100``): a test on the seeds a recipe was
tuned on overstates it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np
from arms import add_setting_args, pairs, report, train_and_reach

from sparring.kit import registry
from sparring.kit.atomic import atomic_file
from sparring.kit.config import make_config
from sparring.kit.state_set import load_state_set, save_state_set

ARMS = ("baseline", "curriculum")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="gauntlet")
    p.add_argument("--seeds", type=int, default=5, help="seeds per arm (the test's sample size)")
    p.add_argument("--first-seed", type=int, default=0, help="seeds are first-seed .. first-seed + seeds - 1")
    p.add_argument("--minutes", type=float, default=15.0, help="minutes of training per run (train.minutes)")
    p.add_argument("--episodes", type=int, default=300, help="evaluation runs per trained policy, from the start")
    p.add_argument(
        "--states",
        metavar="FILE",
        help="the curriculum's state set (default for gauntlet: built from the expert player's wave arrivals)",
    )
    p.add_argument("--per-wave", type=int, default=64, help="records per wave of the built state set")
    p.add_argument("--true", type=float, default=0.2, help="train.curriculum_true of the curriculum arm")
    p.add_argument(
        "--curriculum-set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="train settings for the curriculum arm only (curriculum_floor, curriculum_window ...)",
    )
    add_setting_args(p)
    return p.parse_args(argv)


def build_states(args, path: str) -> dict:
    """Gauntlet arrival states of the scripted expert player at every wave, saved to ``path``; a summary."""
    from sparring.envs.gauntlet.states import arrival_states

    env_cls = registry.get(args.env)
    config = dataclasses.asdict(make_config(env_cls, pairs(args.env_set, "--env-set")))  # typed, as runs compare it
    start = time.perf_counter()
    records = arrival_states(args.per_wave, "expert", seed=0, **config)
    save_state_set(
        path,
        env_cls,
        records,
        config,
        groups=env_cls.start_groups(records),
        group_key=env_cls.start_group_key,
        extra={"player": "expert", "per_wave": args.per_wave},
    )
    return {"seconds": time.perf_counter() - start, "states": len(records)}


def run_arm(args, seed: int, arm: str, states: str) -> dict:
    """Train one run for ``--minutes`` and measure how far it gets from fresh starts."""
    overrides = {"seed": seed, "minutes": args.minutes, "steps": 0, "eval_episodes": 0, "tensorboard": False}
    if arm == "curriculum":
        overrides.update(
            {
                **pairs(args.curriculum_set, "--curriculum-set"),
                "curriculum": f"states:{states}",
                "curriculum_true": args.true,
            }
        )
    trainer, result, seconds = train_and_reach(args, overrides)
    shares = {}
    if trainer.curriculum is not None:
        shares = {k: round(v, 4) for k, v in trainer.curriculum.shares().items()}
    return {
        **result,
        "seed": seed,
        "arm": arm,
        "train_s": seconds,
        "steps": trainer.global_step,
        "final_shares": shares,
    }


def main(argv=None) -> None:
    args = parse_args(argv)
    for items, what in (
        (args.set, "--set"),
        (args.curriculum_set, "--curriculum-set"),
        (args.env_set, "--env-set"),
        (args.shaping, "--shaping"),
    ):
        pairs(items, what)  # a malformed pair fails here, before any training
    if args.jobs < 1 or args.seeds < 1 or args.minutes <= 0 or args.episodes < 1:
        raise SystemExit("--jobs, --seeds and --episodes must be at least 1, --minutes above 0")
    if args.states is None and args.env != "gauntlet":
        raise SystemExit(f"--states FILE is needed for {args.env!r} (only gauntlet's set is built here)")
    if args.states is not None:
        load_state_set(args.states, registry.get(args.env))  # a bad file fails before any training
    print(
        f"{args.env}: {args.seeds} seeds x (baseline, curriculum with {args.true:.0%} true starts), "
        f"{args.minutes:g} minutes of training each, {args.episodes} evaluation runs per policy, "
        f"{args.jobs} at once",
        flush=True,
    )
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    results, built = {}, None
    start = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as folder,
        ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool,
    ):
        states = args.states
        if states is None:
            states = os.path.join(folder, "waves.npz")
            built = build_states(args, states)
            print(
                f"state set: {built['states']} expert arrivals ({args.per_wave} per wave reached) in "
                f"{built['seconds']:.0f} s",
                flush=True,
            )
        futures = {pool.submit(run_arm, args, seed, arm, states): (seed, arm) for seed in seeds for arm in ARMS}
        for future in as_completed(futures):
            seed, arm = futures[future]
            result = results[seed, arm] = future.result()
            print(
                f"  seed {seed} {arm:>10}: mean {result['field']} {np.mean(result['reach']):.2f}, clears "
                f"{np.mean(result['clear']):.1%}, {result['steps']:.3g} steps in {result['train_s']:.0f} s",
                flush=True,
            )
    runs = {arm: [results[seed, arm] for seed in seeds] for arm in ARMS}
    summary = report(runs, "curriculum")
    print(f"({time.perf_counter() - start:.0f} s in all)")
    if args.json:
        with atomic_file(args.json) as fh:
            json.dump({"args": vars(args), "state_set": built, "runs": runs, **summary}, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
