"""Env stepping with 1, 2, ... threads (``BatchedEnv(..., num_threads=T)``): agent-steps/s and speed-up over 1.

    python benchmarks/thread_scaling.py [--envs 4096] [--threads 1 2] [--env squared duel gauntlet]
                                        [--repeats 7] [--seconds 1.0]

Per env, one batch per thread count, random in-range actions (16 pregenerated, cycled), the
thread counts interleaved within each repeat so load changes hit them alike; wall time of
``step`` only, median over repeats. Every batch is checked to end in the same bytes as the
one-thread batch (same seed, same actions), so the speed-up never comes from skipped work.
Measure on an otherwise idle machine: a thread that shares its core with another process
runs at that process's pace, and the speed-up with it.

Three rows first give the machine's own ceiling, measured the same way: ``ceiling:compute`` (each
thread runs a register-only integer loop, one dependent chain, nothing shared), ``ceiling:vector``
(each thread updates its own 16 KiB array with vector multiply-adds: bound by the core's throughput,
as env code is) and ``ceiling:memory`` (each thread sums its own 32 MiB array, far beyond the
caches). An env's speed-up reads against them: on a VM whose two vCPUs share a physical core, its
caches or its memory bandwidth, or whose host takes turns away from a vCPU, no env beats its ceiling.
"""

from __future__ import annotations

import argparse
import statistics
import time

import threading

import numba
import numpy as np

import sparring

CEILING_WORK = 1 << 25  # loop iterations per thread and call of the compute ceiling
STREAM_ELEMENTS = 1 << 22  # float64 elements (32 MiB) per thread of the memory ceiling: beyond every cache
CEILINGS = ("compute", "vector", "memory")
VECTOR_ELEMENTS = 2048  # float64 elements (16 KiB) per thread of the vector ceiling: in the L1 cache


@numba.njit(nogil=True, cache=True)
def _spin(n: int, seed: int) -> int:
    """``n`` rounds of xorshift in registers: work that scales with cores and nothing else."""
    x = seed | 1
    for _ in range(n):
        x ^= (x << 13) & 0xFFFFFFFFFFFF
        x ^= x >> 7
        x ^= (x << 17) & 0xFFFFFFFFFFFF
    return x


@numba.njit(nogil=True, cache=True, fastmath=True)
def _scale(a: np.ndarray, rounds: int) -> None:
    """``rounds`` passes of a multiply-add over ``a``: vector work bound by the core's throughput."""
    for _ in range(rounds):
        for i in range(a.size):
            a[i] = a[i] * 0.999 + 0.001


@numba.njit(nogil=True, cache=True)
def _stream(a: np.ndarray) -> float:
    """The sum of ``a``: work bound by memory bandwidth once ``a`` is beyond the caches."""
    total = 0.0
    for i in range(a.size):
        total += a[i]
    return total


def ceiling_rate(kind: str, threads: int, arrays: list, calls: int) -> float:
    """Units of ``kind`` work per second with ``threads`` threads, each on its own share."""

    def work(k: int) -> None:
        for _ in range(calls):
            if kind == "compute":
                _spin(CEILING_WORK, k)
            elif kind == "vector":
                _scale(arrays[k], CEILING_WORK // VECTOR_ELEMENTS)
            else:
                _stream(arrays[k])

    pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    start = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    per_call = STREAM_ELEMENTS if kind == "memory" else CEILING_WORK
    return threads * calls * per_call / (time.perf_counter() - start)


def measure_ceiling(kind: str, threads: list[int], repeats: int) -> dict[int, float]:
    """Median rate of the ``kind`` ceiling row at each thread count, the counts interleaved per repeat."""
    size = {"compute": 0, "vector": VECTOR_ELEMENTS, "memory": STREAM_ELEMENTS}[kind]
    arrays = [np.ones(size, np.float64) for _ in range(max(threads))]
    ceiling_rate(kind, max(threads), arrays, 1)  # compile and touch the pages
    rates = {t: [] for t in threads}
    for _ in range(repeats):
        for t in threads:
            rates[t].append(ceiling_rate(kind, t, arrays, 4))
    return {t: statistics.median(r) for t, r in rates.items()}


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
        f"{'env':16} "
        + " ".join(f"{f'T={t} M/s':>10}" for t in threads)
        + " "
        + " ".join(f"{f'x T={t}':>8}" for t in threads[1:])
    )
    rows = [(f"ceiling:{kind}", lambda kind=kind: measure_ceiling(kind, threads, args.repeats)) for kind in CEILINGS]
    rows += [
        (name, lambda name=name: measure(name, args.envs, threads, args.repeats, args.seconds)) for name in args.env
    ]
    for name, run in rows:
        rates = run()
        base = rates[threads[0]]
        cells = " ".join(f"{rates[t] / 1e6:10.2f}" for t in threads)
        ups = " ".join(f"{rates[t] / base:8.2f}" for t in threads[1:])
        print(f"{name:16} {cells} {ups}")


if __name__ == "__main__":
    main()
