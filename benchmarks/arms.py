"""What the two-arm training benchmarks share (gauntlet_archive.py, gauntlet_curriculum.py): KEY=VALUE settings,
a run trained in-process and measured from fresh starts, and the one-sided Mann-Whitney test between arms."""

from __future__ import annotations

import argparse

import numpy as np
from scipy.stats import mannwhitneyu

from sparring.explore.reach import reach
from sparring.kit import registry
from sparring.train.config import make_train_config
from sparring.train.imitate import imitate
from sparring.train.trainer import Trainer


def add_setting_args(p: argparse.ArgumentParser) -> None:
    """``--set``, ``--env-set``, ``--shaping``, ``--greedy``, ``--jobs`` and ``--json``, as both benchmarks take
    them."""
    p.add_argument("--greedy", action="store_true", help="evaluate the most likely actions instead of sampling")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="train settings for both arms")
    p.add_argument(
        "--env-set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="env config for both arms, in training and evaluation",
    )
    p.add_argument(
        "--shaping",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="env config for both arms in training only (shaping rewards)",
    )
    p.add_argument("--jobs", type=int, default=1, help="trainings run at once, each in its own process")
    p.add_argument("--json", metavar="OUT", help="also write every number to this JSON file")


def pairs(items: list[str], what: str) -> dict:
    """``["lr=1e-3", ...]`` (the values of option ``what``) as a dict; a malformed item stops the benchmark."""
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise SystemExit(f"{what} {item!r} is not KEY=VALUE")
        out[key] = value
    return out


def train_and_reach(args, overrides: dict) -> tuple[Trainer, dict, float]:
    """Train ``args.env`` with ``--set`` plus ``overrides`` (env: ``--env-set`` and ``--shaping``), then play
    ``args.episodes`` fresh runs without the shaping; (the closed trainer, the reach of its policy, seconds).
    A ``--set imitate=NAME`` warm start clones first, as ``sparring train`` does."""
    env_config, shaping = pairs(args.env_set, "--env-set"), pairs(args.shaping, "--shaping")
    cfg = make_train_config(registry.get(args.env), {**pairs(args.set, "--set"), **overrides})
    trainer = Trainer(args.env, cfg, {**env_config, **shaping})
    eval_config = {k: v for k, v in trainer.env_config.items() if k not in shaping}
    try:
        for _ in iterations(trainer):
            pass
    finally:
        trainer.close()
    trainer.policy.eval()
    seed = overrides["seed"]
    result = reach(
        args.env, trainer.policy.cpu(), args.episodes, seed=100_000 + seed, greedy=args.greedy, env_config=eval_config
    )
    return trainer, result, trainer.elapsed


def iterations(trainer: Trainer):
    """Train to the trainer's budget as ``sparring train`` does (a ``--set imitate=NAME`` warm start clones first),
    yielding after every iteration, clone or PPO, so a caller can pause to measure or stop early."""
    if trainer.cfg.imitate:
        yield from imitate(trainer)
    while not trainer.finished():
        yield trainer.iterate()


def histogram(values: list[int]) -> str:
    """``value:count`` of every value that occurs, ascending."""
    counts = np.bincount(np.asarray(values, np.int64))
    return " ".join(f"{v}:{c}" for v, c in enumerate(counts) if c)


def report(runs: dict, treated: str) -> dict:
    """Print each arm's waves (or the env's progress field) reached, per-seed means and clear rates, then
    :func:`compare` ``treated`` with ``baseline`` by per-seed mean and, where any run cleared, by clear rate;
    ``runs`` maps arm to its per-seed results (``reach``, ``clear``, ``steps``, ``field``). Returns the per-seed
    figures and the tests (``u``, ``p``; ``clear_u``, ``clear_p``)."""
    field = runs["baseline"][0]["field"]
    means = {arm: [float(np.mean(r["reach"])) for r in rs] for arm, rs in runs.items()}
    clears = {arm: [float(np.mean(r["clear"])) for r in rs] for arm, rs in runs.items()}
    for arm, rs in runs.items():
        episodes = [v for r in rs for v in r["reach"]]
        print(f"{arm:>10}: {field} reached per run (value:count) {histogram(episodes)}")
        print(
            f"{'':>10}  per-seed mean {field}: {', '.join(f'{m:.2f}' for m in means[arm])}  "
            f"(median {np.median(means[arm]):.2f})"
        )
        print(
            f"{'':>10}  per-seed clear rate: {', '.join(f'{c:.1%}' for c in clears[arm])}  "
            f"(pooled {np.mean(clears[arm]):.1%}); {np.mean([r['steps'] for r in rs]):.3g} steps per run"
        )
    test = compare(means, treated, f"mean {field}")
    clear = compare(clears, treated, "clear rate") if any(c for cs in clears.values() for c in cs) else {}
    return {"per_seed_mean": means, "per_seed_clear": clears, **test, **{f"clear_{k}": v for k, v in clear.items()}}


def compare(means: dict, treated: str, field: str) -> dict:
    """One-sided Mann-Whitney of the per-seed ``field``, ``treated`` > baseline: printed, and returned as numbers."""
    test = mannwhitneyu(means[treated], means["baseline"], alternative="greater")
    verdict = "significant" if test.pvalue < 0.01 else "not significant"
    print(
        f"Mann-Whitney U (per-seed {field}, {treated} > baseline): U = {test.statistic:.1f}, "
        f"p = {test.pvalue:.4g} ({verdict} at p < 0.01; n = {len(means[treated])} seeds per arm)"
    )
    return {"u": float(test.statistic), "p": float(test.pvalue)}
