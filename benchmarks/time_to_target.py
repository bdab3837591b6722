"""How long until a policy wins a target share of fresh episodes? Two arms (baseline and a recipe), several seeds.

Usage:
  .venv/bin/python benchmarks/time_to_target.py [--env serpent] [--seeds 5] [--first-seed 100]
      [--target 0.95] [--every 500000] [--max-steps 15000000] [--episodes 200]
      --recipe KEY=VALUE ... [--set KEY=VALUE ...] [--env-set ...] [--shaping ...] [--greedy] [--jobs J] [--json OUT]

For each seed, two runs of ``sparring.train.Trainer`` with the env's [train] defaults plus ``--set``:
``baseline``, and ``recipe`` (plus ``--recipe``, e.g. ``curriculum=recording:fights.parquet``). Every
``--every`` agent-steps training pauses and the policy plays ``--episodes`` fresh episodes from the env's
start (sampled actions unless ``--greedy``; no shaping); a run stops the first time its win rate (a
positive return: serpent's kill, gauntlet's clear) reaches ``--target``, or at ``--max-steps``. Printed
per run: the agent-steps and training minutes to the target (minutes on this machine as loaded as it was;
steps are the load-free measure), and per arm a one-sided Mann-Whitney U test of the steps to the target
(recipe < baseline; a run that never got there ranks after every run that did). Evaluation time is not
training time.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from arms import add_setting_args, iterations, pairs
from scipy.stats import mannwhitneyu

from sparring.kit.stats import wilson_interval
from sparring.explore.reach import reach
from sparring.kit import registry
from sparring.kit.atomic import atomic_file
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer

ARMS = ("baseline", "recipe")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="serpent")
    p.add_argument("--seeds", type=int, default=5, help="seeds per arm (the test's sample size)")
    p.add_argument("--first-seed", type=int, default=100, help="seeds are first-seed .. first-seed + seeds - 1")
    p.add_argument("--target", type=float, default=0.95, help="win rate over fresh episodes that ends a run")
    p.add_argument("--every", type=int, default=500_000, help="agent-steps between evaluations")
    p.add_argument("--max-steps", type=int, default=15_000_000, help="a run that has not reached the target stops")
    p.add_argument("--episodes", type=int, default=200, help="fresh episodes per evaluation")
    p.add_argument("--recipe", nargs="+", required=True, metavar="KEY=VALUE", help="train settings of the recipe")
    add_setting_args(p)
    args = p.parse_args(argv)
    if not 0 < args.target <= 1 or min(args.every, args.max_steps, args.episodes, args.seeds) < 1:
        p.error("--target must be in (0, 1]; --every, --max-steps, --episodes and --seeds at least 1")
    return args


def win_rate(args, trainer: Trainer, eval_config: dict) -> float:
    """The share of ``--episodes`` fresh episodes the current policy wins."""
    trainer.policy.eval()
    seed = 100_000 + trainer.cfg.seed
    result = reach(args.env, trainer.policy, args.episodes, seed=seed, greedy=args.greedy, env_config=eval_config)
    trainer.policy.train()
    return float(np.mean(result["clear"]))


def run_to_target(args, arm: str, seed: int) -> dict:
    """One training run of ``arm`` until its win rate reaches ``--target`` (or ``--max-steps``); its trace."""
    env_config, shaping = pairs(args.env_set, "--env-set"), pairs(args.shaping, "--shaping")
    recipe = pairs(args.recipe, "--recipe") if arm == "recipe" else {}
    settings = {**pairs(args.set, "--set"), **recipe, "seed": seed, "steps": args.max_steps, "minutes": 0}
    cfg = make_train_config(registry.get(args.env), {**settings, "eval_episodes": 0, "tensorboard": False})
    trainer = Trainer(args.env, cfg, {**env_config, **shaping})
    eval_config = {k: v for k, v in trainer.env_config.items() if k not in shaping}
    trace, next_eval = [], args.every
    try:
        for _ in iterations(trainer):
            if trainer.global_step >= next_eval or trainer.finished():
                next_eval += args.every
                trace.append((trainer.global_step, trainer.elapsed / 60.0, win_rate(args, trainer, eval_config)))
                if trace[-1][2] >= args.target:
                    break
    finally:
        trainer.close()
    steps, minutes, rate = trace[-1]
    reached = rate >= args.target
    return {
        "arm": arm,
        "seed": seed,
        "reached": reached,
        "steps": steps if reached else math.inf,
        "minutes": minutes if reached else math.inf,
        "last_rate": rate,
        "last_ci": wilson_interval(round(rate * args.episodes), args.episodes),
        "trace": trace,
    }


def report(runs: dict) -> dict:
    """Per arm the steps and minutes to the target, then the one-sided test recipe < baseline."""
    for arm in ARMS:
        line = ", ".join(
            f"{r['steps'] / 1e6:.1f}M/{r['minutes']:.1f}min" if r["reached"] else f"not reached ({r['last_rate']:.3f})"
            for r in runs[arm]
        )
        print(f"{arm:>10}: steps/training minutes to the target per seed: {line}")
    worst = max((r["steps"] for rs in runs.values() for r in rs if r["reached"]), default=0)
    rank = {arm: [r["steps"] if r["reached"] else worst + 1 for r in runs[arm]] for arm in ARMS}
    test = mannwhitneyu(rank["recipe"], rank["baseline"], alternative="less")
    verdict = "significant" if test.pvalue < 0.01 else "not significant"
    print(
        f"Mann-Whitney U (steps to the target, recipe < baseline): U = {test.statistic:.1f}, p = {test.pvalue:.4g} "
        f"({verdict} at p < 0.01; n = {len(rank['recipe'])} seeds per arm)"
    )
    return {"u": float(test.statistic), "p": float(test.pvalue)}


def main(argv=None) -> None:
    args = parse_args(argv)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    jobs = [(arm, seed) for seed in seeds for arm in ARMS]
    print(
        f"{args.env}: win rate >= {args.target} over {args.episodes} fresh episodes, evaluated every "
        f"{args.every:.3g} steps up to {args.max_steps:.3g}; recipe {args.recipe}, both {args.set}",
        flush=True,
    )
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
        done = list(pool.map(run_to_target, [args] * len(jobs), *zip(*jobs)))
    for r in done:
        trace = " ".join(f"{s / 1e6:.1f}M:{w:.3f}" for s, _, w in r["trace"])
        print(f"{r['arm']:>10} seed {r['seed']}: win rate at steps {trace}")
    runs = {arm: [r for r in done if r["arm"] == arm] for arm in ARMS}
    test = report(runs)
    if args.json:
        with atomic_file(args.json) as fh:
            json.dump({"args": vars(args), "runs": done, "test": test}, fh, indent=1, default=str)


if __name__ == "__main__":
    sys.exit(main())
