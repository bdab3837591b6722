"""`serpent` agent-steps/s at N=1024 on one core, next to `squared` measured in the same process.

    .venv/bin/python benchmarks/serpent_speed.py [--envs 1024] [--repeats 7] [--seconds 0.5]

Random actions, the kit's own throughput measurement (``sparring bench``), the
two envs measured in alternation so machine load hits both alike. The target
is at least 1 M agent-steps/s for serpent; the ratio to squared says how much
of the kit's speed serpent's rules keep.
"""

from __future__ import annotations

import argparse
import statistics

from sparring.kit import get
from sparring.kit.bench import throughput


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()
    rates = {"serpent": [], "squared": []}
    for _ in range(args.repeats):
        for name in rates:
            rates[name].append(throughput(get(name), args.envs, repeats=1, seconds=args.seconds)["median"])
    serpent, squared = statistics.median(rates["serpent"]), statistics.median(rates["squared"])
    print(f"N={args.envs}, one core, random actions, median of {args.repeats} alternating repeats")
    print(f"serpent {serpent / 1e6:.2f} M agent-steps/s (min {min(rates['serpent']) / 1e6:.2f}, "
          f"max {max(rates['serpent']) / 1e6:.2f})")
    print(f"squared {squared / 1e6:.2f} M agent-steps/s (reference, same process)")
    print(f"ratio serpent/squared {serpent / squared:.3f}; target >= 1 M: {'met' if serpent >= 1e6 else 'NOT met'}")


if __name__ == "__main__":
    main()
