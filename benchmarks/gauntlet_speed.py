"""`gauntlet` agent-steps/s at N=1024 on one core (from wave 1, and from late waves), next to `squared`.

    .venv/bin/python benchmarks/gauntlet_speed.py [--envs 1024] [--repeats 7] [--seconds 0.5] [--late 25]

Random actions, as in ``sparring bench``. Random play dies within the first
waves, so a second setup starts every run at wave ``--late`` (worn states from
the reset kernel, loaded through the reset pool), where more monsters act each
tick. The setups are measured in alternation so machine load hits them alike;
each rate is per second of wall time (what ``sparring bench`` reports) and per
second of this thread's CPU time. The target is at least 300 K agent-steps/s at
N=1024; the ratio to squared says how much of the kit's speed the rules keep.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sparring.envs.gauntlet.states import worn_states
from sparring.kit import BatchedEnv, get

TARGET = 300e3


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
    parser.add_argument("--late", type=int, default=25, help="wave the late setup starts at")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    envs = {
        "gauntlet": BatchedEnv(get("gauntlet"), num_envs=args.envs, seed=0),
        f"gauntlet@{args.late}": BatchedEnv(get("gauntlet"), num_envs=args.envs, seed=0),
        "squared": BatchedEnv(get("squared"), num_envs=args.envs, seed=0),
    }
    late = worn_states(args.late, args.envs, seed=1)
    envs[f"gauntlet@{args.late}"].restore(None, late)
    envs[f"gauntlet@{args.late}"].set_reset_pool(late, 1.0)
    actions, wall, cpu = {}, {}, {}
    for name, env in envs.items():
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
            f"{name:12} {statistics.median(wall[name]) / 1e6:6.3f} M agent-steps/s wall, "
            f"{statistics.median(cpu[name]) / 1e6:6.3f} M per CPU second"
        )
    for name in list(envs)[:2]:
        ratio = statistics.median(cpu[name]) / statistics.median(cpu["squared"])
        wall_rate, cpu_rate = statistics.median(wall[name]), statistics.median(cpu[name])
        verdict = "met" if wall_rate >= TARGET else "met in CPU time only" if cpu_rate >= TARGET else "NOT met"
        print(f"ratio {name}/squared (CPU time) {ratio:.3f}; target >= 300 K agent-steps/s: {verdict}")


if __name__ == "__main__":
    main()
