"""`town` step throughput at 1024 towns x 8 characters on one core, next to `squared` in the same process.

Two action streams: uniformly random action ids (what `sparring bench` uses; most
are illegal in a given state and act as waiting) and the planner's legal choices
(a busy town: moving, working, trading), with the planner's own time left out.

    python benchmarks/town_speed.py [--towns 1024] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import sparring


def timed_steps(env, actions_for, steps: int) -> float:
    """Agent-steps per second of ``env.step`` alone over ``steps`` calls; ``actions_for(env)`` is not timed."""
    spent = 0.0
    for _ in range(steps):
        acts = actions_for(env)
        t = time.perf_counter()
        env.step(acts)
        spent += time.perf_counter() - t
    return env.rows * steps / spent


def main() -> None:
    """Print the median of each figure over repeats and its ratio to squared's."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--towns", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    squared = sparring.make("squared", num_envs=args.towns, seed=0)
    town = sparring.make("town", num_envs=args.towns, seed=0)
    random_pool = [rng.integers(0, town.heads.total, (town.rows, 1)).astype(np.int32) for _ in range(16)]
    square_pool = [rng.integers(0, 5, (squared.rows, 1)).astype(np.int32) for _ in range(16)]
    runs = {
        "squared, random": (squared, lambda e: square_pool[rng.integers(16)]),
        "town, random ids": (town, lambda e: random_pool[rng.integers(16)]),
        "town, planner's legal choices": (town, lambda e: e.scripted_actions("planner")),
    }
    for env, pick in runs.values():
        timed_steps(env, pick, 3)  # compile and warm up
    rates = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, (env, pick) in runs.items():
            rates[name].append(timed_steps(env, pick, args.steps))
    ref = statistics.median(rates["squared, random"])
    print(f"agent-steps/s at {args.towns} envs, one core, median of {args.repeats} x {args.steps} steps")
    for name, values in rates.items():
        med = statistics.median(values)
        print(
            f"  {name:<30} {med / 1e6:7.2f} M  (min {min(values) / 1e6:.2f}, max {max(values) / 1e6:.2f})  "
            f"{med / ref:.3f} x squared"
        )


if __name__ == "__main__":
    main()
