"""Seconds per GRPO iteration spent playing and updating, in one process against ``--workers K`` Ray workers.

Usage: .venv/bin/python benchmarks/grpo_workers.py [--workers 1,2] [--iterations 3] [--group 8] [--groups 2]
[--turns 0] [--temperature 1.0] [--lora 2]

The model is the tests' tiny town brain (tests/lm/conftest.py's ``town_model``: distilled for 2 steps, 1 layer,
32 wide), built in a temporary folder; nothing is downloaded. Each worker count runs the same GRPO config (one
torch thread per worker, and in the driver) on a one-day town, and prints each iteration's ``play_s`` (the
broadcast, the play and the transfers back, with K > 1) and ``update_s`` from the run's metrics; the first
iteration includes each worker's first forward passes. A local Ray instance is started on 127.0.0.1 for K > 1.
"""

import argparse
import os
import tempfile

from sparring.lm.distill import DistillConfig, distill
from sparring.lm.grpo import GRPOConfig, grpo
from sparring.train.ray_cluster import init_ray


def main() -> None:
    """Build the tiny model, run GRPO with each worker count, print the per-iteration seconds."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--group", type=int, default=8)
    p.add_argument("--groups", type=int, default=2)
    p.add_argument("--turns", type=int, default=0, help="ticks per copy (0: the whole day)")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--lora", type=int, default=2)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="grpo_workers_")
    model = os.path.join(tmp, "distilled")
    tiny = dict(vocab=400, hidden=32, layers=1, heads=2, intermediate=64, context=2048, threads=1)
    distill(model, DistillConfig(episodes=2, held_out=0.5, steps=2, batch_size=4, **tiny), days=1)
    print("workers iteration play_s update_s turns trained_turns")
    for n, k in enumerate(map(int, args.workers.split(","))):
        if k > 1:
            init_ray("", k)
        cfg = GRPOConfig(
            group=args.group,
            groups=args.groups,
            turns=args.turns,
            temperature=args.temperature,
            iterations=args.iterations,
            lora=args.lora,
            threads=1,
            workers=k,
        )
        for row in grpo(os.path.join(tmp, f"run-{n}-{k}"), model, cfg, days=1):
            print(
                f"{k} {row['iteration']} {row['play_s']:.3f} {row['update_s']:.3f} {row['turns']} "
                f"{row['trained_turns']}",
                flush=True,
            )


if __name__ == "__main__":
    main()
