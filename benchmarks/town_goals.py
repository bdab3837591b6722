"""Goal completion in `town` per brain, over character-episodes, with 95% Wilson intervals.

Every character of every town is played by the same brain (the scripted
planner, uniformly random legal actions, or a trained checkpoint); each
character-episode counts once: did it complete its goal, did it stay standing.

    python benchmarks/town_goals.py                       # planner vs random, 1000 character-episodes each
    python benchmarks/town_goals.py --checkpoint runs/town-...            # and a trained run, sampling
    python benchmarks/town_goals.py --checkpoint runs/town-... --greedy   # its most likely actions
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sparring
from sparring.envs.town.world import GOAL_NAMES
from sparring.kit.stats import wilson_interval
from sparring.players import make_player


def play(spec: str, towns: int, seed: int, greedy: bool = False, **config) -> dict:
    """Play ``towns`` episodes of `town` with every character on brain ``spec``; per-character outcomes."""
    env = sparring.make("town", num_envs=towns, seed=seed, autoreset=False, **config)
    player = make_player(spec, env, seed, greedy)
    learners = env.learner_rows[: env.num_agents]
    rows = np.arange(env.rows)
    while not env.done.all():
        env.step(player.act(env, rows))
    rec = env.records
    return {
        "brain": spec,
        "goal_done": rec["goal_done"][:, learners].ravel().astype(bool),
        "standing": rec["alive"][:, learners].ravel().astype(bool),
        "goal": rec["goal"][:, learners].ravel(),
        "trades": float(rec["metrics"][:, 3].mean()),
        "gini": float(rec["metrics"][:, 7].mean()),
    }


def summary(out: dict) -> str:
    """One line per brain: goal completion and survival with 95% intervals, and completion per goal."""
    n = len(out["goal_done"])
    done, standing = int(out["goal_done"].sum()), int(out["standing"].sum())
    lo, hi = wilson_interval(done, n)
    slo, shi = wilson_interval(standing, n)
    per_goal = ", ".join(
        f"{name} {out['goal_done'][out['goal'] == g].mean():.2f}"
        for g, name in enumerate(GOAL_NAMES)
        if (out["goal"] == g).any()
    )
    return (
        f"{out['brain']:<24} goals {done}/{n} = {done / n:.3f} [{lo:.3f}, {hi:.3f}]  "
        f"standing {standing / n:.3f} [{slo:.3f}, {shi:.3f}]  ({per_goal}; trades/town {out['trades']:.1f}, "
        f"coin gini {out['gini']:.2f})"
    )


def main() -> None:
    """Parse arguments, play each brain, print the table and whether the intervals separate."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--towns", type=int, default=125, help="episodes per brain (x 8 character-episodes)")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--checkpoint", help="also play this trained checkpoint (sampling unless --greedy)")
    parser.add_argument("--greedy", action="store_true")
    args = parser.parse_args()
    specs = ["scripted:planner", "random"] + ([f"checkpoint:{args.checkpoint}"] if args.checkpoint else [])
    results = []
    for spec in specs:
        t = time.perf_counter()
        results.append(play(spec, args.towns, args.seed, args.greedy))
        print(summary(results[-1]), f"{time.perf_counter() - t:.1f} s", flush=True)
    base = results[0]
    b_lo, b_hi = wilson_interval(int(base["goal_done"].sum()), len(base["goal_done"]))
    for other in results[1:]:
        lo, hi = wilson_interval(int(other["goal_done"].sum()), len(other["goal_done"]))
        verdict = "better" if lo > b_hi else "worse" if hi < b_lo else "not separable"
        print(
            f"{other['brain']} vs {base['brain']}: {verdict} (95% intervals "
            f"{'overlap' if verdict == 'not separable' else 'disjoint'})"
        )


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
