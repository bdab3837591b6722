"""The scripted players of `gauntlet`: how far they get (wave distribution), how they die, what they spend.

    .venv/bin/python benchmarks/gauntlet_scripted.py [--episodes 500] [--seed 0] [--env.KEY VALUE ...]

Each of ``episodes`` envs plays its first run. The competent player flicks
prayer from the forecast; the steady one prays against the closest monster's
style all the time. The first should get clearly further. Last, a player who
never acts: it should never reach the tick limit unhurt nor have its first
wave cleared for it (monsters walk round pillars; a falling pillar never kills).
"""

from __future__ import annotations

import argparse
import time

from ladders import gauntlet_passive, gauntlet_runs, wave_table

from sparring.envs.gauntlet.world import SOURCES, WAVES
from sparring.evaluate.wilson import wilson_interval

PLAYERS = ("competent", "steady")


def report(r: dict) -> list[str]:
    """The lines printed for one player's runs."""
    waves = r["waves"]
    low, high = wilson_interval(r["clears"], r["episodes"])
    m = r["metrics"]
    lines = [f"{r['policy']}: {r['episodes']} runs, clears {r['clears']} ({r['clears'] / r['episodes']:.1%}, 95% "
             f"Wilson [{low:.3f}, {high:.3f}]), deaths {r['deaths']}, timeouts {r['timeouts']}; wave reached: mean "
             f"{waves.mean():.2f}, median {int(sorted(waves)[len(waves) // 2])}, max {waves.max()}; mean length "
             f"{r['ticks']:.0f} ticks",
             f"  {'wave':>4} {'ended':>6} {'reached':>8}"]
    lines += [f"  {w:>4} {n:>6} {f:>8.1%}" for w, n, f in wave_table(waves, WAVES)]
    killers = {s: round(m[f"killed_by_{s}"] * r["episodes"]) for s in SOURCES}
    lines.append(f"  deaths by damage source: {killers}")
    lines.append("  deadliest phases: " + (", ".join(f"{p} {n}" for p, n in r["death_phases"].most_common(5)) or "-"))
    lines.append(f"  per run: heals {m['heals_used']:.2f}, restores {m['restores_used']:.2f}, pillars lost "
                 f"{m['pillars_lost']:.2f}, healers tagged {m['healers_tagged']:.2f} / killed "
                 f"{m['healers_killed']:.2f}, lowest hp {m['lowest_hp']:.1f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args, extra = parser.parse_known_args()
    config = {k[len("--env."):]: v for k, v in zip(extra[::2], extra[1::2]) if k.startswith("--env.")}
    if len(config) * 2 != len(extra):
        parser.error(f"unexpected arguments {extra}; env overrides look like --env.KEY VALUE")
    t0 = time.perf_counter()
    print(f"gauntlet scripted players, {args.episodes} runs each, seed {args.seed}, config {config or 'defaults'}")
    for player in PLAYERS:
        print("\n".join(report(gauntlet_runs(player, args.episodes, args.seed, **config))))
    p = gauntlet_passive(args.episodes, args.seed, **config)
    print(f"a player who never acts: {p['episodes']} runs, " + ", ".join(
        f"{label} {p[key]} ({p[key] / p['episodes']:.1%}, 95% Wilson [{lo:.3f}, {hi:.3f}])"
        for label, key in (("time-outs", "timeouts"), ("unhurt", "unhurt"), ("first wave cleared for it", "cleared"))
        for lo, hi in [wilson_interval(p[key], p["episodes"])]) + f"; mean length {p['ticks']:.0f} ticks")
    print(f"({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
