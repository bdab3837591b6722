"""Env stepping with 1, 2, ... threads (``BatchedEnv(..., num_threads=T)``): agent-steps/s and speed-up over 1.

    python benchmarks/thread_scaling.py [--envs 4096] [--threads 1 2] [--env squared duel gauntlet]
                                        [--repeats 7] [--seconds 1.0]

Per env, one batch per thread count, random in-range actions (16 pregenerated, cycled), the
thread counts interleaved within each repeat so load changes hit them alike; wall time of
``step`` only, median over repeats. Every batch is checked to end in the same bytes as the
one-thread batch (same seed, same actions), so the speed-up never comes from skipped work.
Measure on an otherwise idle machine: a thread that shares its core with another process
runs at that process's pace, and the speed-up with it.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import sparring


def timed_steps(env, pool: list, calls: int) -> float:
    """Seconds of ``calls`` steps of ``env`` with the actions of ``pool``, cycled."""
    start = time.perf_counter()
    for k in range(calls):
        env.step(pool[k % len(pool)])
    return time.perf_counter() - start


def measure(name: str, envs: int, threads: list[int], repeats: int, seconds: float) -> dict[int, float]:
    """Median agent-steps/s of ``name`` at each thread count."""
    batches = {t: sparring.make(name, num_envs=envs, seed=0, num_threads=t) for t in threads}
    first = batches[threads[0]]
    rng = np.random.default_rng(0)
    pool = [
        rng.integers(0, first.heads.sizes, (first.rows, len(first.heads.sizes))).astype(np.int32) for _ in range(16)
    ]
    per_call = timed_steps(first, pool, 16) / 16  # also a warm-up
    calls = max(16, int(seconds / max(per_call, 1e-7)) // 16 * 16)
    rates = {t: [] for t in threads}
    for env in batches.values():
        env.reset(0)
    for _ in range(repeats):
        for t, env in batches.items():
            rates[t].append(env.rows * calls / timed_steps(env, pool, calls))
    ends = {t: env.records.tobytes() for t, env in batches.items()}
    if len(set(ends.values())) != 1:
        raise SystemExit(f"{name}: batches with different thread counts ended in different states")
    return {t: statistics.median(r) for t, r in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--env", nargs="+", default=["squared", "duel", "gauntlet"])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0, help="per thread count and repeat")
    args = parser.parse_args()
    threads = sorted(set(args.threads))
    print(f"{args.envs} envs, threads {threads}, median of {args.repeats} interleaved repeats, wall time of step")
    print(
        f"{'env':10} "
        + " ".join(f"{f'T={t} M/s':>10}" for t in threads)
        + " "
        + " ".join(f"{f'x T={t}':>8}" for t in threads[1:])
    )
    for name in args.env:
        rates = measure(name, args.envs, threads, args.repeats, args.seconds)
        base = rates[threads[0]]
        cells = " ".join(f"{rates[t] / 1e6:10.2f}" for t in threads)
        ups = " ".join(f"{rates[t] / base:8.2f}" for t in threads[1:])
        print(f"{name:10} {cells} {ups}")


if __name__ == "__main__":
    main()
