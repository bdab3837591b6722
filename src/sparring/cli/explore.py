"""``sparring explore ENV``: archive exploration, a frontier table, and the saved archive."""

from __future__ import annotations

import argparse
import json
import time

from sparring.cli.overrides import env_overrides
from sparring.cli.seats import add_seat_args


def cmd_explore(args, extra) -> int:
    """Explore ``args.env`` from its archive (new, or ``--resume``d), print the frontier, save the archive."""
    from sparring.explore.archive import Archive
    from sparring.explore.explore import Explorer
    from sparring.explore.frontier import frontier_table, summary
    from sparring.kit import registry
    from sparring.kit.atomic import new_folder
    from sparring.players.opponents import parse_seats

    config = env_overrides(extra)
    env_cls = registry.get(args.env)
    archive = Archive.load(args.resume, env_cls)[0] if args.resume else None
    start = time.perf_counter()
    explorer = Explorer(args.env, args.policy, args.num_envs, args.seed, args.segment, config, archive,
                        parse_seats(args.seat)).run(args.steps)
    seconds = time.perf_counter() - start
    out = args.out or args.resume or new_folder(args.runs, f"{args.env}-explore")  # claimed once there is an archive
    explorer.archive.save(out, {"policy": args.policy, "steps": explorer.steps, "seed": args.seed})
    if args.json:
        print(json.dumps({**summary(explorer.archive), "steps": explorer.steps, "seconds": seconds, "out": out}))
        return 0
    print(frontier_table(explorer.archive, top=args.top))
    print(f"\n{explorer.steps} env steps in {seconds:.1f} s ({explorer.player.name}); archive saved to {out}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``explore``."""
    p = sub.add_parser("explore", help="Go-Explore archive exploration: a cell frontier table and a saved archive "
                                       "(--env.KEY VALUE overrides)")
    p.add_argument("env")
    p.add_argument("--steps", type=int, default=100_000, help="env steps to explore (each env stepping once is one)")
    p.add_argument("--policy", default="random", help="random, or a checkpoint (run folder or checkpoints/step-N) "
                                                      "whose sampled actions explore")
    p.add_argument("--out", help="folder for archive.npz and archive.json (default: runs/<env>-explore-<time>, "
                                 "or the --resume folder)")
    p.add_argument("--resume", metavar="DIR", help="continue the archive saved in DIR")
    p.add_argument("--num-envs", type=int, default=64, help="envs explored at once")
    p.add_argument("--segment", type=int, default=100, help="ticks explored from a cell before choosing another")
    add_seat_args(p, seed=0)
    p.add_argument("--top", type=int, default=10, help="frontier cells listed")
    p.add_argument("--runs", default="runs", help="folder for new output folders")
    p.add_argument("--json", action="store_true", help="the summary as one JSON line")
    p.set_defaults(fn=cmd_explore)
