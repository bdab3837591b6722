"""In-process vs multi-process env backends: raw stepping and PPO training throughput.

    python benchmarks/vec_backends.py [--envs 1024] [--workers 2] [--seconds 3] [--iterations 4]

Env stepping: random in-range actions (pregenerated, cycled), env-steps/s (instances x ticks),
for `squared` (a fast step) and `duel` against the in-kernel `robot` (a slower step). Training:
median learner agent-steps/s of PPO iterations on `duel` vs `robot`, sparring's defaults. Both
backends are measured in this process and the ratio printed; worker start-up is not timed.

On this 2-core machine (W=2: one slice in the caller, one in a worker) the multiprocess backend
loses on `squared` (0.2x: a 40 us step cannot pay a ~150 us cross-process round trip), breaks
even on `duel` vs robot at 1024 envs (1.0x stepping and training), and wins only with big
batches of a slow step (duel: 1.15x at 4096 envs, 1.4x at 16384). Keep `inprocess` by default.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sparring.kit import BatchedEnv, registry
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer
from sparring.train.vec import MultiprocessEnv

CASES = [("squared", {}), ("duel", {"opponent": "robot"})]


def step_rate(env, seconds: float) -> float:
    """Env-steps/s of ``env.step`` with random actions over about ``seconds`` (after a warm-up)."""
    rng = np.random.default_rng(0)
    pool = [rng.integers(0, env.heads.sizes, size=(env.rows, len(env.heads.sizes))).astype(np.int32) for _ in range(16)]
    for acts in pool:
        env.step(acts)
    ticks, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for acts in pool:
            env.step(acts)
        ticks += len(pool)
    return ticks * env.num_envs / (time.perf_counter() - start)


def train_rate(vec: str, envs: int, workers: int, iterations: int) -> float:
    """Median learner agent-steps/s of PPO iterations on duel vs robot with backend ``vec``."""
    # env_anneal off: duel's shaping fade needs the in-process backend, and only throughput is compared here
    cfg = make_train_config(
        registry.get("duel"),
        {"num_envs": envs, "steps": 10**12, "anneal_lr": False, "vec": vec, "workers": workers, "env_anneal": ""},
    )
    trainer = Trainer("duel", cfg, opponent="robot")
    try:
        trainer.iterate()
        return statistics.median(trainer.iterate()["train/sps"] for _ in range(iterations))
    finally:
        trainer.close()


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--iterations", type=int, default=4)
    args = parser.parse_args()
    for name, config in CASES:
        cls = registry.get(name)
        inproc = step_rate(BatchedEnv(cls, args.envs, **config), args.seconds)
        with MultiprocessEnv(cls, args.envs, workers=args.workers, **config) as env:
            multi = step_rate(env, args.seconds)
        print(
            f"{name:<8} {str(config):<22} env stepping, {args.envs} envs: in-process {inproc / 1e3:8.1f} K/s, "
            f"multiprocess W={args.workers} {multi / 1e3:8.1f} K/s, ratio {multi / inproc:.2f}x",
            flush=True,
        )
    inproc = train_rate("inprocess", args.envs, args.workers, args.iterations)
    multi = train_rate("multiprocess", args.envs, args.workers, args.iterations)
    print(
        f"PPO on duel vs robot, {args.envs} envs: in-process {inproc / 1e3:.1f} K steps/s, "
        f"multiprocess W={args.workers} {multi / 1e3:.1f} K steps/s, ratio {multi / inproc:.2f}x"
    )


if __name__ == "__main__":
    main()
