"""``sparring judge``: brains against brains they did not train with, a cross-play matrix and ratings."""

from __future__ import annotations

import argparse
import json

from sparring.cli.lm import add_model_args, model_options, set_threads
from sparring.cli.overrides import env_overrides
import sparring.cli.values as values
from sparring.cli.values import count


def cmd_judge(args, extra) -> int:
    """Judge the --brain players: a round robin in a two-seat env, focal among background characters in town."""
    from sparring.evaluate.judge import judge
    from sparring.evaluate.judge_tables import format_judge
    from sparring.kit.atomic import atomic_file
    from sparring.kit.files import check_output
    from sparring.kit.progress import Progress
    from sparring.lm.decisions import Meter

    if args.out:
        check_output(args.out, "--out", overwrite=args.force)
    if args.emergence:
        check_folder(args.emergence)
    set_threads(args)
    meter = Meter()
    with Progress(f"judge {args.env}") as progress:
        progress.watch(meter.figures)
        report = judge(
            args.env,
            args.brain or [],
            args.background,
            args.episodes,
            focal=args.focal,
            seed=args.seed,
            num_envs=args.num_envs,
            greedy=args.greedy,
            model_options=model_options(args),
            env_overrides=env_overrides(extra),
            progress=progress,
            emergence=bool(args.emergence),
        )
        if args.emergence:
            from sparring.kit import registry

            progress.status("drawing the emergence plots")
            report["plots"] = registry.get(args.env).emergence_plots(report, args.emergence)
    model = meter.report()
    if model:
        report["model"] = model
    if args.out:
        with atomic_file(args.out) as fh:
            json.dump(report, fh, indent=1)
    print(json.dumps(report, indent=1) if args.json else format_judge(report))
    if model and not args.json:
        print(meter.summary())
    if args.out and not args.json:
        print(f"report: {args.out}")
    if args.emergence and not args.json:
        print(f"plots: {', '.join(report['plots'])}")
    return 0


def check_folder(folder: str) -> None:
    """``--emergence DIR`` is a folder or can be made one: not an existing file."""
    import os

    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ValueError(f"--emergence {folder!r} is a file; give a folder for the plots (made if missing)")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``judge``."""
    p = sub.add_parser(
        "judge",
        help="brains against brains they did not train with: cross-play and ratings (--env.KEY VALUE overrides)",
    )
    p.add_argument("env")
    p.add_argument(
        "--brain",
        action="append",
        metavar="SPEC",
        help="a brain to judge (repeat): random, scripted:NAME, scripted:NAME:NOISE (a random legal action with "
        "probability NOISE), checkpoint:RUN, and for envs with a text face local:DIR, local:FILE.gguf, smollm2 (a "
        "local model; smollm2 after `make smollm2`) or openai:URL:MODEL; `sparring list` names the env's scripted "
        "players",
    )
    p.add_argument(
        "--background",
        action="append",
        metavar="SPEC",
        help="town: a background brain (repeat, any --brain spec) the --brain play among; default: the --brain "
        "themselves",
    )
    p.add_argument("--episodes", type=count(1), default=200, help="games per pair of brains (town: towns per pairing)")
    p.add_argument("--focal", type=count(1), help="town: characters the focal brain plays (default: half)")
    p.add_argument("--seed", type=values.seed(), default=12345)
    p.add_argument("--num-envs", type=count(1), default=256, help="envs played at once")
    p.add_argument("--greedy", action="store_true", help="checkpoints take their most likely actions")
    add_model_args(p)
    p.add_argument(
        "--emergence",
        metavar="DIR",
        type=values.output_folder("folder for the emergence plots"),
        help="town: also measure emergence (work, division of labour, trade network, prices, goal rate per "
        "character), print it and write its PNG plots into DIR, a new or empty folder (e.g. RUN/emergence)",
    )
    p.add_argument(
        "--out", metavar="FILE", type=values.output("JSON report file"), help="also write the report as JSON to FILE"
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite an existing --out, and the plots in a --emergence folder"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of tables")
    p.set_defaults(fn=cmd_judge)
