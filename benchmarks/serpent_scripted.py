"""The scripted players of `serpent`: kill rate with a 95% Wilson interval, and where the deaths happen.

    .venv/bin/python benchmarks/serpent_scripted.py [--episodes 1000] [--seed 0] [--env.KEY VALUE ...]

Each of ``episodes`` envs plays its first fight. The reference player knows the
four rotations; the reactive one does not. The first should kill in at least
80% of fights, the second clearly less often.
"""

from __future__ import annotations

import argparse
import time

from ladders import serpent_fights

from sparring.kit.stats import wilson_interval

PLAYERS = ("reference", "reactive")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args, extra = parser.parse_known_args()
    config = {k[len("--env.") :]: v for k, v in zip(extra[::2], extra[1::2]) if k.startswith("--env.")}
    if len(config) * 2 != len(extra):
        parser.error(f"unexpected arguments {extra}; env overrides look like --env.KEY VALUE")
    t0 = time.perf_counter()
    print(f"serpent scripted players, {args.episodes} fights each, seed {args.seed}, config {config or 'defaults'}")
    print(
        f"{'player':10} {'kills':>6} {'rate':>6} {'95% Wilson':>15} {'deaths':>6} {'timeouts':>8} "
        f"{'kill time':>9}  most deadly phases"
    )
    for player in PLAYERS:
        r = serpent_fights(player, args.episodes, args.seed, **config)
        low, high = wilson_interval(r["kills"], r["episodes"])
        kill_time = f"{r['kill_time']:.0f}" if r["kill_time"] is not None else "-"
        deadly = ", ".join(f"{p} {n}" for p, n in r["death_phases"].most_common(3)) or "-"
        print(
            f"{player:10} {r['kills']:>6} {r['kills'] / r['episodes']:>6.1%} [{low:.3f}, {high:.3f}] "
            f"{r['deaths']:>6} {r['timeouts']:>8} {kill_time:>9}  {deadly}"
        )
        taken = {k[len("taken_") :]: round(v, 1) for k, v in r["metrics"].items() if k.startswith("taken_")}
        print(f"{'':10} damage taken per fight by source: {taken}")
    print(f"({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
