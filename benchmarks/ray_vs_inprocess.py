"""Data-parallel PPO on Ray (``--train.vec ray``) against in-process training: throughput and learning.

    python benchmarks/ray_vs_inprocess.py speed [--envs duel gauntlet] [--workers 2] [--turns 6] [--iterations 4]
    python benchmarks/ray_vs_inprocess.py learn [--env duel] [--seeds 5] [--first-seed 100] [--steps 3000000]

Both take ``--set KEY=VALUE ...``: train settings for both arms on top of the env's defaults.

``speed``: for each env (its defaults, so duel anneals its shaping), one in-process trainer (torch and
the env batch on every core) and one :class:`~sparring.train.parallel.ParallelTrainer` of ``--workers``
workers (one core each) are built side by side, then run in interleaved turns of ``--iterations``
iterations each (A B A B ..., the first iteration of each not counted), so the machine's drift hits
both. It prints the median learner agent-steps/s of each, their ratio with a Mann-Whitney p, and the
costs of a data-parallel iteration (rollout, update, the all-reduces inside it, the driver's wall
time; the slowest worker's), which docs/trainer.md's scaling model is built on.

``learn``: ``--seeds`` training seeds, each trained in-process and with ``--workers`` workers to the same
``--steps`` budget, each scored on ``--episodes`` fresh episodes (``win_rate``: the learner seat's wins);
prints every seed's pair, each arm's mean with a bootstrap 95% interval, and a Mann-Whitney test between
the arms. Everything runs on one local Ray instance on 127.0.0.1 (or ``--ray-address``).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sparring.kit import registry
from sparring.sweep.objective import score
from sparring.sweep.stats import bootstrap_ci, two_sample_p
from sparring.train.config import make_train_config
from sparring.train.parallel import ParallelTrainer
from sparring.train.ray_cluster import init_ray
from sparring.train.trainer import Trainer

BUDGET = 10**12  # the speed turns stop by count, not budget: a budget this far away keeps lr and anneals still


def trainer(env: str, vec: str, workers: int, seed: int = 0, steps: int = BUDGET, settings: dict | None = None):
    """A trainer of ``env``'s defaults and ``settings``, in-process on every core or data-parallel over ``workers``."""
    overrides = {**(settings or {}), "seed": seed, "steps": steps}
    if vec == "ray":
        overrides.update(vec="ray", workers=workers, threads=1)
    cfg = make_train_config(registry.get(env), overrides)
    return (ParallelTrainer if vec == "ray" else Trainer)(env, cfg)


def speed(args) -> None:
    """Interleaved throughput turns per env; prints the figures."""
    for env in args.envs:
        arms = {vec: trainer(env, vec, args.workers, settings=args.set) for vec in ("inprocess", "ray")}
        rates, costs = {vec: [] for vec in arms}, {vec: [] for vec in arms}
        try:
            for _ in range(args.turns):
                for vec, run in arms.items():
                    run.iterate()  # a turn's first iteration follows the other arm's: not counted
                    for _ in range(args.iterations):
                        metrics = run.iterate()
                        rates[vec].append(metrics["train/sps"])
                        costs[vec].append(metrics)
        finally:
            for run in arms.values():
                run.close()
        a, b = np.median(rates["inprocess"]), np.median(rates["ray"])
        p = two_sample_p(rates["ray"], rates["inprocess"], "mannwhitney")
        batch = arms["ray"].batch_size
        print(
            f"{env}: in-process {a / 1e3:.1f} K agent-steps/s, {args.workers} Ray workers {b / 1e3:.1f} K: "
            f"{b / a:.3f}x (Mann-Whitney p {p:.3g}, {len(rates['ray'])} iterations each, batch {batch})",
            flush=True,
        )
        for vec, rows in costs.items():  # the data-parallel figures are the slowest worker's
            parts = {k: statistics.median(m[k] for m in rows) for k in rows[0] if k.startswith("perf/")}
            parts["iteration_s"] = statistics.median(batch / m["train/sps"] for m in rows)
            shown = ", ".join(f"{k.removeprefix('perf/')} {v * 1e3:.1f} ms" for k, v in sorted(parts.items()))
            print(f"  {vec} iteration (medians): {shown}", flush=True)


def learn(args) -> None:
    """Seed pairs trained to the same budget in both arms; prints the scores and the test."""
    scores = {"inprocess": [], "ray": []}
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for vec in scores:
            start = time.perf_counter()
            run = trainer(args.env, vec, args.workers, seed, args.steps, args.set)
            try:
                while not run.finished():
                    run.iterate()
                if vec == "ray":
                    run.train_state()  # copies rank 0's weights into run.policy
                scores[vec].append(score(run, args.metric, args.episodes))
            finally:
                run.close()
            print(f"  seed {seed} {vec:<9}: {args.metric} {scores[vec][-1]:.3f} ({time.perf_counter() - start:.0f} s)")
    for vec, values in scores.items():
        lo, hi = bootstrap_ci(np.array(values))
        print(f"{args.env} {vec:<9}: mean {args.metric} {np.mean(values):.4f} [95% CI {lo:.4f}, {hi:.4f}]")
    p = two_sample_p(scores["ray"], scores["inprocess"], "mannwhitney")
    print(f"{args.seeds} seeds per arm at {args.steps} agent-steps: Mann-Whitney p {p:.3g}")


def main() -> None:
    """Parse, start Ray, measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    fast = sub.add_parser("speed", help="interleaved throughput turns")
    fast.add_argument("--envs", nargs="+", default=["duel", "gauntlet"])
    fast.add_argument("--turns", type=int, default=6)
    fast.add_argument("--iterations", type=int, default=4, help="counted iterations per turn")
    same = sub.add_parser("learn", help="seed pairs at one budget")
    same.add_argument("--env", default="duel")
    same.add_argument("--seeds", type=int, default=5)
    same.add_argument("--first-seed", type=int, default=100)
    same.add_argument("--steps", type=int, default=3_000_000)
    same.add_argument("--episodes", type=int, default=500)
    same.add_argument("--metric", default="win_rate")
    for p in (fast, same):
        p.add_argument("--workers", type=int, default=2)
        p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="train settings for both arms")
        p.add_argument("--ray-address", default="", help="a Ray cluster (default: a local instance on 127.0.0.1)")
    args = parser.parse_args()
    args.set = dict(item.split("=", 1) for item in args.set)
    init_ray(args.ray_address, args.workers)
    (speed if args.what == "speed" else learn)(args)


if __name__ == "__main__":
    main()
