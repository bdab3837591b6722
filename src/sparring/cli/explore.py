"""``sparring explore ENV``: archive exploration, a frontier table, and the archive, saved as it grows."""

from __future__ import annotations

import argparse
import json
import os
import time

from sparring.cli.overrides import env_overrides
from sparring.cli.seats import add_seat_args
from sparring.cli.values import STEPS_MAX, count, input_path, number, output_folder, text

DEFAULT_STEPS = 100_000


def cmd_explore(args, extra) -> int:
    """Explore ``args.env`` from its archive (new, or ``--resume``d), print the frontier, save the archive.

    The archive is saved every ``--save-s`` seconds and at the end, each time all at once; a
    killed exploration resumes with ``--resume DIR`` (up to the steps it was asked for, unless
    ``--steps`` asks for more).
    """
    from sparring.explore.archive import Archive
    from sparring.explore.explore import Explorer
    from sparring.explore.frontier import frontier_table, summary
    from sparring.kit import registry
    from sparring.kit.atomic import new_folder
    from sparring.kit.files import check_output
    from sparring.kit.progress import Progress
    from sparring.players.opponents import parse_seats

    config = env_overrides(extra)
    env_cls = registry.get(args.env)
    archive, saved = Archive.load(args.resume, env_cls, config) if args.resume else (None, {})
    done, goal = _progress(saved, args.resume)
    out = args.out or args.resume
    check_output(out or args.runs, "--out" if args.out else "--resume" if out else "--runs", folder=True)
    policy = args.policy or saved.get("policy") or "random"
    steps = args.steps if args.steps is not None else (goal - done if goal is not None else DEFAULT_STEPS)
    start = time.perf_counter()

    def save(explorer: Explorer) -> None:
        nonlocal out
        out = out or new_folder(args.runs, f"{args.env}-explore")  # claimed once there is an archive to save
        explorer.archive.save(
            out, {"policy": policy, "seed": args.seed, "steps": done + explorer.steps, "goal": done + max(steps, 0)}
        )

    with Progress(f"explore {args.env}") as progress:
        progress.status("building the envs and the player (compiling the env's kernels on a first run)")
        explorer = Explorer(
            args.env, policy, args.num_envs, args.seed, args.segment, config, archive, parse_seats(args.seat)
        )
        progress.status("exploring")
        if steps > 0:
            explorer.run(steps, save, args.save_s, progress=progress)
        progress.status("saving the archive")
        save(explorer)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({**summary(explorer.archive), "steps": explorer.steps, "seconds": seconds, "out": out}))
        return 0
    print(frontier_table(explorer.archive, top=args.top))
    print(f"\n{explorer.steps} env steps in {seconds:.1f} s ({explorer.player.name}); archive saved to {out}")
    return 0


def _progress(saved: dict, folder: str | None) -> tuple[int, int | None]:
    """Steps explored so far and the steps asked for, as a resumed archive recorded them (0, None: not said)."""
    from sparring.kit.files import DamagedFile

    done, goal = saved.get("steps", 0), saved.get("goal")
    whole = [isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (done, 0 if goal is None else goal)]
    if not all(whole):
        raise DamagedFile(
            os.path.join(folder or "", "archive.npz"),
            f"its explore progress is steps={done!r}, goal={goal!r}; whole numbers >= 0 expected",
            "explore anew",
        )
    return done, goal


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``explore``."""
    p = sub.add_parser(
        "explore",
        help="Go-Explore archive exploration: a cell frontier table and a saved archive (--env.KEY VALUE overrides)",
    )
    p.add_argument("env")
    p.add_argument(
        "--steps",
        type=count(1, STEPS_MAX),
        help=f"env steps to explore (each env stepping once is one; default "
        f"{DEFAULT_STEPS}, or with --resume the rest of the steps asked "
        "for when it was started)",
    )
    p.add_argument(
        "--policy",
        type=text("random or a checkpoint"),
        help="random (the default), or a checkpoint (run folder or checkpoints/step-N) whose "
        "sampled actions explore; with --resume, the archive's",
    )
    p.add_argument(
        "--out",
        type=output_folder("archive folder to write"),
        help="folder for archive.npz and archive.json (default: runs/<env>-explore-<time>, or the --resume folder)",
    )
    p.add_argument(
        "--resume", metavar="DIR", type=input_path("archive folder"), help="continue the archive saved in DIR"
    )
    p.add_argument("--force", action="store_true", help="write into --out even if it is not empty")
    p.add_argument(
        "--save-s",
        type=number(0, 10**6, above=True),
        default=60.0,
        help="seconds between saves of the archive while exploring",
    )
    p.add_argument("--num-envs", type=count(1), default=64, help="envs explored at once")
    p.add_argument("--segment", type=count(1), default=100, help="ticks explored from a cell before choosing another")
    add_seat_args(p, seed=0)
    p.add_argument("--top", type=count(0), default=10, help="frontier cells listed")
    p.add_argument(
        "--runs",
        default="runs",
        type=output_folder("folder of output folders", exists_ok=True),
        help="folder for new output folders",
    )
    p.add_argument("--json", action="store_true", help="the summary as one JSON line")
    p.set_defaults(fn=cmd_explore)
