"""`serpent` agent-steps/s at N=1024 on one core, next to `squared` measured in the same process.

    .venv/bin/python benchmarks/serpent_speed.py [--envs 1024] [--repeats 7] [--seconds 0.5]

Random actions, as in ``sparring bench``; the two envs are measured in
alternation so machine load hits both alike. Each rate is given per second of
wall time (what ``sparring bench`` reports) and per second of this thread's CPU
time, which stays honest on a machine shared with other jobs. The target is at
least 1 M agent-steps/s for serpent; the ratio to squared says how much of the
kit's speed serpent's rules keep.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sparring.kit import BatchedEnv, get


def rates(env: BatchedEnv, actions: list[np.ndarray], seconds: float) -> tuple[float, float]:
    """(agent-steps per wall second, per CPU second of this thread) over about ``seconds``."""
    steps, wall, cpu = 0, time.perf_counter(), time.thread_time()
    while time.perf_counter() - wall < seconds:
        for acts in actions:
            env.step(acts)
        steps += len(actions)
    rows = env.rows * steps
    return rows / (time.perf_counter() - wall), rows / (time.thread_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    envs, actions, wall, cpu = {}, {}, {}, {}
    for name in ("serpent", "squared"):
        envs[name] = env = BatchedEnv(get(name), num_envs=args.envs, seed=0)
        actions[name] = [
            np.ascontiguousarray(rng.integers(0, env.heads.sizes, (env.rows, len(env.heads.sizes))), np.int32)
            for _ in range(16)
        ]
        rates(env, actions[name], 0.05)  # warm up
        wall[name], cpu[name] = [], []
    for _ in range(args.repeats):
        for name, env in envs.items():
            w, c = rates(env, actions[name], args.seconds)
            wall[name].append(w)
            cpu[name].append(c)
    print(f"N={args.envs}, one thread, random actions, median of {args.repeats} alternating repeats")
    for name in envs:
        print(
            f"{name:8} {statistics.median(wall[name]) / 1e6:6.2f} M agent-steps/s wall, "
            f"{statistics.median(cpu[name]) / 1e6:6.2f} M per CPU second"
        )
    ratio = statistics.median(cpu["serpent"]) / statistics.median(cpu["squared"])
    wall_rate, cpu_rate = statistics.median(wall["serpent"]), statistics.median(cpu["serpent"])
    verdict = "met" if wall_rate >= 1e6 else "met in CPU time only" if cpu_rate >= 1e6 else "NOT met"
    print(f"ratio serpent/squared (CPU time) {ratio:.3f}; target >= 1 M agent-steps/s: {verdict}")


if __name__ == "__main__":
    main()
