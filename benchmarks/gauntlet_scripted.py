"""The scripted players of `gauntlet`: clear rate, how far they get, how they die, what they have left at each wave.

    .venv/bin/python benchmarks/gauntlet_scripted.py [--players expert,competent,steady,passive,checkpoint:RUN]
        [--episodes 500] [--seed 0] [--frugal] [--env.KEY VALUE ...]

Each of ``episodes`` envs plays its first run. Per player: the clear rate with its
95% Wilson interval, deaths and time-outs, the wave reached, and per wave the runs
that ended there (``died``), the share that reached it, the mean hp, prayer
points, heals and restores they had and the tick it was when they arrived, and the
share of all played ticks spent in the wave. Then the deaths by damage source, the
deadliest phases, the supplies used per run (and the heals drunk with more than 69 hp,
part of the dose wasted), and the cost in seconds per run. ``checkpoint:RUN`` plays a
trained policy the same way (its actions sampled), to see where its runs spend their
time and supplies against the scripted players'; with ``--frugal`` it plays again with
every dose that would waste some (a heal above 69 hp, a restore above 69 prayer) refused.

``expert`` is the reference that clears; ``competent`` flicks prayer from the
forecast but a tick early and never dodges; ``steady`` prays all the time.
``passive`` is a player who never acts: it should never reach the tick limit
unhurt nor have its first wave cleared for it (monsters walk round pillars; a
falling pillar never kills).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from ladders import gauntlet_passive, gauntlet_runs

from sparring.envs.gauntlet.env import Gauntlet
from sparring.envs.gauntlet.world import HEAL_HP, MAX_HP, SOURCES, WAVES
from sparring.kit.stats import wilson_interval

PLAYERS = ("expert", "competent", "steady", "passive")


def report(r: dict) -> list[str]:
    """The lines printed for one player's runs."""
    waves, n = r["waves"], r["episodes"]
    low, high = wilson_interval(r["clears"], n)
    m, a = r["metrics"], r["arrivals"]
    lines = [
        f"{r['policy']}: {n} runs, clears {r['clears']} ({r['clears'] / n:.1%}, 95% Wilson [{low:.3f}, "
        f"{high:.3f}]), deaths {r['deaths']}, timeouts {r['timeouts']}; wave reached: mean {waves.mean():.2f}, "
        f"median {int(sorted(waves)[n // 2])}, max {waves.max()}; mean length {r['ticks']:.0f} ticks; "
        f"{r['seconds']:.1f} s ({r['seconds'] / n * 1000:.1f} ms per run)",
        f"  {'wave':>4} {'died':>5} {'reached':>8}   at arrival: {'hp':>5} {'prayer':>6} {'heals':>5} "
        f"{'restores':>8} {'tick':>5} {'time':>6}",
    ]
    ended = np.bincount(waves[~r["cleared"]], minlength=WAVES + 1)
    for w in range(int(np.flatnonzero(a["count"])[0]), WAVES + 1):
        if a["count"][w]:
            lines.append(
                f"  {w:>4} {ended[w]:>5} {a['count'][w] / n:>8.1%}               {a['hp'][w]:>5.1f} "
                f"{a['pp'][w]:>6.1f} {a['heals'][w]:>5.2f} {a['restores'][w]:>8.2f} {a['tick'][w]:>5.0f} "
                f"{r['time'][w]:>6.1%}"
            )
    killers = {s: round(m[f"killed_by_{s}"] * n) for s in SOURCES}
    lines.append(f"  deaths by damage source: {killers}")
    lines.append("  deadliest phases: " + (", ".join(f"{p} {k}" for p, k in r["death_phases"].most_common(5)) or "-"))
    lines.append(
        f"  per run: heals {m['heals_used']:.2f}, restores {m['restores_used']:.2f}, pillars lost "
        f"{m['pillars_lost']:.2f}, healers tagged {m['healers_tagged']:.2f} / killed "
        f"{m['healers_killed']:.2f}, lowest hp {m['lowest_hp']:.1f}; heals drunk above "
        f"{MAX_HP - HEAL_HP} hp {r['overheals']} of {r['heals']}"
    )
    return lines


def passive_line(episodes: int, seed: int, config: dict) -> str:
    """The line printed for the player who never acts."""
    p = gauntlet_passive(episodes, seed, **config)
    return (
        f"passive (never acts): {p['episodes']} runs, "
        + ", ".join(
            f"{label} {p[key]} ({p[key] / p['episodes']:.1%}, 95% Wilson [{lo:.3f}, {hi:.3f}])"
            for label, key in (
                ("time-outs", "timeouts"),
                ("unhurt", "unhurt"),
                ("first wave cleared for it", "cleared"),
            )
            for lo, hi in [wilson_interval(p[key], p["episodes"])]
        )
        + f"; mean length {p['ticks']:.0f} ticks"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--players", default=",".join(PLAYERS), help=f"comma-separated, from {', '.join(PLAYERS)} (default: all)"
    )
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--frugal", action="store_true", help="also play each checkpoint with its wasteful doses refused"
    )
    args, extra = parser.parse_known_args()
    config = {k[len("--env.") :]: v for k, v in zip(extra[::2], extra[1::2]) if k.startswith("--env.")}
    if len(config) * 2 != len(extra):
        parser.error(f"unexpected arguments {extra}; env overrides look like --env.KEY VALUE")
    players = [p for p in args.players.split(",") if p]
    unknown = [
        p for p in players if p not in PLAYERS and p not in Gauntlet.scripted and not p.startswith("checkpoint:")
    ]
    if unknown or not players:
        parser.error(f"--players {args.players!r}: expected names from {', '.join(PLAYERS)} or checkpoint:RUN")
    if args.episodes < 1:
        parser.error(f"--episodes must be at least 1, got {args.episodes}")
    t0 = time.perf_counter()
    print(f"gauntlet players, {args.episodes} runs each, seed {args.seed}, config {config or 'defaults'}")
    for player in players:
        if player == "passive":
            print(passive_line(args.episodes, args.seed, config))
        else:
            print("\n".join(report(gauntlet_runs(player, args.episodes, args.seed, **config))))
            if args.frugal and player.startswith("checkpoint:"):
                print("\n".join(report(gauntlet_runs(player, args.episodes, args.seed, frugal=True, **config))))
    print(f"({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
