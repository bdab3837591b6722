"""PPO training throughput on `squared`, 1024 envs: MLP and LSTM policies, next to references.

    python benchmarks/train_throughput.py [--envs 1024] [--iterations 8] [--threads 0]

Prints learner agent-steps/s of whole PPO iterations (rollout + update; median over
iterations after one warm-up), and, measured in the same process, the raw env step rate
with random actions (the ceiling the trainer can approach). PufferLib 3.0's CPU trainer
did about 132 K steps/s (MLP, 16K params) and 29 K steps/s (LSTM, 148K params) on this
machine (DESIGN.md); those figures are printed as yardsticks, not re-measured here.
"""

from __future__ import annotations

import argparse
import statistics

from sparring.kit import registry
from sparring.kit.bench import throughput
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer

PUFFERLIB = {"none": 132_000, "lstm": 29_000, "mingru": 29_000}
# PufferLib-sized policies (one 128-wide layer on the raw grid, one epoch), then this trainer's squared defaults
POLICIES = [
    ("MLP, PufferLib-sized", {"recurrence": "none", "layers": 1, "onehot_obs": False, "update_epochs": 1}),
    ("LSTM, PufferLib-sized", {"recurrence": "lstm", "layers": 1, "onehot_obs": False, "update_epochs": 1}),
    ("MinGRU, same size", {"recurrence": "mingru", "layers": 1, "onehot_obs": False, "update_epochs": 1}),
    ("MLP, sparring defaults", {}),
]


def training_rate(policy: dict, envs: int, iterations: int, threads: int) -> dict:
    """Median steps/s and the rollout/update split of PPO iterations with this policy."""
    cfg = make_train_config(None, {"num_envs": envs, "threads": threads, "steps": 10**12, "anneal_lr": False, **policy})
    trainer = Trainer("squared", cfg)
    params = sum(p.numel() for p in trainer.policy.parameters())
    trainer.iterate()
    runs = [trainer.iterate() for _ in range(iterations)]
    median = statistics.median(r["train/sps"] for r in runs)
    return {
        "recurrence": cfg.recurrence,
        "params": params,
        "sps": median,
        "rollout_s": statistics.median(r["perf/rollout_s"] for r in runs),
        "update_s": statistics.median(r["perf/update_s"] for r in runs),
        "batch": trainer.batch_size,
    }


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: the trainer's default)")
    args = parser.parse_args()
    env_rate = throughput(registry.get("squared"), args.envs, repeats=5, seconds=0.3)["median"]
    print(f"squared env alone, random actions, {args.envs} envs: {env_rate / 1e6:.1f} M agent-steps/s (same process)")
    for name, policy in POLICIES:
        r = training_rate(policy, args.envs, args.iterations, args.threads)
        print(
            f"PPO {name:<23} {r['params'] / 1e3:6.1f}K params: {r['sps'] / 1e3:6.1f} K steps/s "
            f"(batch {r['batch']}: rollout {r['rollout_s']:.2f} s + update {r['update_s']:.2f} s); "
            f"{r['sps'] / env_rate:.4f}x the env alone; vs PufferLib's {PUFFERLIB[r['recurrence']] / 1e3:.0f} K: "
            f"{r['sps'] / PUFFERLIB[r['recurrence']]:.2f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
