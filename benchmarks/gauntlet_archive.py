"""Does the Go-Explore archive make PPO reach deeper? Train with and without it, same steps, several seeds.

Usage:
  .venv/bin/python benchmarks/gauntlet_archive.py [--env gauntlet] [--seeds 8] [--first-seed 0]
      [--steps 5000000] [--fraction 0.25] [--episodes 500] [--set KEY=VALUE ...] [--env-set KEY=VALUE ...]
      [--shaping KEY=VALUE ...] [--explore-steps N] [--jobs J] [--json OUT]

For each seed, two runs of ``sparring.train.Trainer`` with the env's [train] defaults and the
same step budget: ``baseline`` (train.archive_fraction 0) and ``archive`` (``--fraction``). Each
trained policy then plays ``--episodes`` fresh episodes from the start of the encounter (no
archive restarts; wave 1 in gauntlet) and we record how far each got (the env's progress cell
field: the wave in gauntlet) and whether it cleared. ``--env-set`` configures the env of both
training and evaluation; ``--shaping`` only training's (shaping rewards such as gauntlet's
reward_wave would otherwise make a deep death count as a clear, whose test is a positive return).
``--explore-steps N`` first runs Go-Explore's exploration phase (random returns, seed 0, the
``--env-set`` env) for N env steps and starts every archive run's archive from its cells
(``train.archive_start``); its time is reported apart, and baseline runs never see it.
``--jobs J`` runs J trainings at once, each in its own process (pass ``--set threads=1``).

Reported: both arms' reach distributions (per-episode histogram, and per-seed means), the clear
rates, the training time per arm, and a one-sided Mann-Whitney U test of the per-seed mean reach
(archive > baseline). Seeds are the independent units: pooling episodes of one run would
count one policy's luck hundreds of times. With 8 seeds per arm the smallest possible p is
1/12870; with 5, 1/252 (so p < 0.01 needs at least 5 seeds per arm).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np
from arms import add_setting_args, pairs, train_and_reach
from arms import report as arms_report

from sparring.explore.explore import Explorer
from sparring.kit.atomic import atomic_file


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="gauntlet")
    p.add_argument("--seeds", type=int, default=8, help="seeds per arm (the test's sample size)")
    p.add_argument("--first-seed", type=int, default=0, help="seeds are first-seed .. first-seed + seeds - 1")
    p.add_argument("--steps", type=int, default=5_000_000, help="learner agent-steps per run")
    p.add_argument("--fraction", type=float, default=0.25, help="train.archive_fraction of the archive arm")
    p.add_argument("--episodes", type=int, default=500, help="evaluation episodes per trained policy")
    p.add_argument(
        "--explore-steps",
        type=int,
        default=0,
        help="random archive exploration before training; archive runs start from its cells",
    )
    add_setting_args(p)
    return p.parse_args(argv)


def explore(args, folder: str) -> dict:
    """Go-Explore's exploration phase with random returns, saved into ``folder``; its summary."""
    start = time.perf_counter()
    explorer = Explorer(args.env, "random", 256, 0, 100, pairs(args.env_set, "--env-set")).run(args.explore_steps)
    explorer.archive.save(folder, {"policy": "random", "steps": explorer.steps, "seed": 0})
    return {
        "steps": explorer.steps,
        "seconds": time.perf_counter() - start,
        "cells": len(explorer.archive),
        "deepest": explorer.archive.deepest(),
    }


def run_arm(args, seed: int, fraction: float, archive_start: str) -> dict:
    """Train one run and measure its reach from fresh starts."""
    overrides = {
        "seed": seed,
        "steps": args.steps,
        "archive_fraction": fraction,
        "eval_episodes": 0,
        "tensorboard": False,
    }
    if fraction > 0 and archive_start:
        overrides["archive_start"] = archive_start
    trainer, result, seconds = train_and_reach(args, overrides)
    archive = trainer.restarts.archive if trainer.restarts is not None else None
    return {
        **result,
        "seed": seed,
        "steps": trainer.global_step,
        "train_s": seconds,
        "archive_cells": None if archive is None else len(archive),
        "archive_deepest": None if archive is None else archive.deepest(),
    }


def report(runs: dict) -> dict:
    """:func:`arms.report` with ``archive`` as the treated arm, then each arm's training time."""
    summary = arms_report(runs, "archive")
    for arm, rs in runs.items():
        seconds = [r["train_s"] for r in rs]
        print(f"{arm:>10}: training time per run {np.mean(seconds):.0f} s (total {sum(seconds):.0f} s)")
    return summary


def main(argv=None) -> None:
    args = parse_args(argv)
    for items, what in ((args.set, "--set"), (args.env_set, "--env-set"), (args.shaping, "--shaping")):
        pairs(items, what)  # a malformed pair fails here, before any training
    if args.jobs < 1:
        raise SystemExit(f"--jobs must be at least 1, got {args.jobs}")
    print(
        f"{args.env}: {args.seeds} seeds x (baseline, archive {args.fraction}), {args.steps} steps each, "
        f"{args.episodes} evaluation episodes per run, {args.jobs} at once"
    )
    arms = (("baseline", 0.0), ("archive", args.fraction))
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    jobs = [(seed, arm, fraction) for seed in seeds for arm, fraction in arms]
    results = {}
    start = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as explored,
        ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool,
    ):
        exploration = explore(args, explored) if args.explore_steps > 0 else None
        if exploration:
            print(
                f"exploration: {exploration['steps']} random env steps in {exploration['seconds']:.0f} s, "
                f"{exploration['cells']} cells, deepest {exploration['deepest']}",
                flush=True,
            )
        start_from = explored if exploration else ""
        futures = {pool.submit(run_arm, args, seed, fraction, start_from): (seed, arm) for seed, arm, fraction in jobs}
        for future in as_completed(futures):
            seed, arm = futures[future]
            result = results[seed, arm] = future.result()
            cells = (
                ""
                if result["archive_cells"] is None
                else (
                    f", {result['archive_cells']} archive cells, deepest {result['field']} {result['archive_deepest']}"
                )
            )
            print(
                f"  seed {seed} {arm:>8}: mean {result['field']} {np.mean(result['reach']):.2f}, clears "
                f"{np.mean(result['clear']):.1%}, {result['train_s']:.0f} s{cells}",
                flush=True,
            )
    runs = {arm: [results[seed, arm] for seed in seeds] for arm, _ in arms}
    summary = report(runs)
    print(f"({time.perf_counter() - start:.0f} s in all)")
    if args.json:
        with atomic_file(args.json) as fh:
            json.dump({"args": vars(args), "exploration": exploration, "runs": runs, **summary}, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
