"""Print the `duel` ladder: each scripted tier against the one below, 2000 episodes per pairing.

Usage: .venv/bin/python benchmarks/duel_ladder.py [episodes] [seed]
The stronger tier plays seat 1 inside the env; the weaker plays seat 0 through
``scripted_actions``. Each tier should win at least 70%; robot vs random 99%.
Draws are double knockouts; a fight that reaches the tick limit is a loss for both
(time-outs), counted as a win for neither.
"""

import sys
import time

from ladders import duel_table


def main() -> None:
    episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    t0 = time.perf_counter()
    print(f"duel ladder, {episodes} episodes per pairing, seed {seed}")
    print(f"{'pairing':34} {'stronger wins':>13} {'weaker wins':>11} {'draws':>6} {'time-outs':>9} {'mean ticks':>10}")
    for label, r in duel_table(episodes, seed):
        print(
            f"{label:34} {r['high']:>13.1%} {r['low']:>11.1%} {r['draw']:>6.1%} {r['timeout']:>9.1%} "
            f"{r['ticks']:>10.0f}"
        )
    print(f"({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
