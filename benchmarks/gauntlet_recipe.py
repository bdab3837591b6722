"""Does a training recipe reach deeper from wave 1 than plain PPO? Both arms with the same step budget, several seeds.

Usage:
  .venv/bin/python benchmarks/gauntlet_recipe.py [--env gauntlet] [--seeds 5] [--first-seed 100]
      [--steps 8400000 | --minutes M] [--episodes 300] [--recipe KEY=VALUE ...] [--recipe-shaping KEY=VALUE ...]
      [--set KEY=VALUE ...] [--env-set KEY=VALUE ...] [--shaping KEY=VALUE ...] [--greedy] [--jobs J] [--json OUT]

For each seed, two runs of ``sparring.train.Trainer`` with the env's [train] defaults plus ``--set``, trained
for ``--steps`` agent-steps each (or ``--minutes`` of training each, equal wall time): ``baseline`` (plain PPO,
or whatever ``--set`` makes it) and ``recipe`` (plus the ``--recipe`` settings; the default is the DAgger warm
start of the scripted ``expert`` for the whole budget, ``imitate=expert imitate_mix=0.5 imitate_lr=1e-3`` and
``imitate_steps``/``imitate_minutes`` equal to the budget, which clones as ``sparring train`` does). With the
warm start in ``--set`` and e.g. ``--recipe recurrence=lstm``, it compares two cores of one recipe; with
``--recipe-shaping`` (e.g. ``reward_waste=1``, and ``--recipe`` empty: no warm start) the recipe arm differs by
shaping in training only, added to ``--shaping``. Each trained policy
then plays ``--episodes`` fresh runs from the start of the encounter (no auto-reset, no ``--shaping``), and we
record the wave reached and whether it cleared. The budget is steps, so a busy machine does not shrink it; on a
quiet core of the 2-core reference machine 8.4 M agent-steps are about 5 minutes of training with one thread
(cloning and PPO alike run at about 28 K steps/s).

Reported as by ``gauntlet_curriculum.py``: per seed and arm the mean wave and the clear rate, the distribution
of waves reached, and a one-sided Mann-Whitney U test of the per-seed mean wave (recipe > baseline); seeds are
the independent units, and p < 0.01 needs at least 5 per arm. Keep pilot seeds apart from confirmation seeds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np
from arms import add_setting_args, pairs, report, train_and_reach

from sparring.kit.atomic import atomic_file

ARMS = ("baseline", "recipe")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="gauntlet")
    p.add_argument("--seeds", type=int, default=5, help="seeds per arm (the test's sample size)")
    p.add_argument("--first-seed", type=int, default=100, help="seeds are first-seed .. first-seed + seeds - 1")
    p.add_argument("--steps", type=int, default=8_400_000, help="agent-steps per run (train.steps)")
    p.add_argument("--minutes", type=float, default=0.0, help="minutes of training per run instead of --steps")
    p.add_argument("--episodes", type=int, default=300, help="evaluation runs per trained policy, from the start")
    p.add_argument(
        "--recipe",
        nargs="*",
        default=None,
        metavar="KEY=VALUE",
        help="train settings of the recipe arm (default: a DAgger clone of expert for the whole budget)",
    )
    p.add_argument(
        "--recipe-shaping",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="env shaping in the recipe arm's training only, on top of --shaping",
    )
    add_setting_args(p)
    return p.parse_args(argv)


def recipe_settings(args) -> dict:
    """The recipe arm's train settings: ``--recipe``, or the DAgger clone of ``expert`` for the whole budget."""
    if args.recipe is not None:
        return pairs(args.recipe, "--recipe")
    limit = {"imitate_minutes": args.minutes} if args.minutes > 0 else {"imitate_steps": args.steps}
    return {"imitate": "expert", "imitate_mix": 0.5, "imitate_lr": 1e-3, **limit}


def run_arm(args, seed: int, arm: str) -> dict:
    """Train one run for ``--steps`` (or ``--minutes``) and measure how far it gets from fresh starts."""
    budget = {"steps": 0, "minutes": args.minutes} if args.minutes > 0 else {"steps": args.steps, "minutes": 0}
    overrides = {"seed": seed, **budget, "eval_episodes": 0, "tensorboard": False}
    if arm == "recipe":
        overrides.update(recipe_settings(args))
        args = argparse.Namespace(**{**vars(args), "shaping": [*args.shaping, *args.recipe_shaping]})
    trainer, result, seconds = train_and_reach(args, overrides)
    return {**result, "seed": seed, "arm": arm, "train_s": seconds, "steps": trainer.global_step}


def main(argv=None) -> None:
    args = parse_args(argv)
    for items, what in (
        (args.set, "--set"),
        (args.env_set, "--env-set"),
        (args.shaping, "--shaping"),
        (args.recipe_shaping, "--recipe-shaping"),
    ):
        pairs(items, what)  # a malformed pair fails here, before any training
    recipe = recipe_settings(args)
    if args.jobs < 1 or args.seeds < 1 or args.steps < 1 or args.episodes < 1 or args.minutes < 0:
        raise SystemExit("--jobs, --seeds, --steps and --episodes must be at least 1, --minutes at least 0")
    budget = f"{args.minutes:g} minutes" if args.minutes > 0 else f"{args.steps:.3g} agent-steps"
    print(
        f"{args.env}: {args.seeds} seeds x (baseline, recipe {recipe} shaping {args.recipe_shaping}), {budget} each, "
        f"{args.episodes} evaluation runs per policy, {args.jobs} at once",
        flush=True,
    )
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    results, start = {}, time.perf_counter()
    with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(run_arm, args, seed, arm): (seed, arm) for seed in seeds for arm in ARMS}
        for future in as_completed(futures):
            seed, arm = futures[future]
            result = results[seed, arm] = future.result()
            print(
                f"  seed {seed} {arm:>8}: mean {result['field']} {np.mean(result['reach']):.2f}, clears "
                f"{np.mean(result['clear']):.1%}, {result['steps']:.3g} steps in {result['train_s']:.0f} s",
                flush=True,
            )
    runs = {arm: [results[seed, arm] for seed in seeds] for arm in ARMS}
    summary = report(runs, "recipe")
    print(f"({time.perf_counter() - start:.0f} s in all)")
    if args.json:
        with atomic_file(args.json) as fh:
            json.dump({"args": vars(args), "recipe": recipe, "runs": runs, **summary}, fh)


if __name__ == "__main__":
    sys.exit(main())
