"""Co-trained populations against one shared policy in `town`, judged among backgrounds they never trained with.

Trains four recipes for the same learner agent-steps (a planner clone for the first `--clone` of
them, then PPO with `--env.reward_team 1`, as town's recipe), unless given as `--run NAME=PATH`:

- `shared`: today's recipe, one policy for all 8 characters;
- `groups4`: four policies, each learning two characters (`--train.policies groups:4`);
- `groups4+league`: the same, while a league (snapshots of the run's policies every 10 updates and
  `scripted:planner:0.2`, drawn by PFSP) plays 2 of the 8 characters of every town;
- `shared+league`: one shared policy with that league.

Then `sparring judge town` seats each trained brain and the planner on 4 of 8 characters among each
background (the planner, the planner with 10% and 30% noise, each trained brain), `--episodes` towns
per pairing, with `--emergence`, and prints the per-capita goal rate of the focal characters with 95%
Wilson intervals, trades per town, work entropy and division of labour (bootstrap intervals) side by
side, and each brain's goal rate pooled over the backgrounds it never trained with.

    python benchmarks/town_populations.py --out runs/populations                # trains 4 runs, then judges
    python benchmarks/town_populations.py --out runs/populations --run shared=runs/town-A --run groups4=...
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from sparring.kit.stats import wilson_interval

LEAGUE = ["--train.league", "self,scripted:planner:0.2", "--train.league_seats", "2", "--train.pool_every", "10"]
RECIPES = {
    "shared": [],
    "groups4": ["--train.policies", "groups:4"],
    "groups4+league": ["--train.policies", "groups:4", *LEAGUE],
    "shared+league": LEAGUE,
}
TRAINED_WITH = {"groups4+league": {"scripted:planner:0.2"}, "shared+league": {"scripted:planner:0.2"}}
BACKGROUNDS = ["scripted:planner", "scripted:planner:0.1", "scripted:planner:0.3"]


def train(name: str, args) -> str:
    """Train recipe ``name`` into ``args.out/runs``; returns its run folder."""
    runs = os.path.join(args.out, "runs")
    before = set(os.listdir(runs)) if os.path.isdir(runs) else set()
    command = [
        sys.executable, "-m", "sparring", "train", "town", "--env.reward_team", "1",
        "--train.steps", str(args.steps), "--train.imitate_steps", str(args.clone), "--train.imitate_minutes", "0",
        "--train.eval_episodes", "0", "--train.seed", str(args.seed), "--runs", runs, *RECIPES[name],
    ]  # fmt: skip
    print(" ".join(command[1:]), flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    (new,) = set(os.listdir(runs)) - before
    return os.path.join(runs, new)


def cell(rate: dict) -> str:
    return f"{rate['rate']:.3f} [{rate['ci95'][0]:.2f},{rate['ci95'][1]:.2f}]"


def mean(m: dict | None) -> str:
    return "-" if m is None else f"{m['mean']:.2f} [{m['ci95'][0]:.2f},{m['ci95'][1]:.2f}]"


def _entropy(pairing: dict) -> str:
    return mean(pairing["emergence"]["work"].get("focal", {}).get("entropy"))


def _division(pairing: dict) -> str:
    division = pairing["emergence"]["division_of_labour"]
    shuffled = division["shuffled"]
    return mean(division["mean"]) + ("" if shuffled is None else f" ({shuffled['mean']:.2f})")


def table(report: dict, names: dict[str, str]) -> str:
    """The side-by-side tables of a judge report; ``names`` maps brain specs to recipe names."""
    label = lambda spec: names.get(spec, spec.replace("scripted:", ""))  # noqa: E731
    pairings = {(p["focal_brain"], p["background_brain"]): p for p in report["pairings"]}
    heads = [label(b) for b in report["backgrounds"]]
    lines = []
    for title, pick in (
        ("goal rate of the focal characters (4 of 8), 95% Wilson", lambda p: cell(p["focal"]["goal_rate"])),
        ("trades per town, 95% bootstrap", lambda p: mean(p["trades_per_town"])),
        ("work entropy of the focal characters (0: one skill, 1: all three)", _entropy),
        ("division of labour in the town (shuffled in brackets after)", _division),
    ):
        lines.append(f"\n{title}; columns: background brain (* = the focal brain trained with it or is it)")
        lines.append(f"  {'focal':<16}" + "".join(f"{h:>26}" for h in heads))
        for focal in report["focal"]:
            row = []
            for b in report["backgrounds"]:
                seen = b == focal or b in TRAINED_WITH.get(names.get(focal, ""), set())
                row.append(f"{pick(pairings[focal, b]) + ('*' if seen else ' '):>26}")
            lines.append(f"  {label(focal):<16}" + "".join(row))
    lines.append(
        "\ngoal rate pooled over the backgrounds each focal brain never trained with (not itself, not its league)"
    )
    for focal in report["focal"]:
        held = [
            b for b in report["backgrounds"] if b != focal and b not in TRAINED_WITH.get(names.get(focal, ""), set())
        ]
        ok = sum(pairings[focal, b]["focal"]["goal_rate"]["successes"] for b in held)
        n = sum(pairings[focal, b]["focal"]["goal_rate"]["trials"] for b in held)
        low, high = wilson_interval(ok, n)
        lines.append(
            f"  {label(focal):<16} {ok / n:.3f} [{low:.3f},{high:.3f}]  ({ok}/{n}; among {', '.join(map(label, held))})"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="folder for the runs, the judge's report and plots")
    parser.add_argument("--steps", type=int, default=2_400_000, help="learner agent-steps per run")
    parser.add_argument("--clone", type=int, default=1_000_000, help="of them, cloning the planner first")
    parser.add_argument("--episodes", type=int, default=256, help="towns per judge pairing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run", action="append", default=[], help="NAME=PATH: use this run for recipe NAME")
    args = parser.parse_args()
    given = dict(r.split("=", 1) for r in args.run)
    unknown = set(given) - set(RECIPES)
    if unknown:
        sys.exit(f"--run: unknown recipe(s) {sorted(unknown)}; valid: {list(RECIPES)}")
    os.makedirs(args.out, exist_ok=True)
    runs = {name: given.get(name) or train(name, args) for name in RECIPES}
    specs = {f"checkpoint:{path}": name for name, path in runs.items()}
    report_file = os.path.join(args.out, "judge.json")
    command = [sys.executable, "-m", "sparring", "judge", "town", "--episodes", str(args.episodes)]
    for spec in [*specs, "scripted:planner"]:
        command += ["--brain", spec]
    for spec in [*BACKGROUNDS, *specs]:
        command += ["--background", spec]
    command += ["--emergence", os.path.join(args.out, "emergence"), "--out", report_file]
    print(" ".join(command[1:]), flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with open(report_file) as fh:
        report = json.load(fh)
    print("\n".join(f"{name}: {path}" for name, path in runs.items()))
    print(table(report, specs))


if __name__ == "__main__":
    main()
