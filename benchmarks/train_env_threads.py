"""PPO training throughput with the env stepped on 1 thread (today's step) and on more, at equal torch threads.

    python benchmarks/train_env_threads.py [--env duel] [--envs 4096] [--torch-threads 2] [--env-threads 1 2]
                                           [--iterations 6]

One trainer per env-thread count, all in this process with the same torch thread count,
sparring's defaults otherwise; their iterations (rollout + update) take turns so load changes
hit them alike, one warm-up iteration each. Prints the median learner agent-steps/s, the
rollout and update seconds, and the ratio to the first env-thread count. The runs are the same
bytes whatever the env threads (tests/train/test_trainer.py), so only the time differs.
Measure on an otherwise idle machine: a thread that shares its core with another process
runs at that process's pace.
"""

from __future__ import annotations

import argparse
import statistics

from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="duel")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--torch-threads", type=int, default=2)
    parser.add_argument("--env-threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--iterations", type=int, default=6)
    args = parser.parse_args()
    trainers = {}
    for t in args.env_threads:
        cfg = make_train_config(
            None,
            {
                "num_envs": args.envs,
                "threads": args.torch_threads,
                "env_threads": t,
                "steps": 10**12,
                "anneal_lr": False,
            },
        )
        trainers[t] = Trainer(args.env, cfg)
        trainers[t].iterate()  # warm-up
    runs = {t: [] for t in trainers}
    for _ in range(args.iterations):
        for t, trainer in trainers.items():
            runs[t].append(trainer.iterate())
    print(
        f"{args.env}, {args.envs} envs, torch threads {args.torch_threads}, "
        f"median of {args.iterations} interleaved PPO iterations"
    )
    base = None
    for t, metrics in runs.items():
        sps = statistics.median(m["train/sps"] for m in metrics)
        rollout = statistics.median(m["perf/rollout_s"] for m in metrics)
        update = statistics.median(m["perf/update_s"] for m in metrics)
        base = base or sps
        print(
            f"env threads {t}: {sps / 1e3:7.1f} K agent-steps/s (rollout {rollout:.2f} s + update {update:.2f} s), "
            f"{sps / base:.2f}x env threads {args.env_threads[0]}"
        )


if __name__ == "__main__":
    main()
