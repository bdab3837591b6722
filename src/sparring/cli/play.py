"""``sparring eval``, ``watch`` and ``play``: a checkpoint or a scripted policy judged, watched, or played against."""

from __future__ import annotations

import argparse
import functools
import json
import sys

from sparring.cli.lm import add_brain_args, play_brains
from sparring.cli.overrides import env_overrides, override_groups
from sparring.cli.seats import add_seat_args
import sparring.cli.values as values
from sparring.cli.values import count, number
from sparring.kit import registry


def cmd_eval(args, extra) -> int:
    """Evaluate a checkpoint or a scripted policy: win/loss/draw with Wilson intervals, phases, episode means,
    failure analysis, and the rate of a yes/no metric (``--metric``)."""
    from sparring.evaluate.episodes import format_metric, format_report
    from sparring.evaluate.failures import format_failures
    from sparring.evaluate.outputs import output_folder
    from sparring.kit.files import check_output
    from sparring.kit.progress import Progress
    from sparring.players.opponents import parse_seats

    seats = parse_seats(args.seat)
    if (args.checkpoint is None) == (args.policy is None):
        raise ValueError("sparring eval: give exactly one of --checkpoint RUN and --policy scripted:NAME")
    config = override_groups(extra, {"env"}).get("env", {})
    if args.record:
        check_output(args.record, "--record", overwrite=args.force)
    elif args.checkpoint:  # the failure chart (and --worst replays) go into the run folder
        check_output(output_folder(args.checkpoint, None), "--checkpoint", folder=True)
    try:
        with Progress(f"eval {args.env}") as progress:
            report = _evaluate(args, config, seats, progress)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(format_report(args.env, report))
    if "metric" in report:
        print(format_metric(report["metric"]))
    print(
        f"failures (losses by final phase and by the last phase transition before the loss):\n"
        f"{format_failures(report['failures'])}"
    )
    written = (
        ([f"recording: {report['record']}"] if "record" in report else [])
        + [f"worst replay: {p}" for p in report.get("worst", [])]
        + ([f"chart: {report['chart']}"] if "chart" in report else [])
    )
    print("\n".join(written))
    return 0


def _evaluate(args, config: dict, seats: dict, progress) -> dict:
    """The report of ``sparring eval``: of the --policy, or of the --checkpoint (with its failure chart)."""
    from sparring.evaluate.play import evaluate_checkpoint, evaluate_scripted

    shared = dict(
        seed=args.seed,
        env_overrides=config,
        record=args.record,
        worst=args.worst,
        window=args.window,
        metric=args.metric,
        seats=seats,
        progress=progress,
    )
    if args.policy is not None:
        return evaluate_scripted(args.env, args.policy, args.opponent, args.episodes, **shared)
    return evaluate_checkpoint(
        args.env, args.checkpoint, args.opponent, args.episodes, greedy=args.greedy, chart=True, **shared
    )


def cmd_watch(args, extra) -> int:
    """Replay a checkpoint's play live in the terminal."""
    from sparring.evaluate.play import watch
    from sparring.players.opponents import parse_seats

    watch(
        args.env,
        args.checkpoint,
        args.opponent,
        args.episodes,
        fps=args.fps,
        seed=args.seed,
        greedy=args.greedy,
        env_overrides=override_groups(extra, {"env"}).get("env", {}),
        seats=parse_seats(args.seat),
    )
    return 0


def cmd_play(args, extra) -> int:
    """Play seat 0 of an env from the terminal, for envs that ship a ``play`` module (e.g. duel); with --brain, a
    town where every character has a brain."""
    import importlib

    if args.brain:
        if args.seat:
            raise ValueError("--brain gives every character a brain; it takes no --seat")
        return play_brains(args, env_overrides(extra))
    package = registry.get(args.env).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.play")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.play":
            raise
        raise LookupError(
            f"env {args.env!r} has no terminal play (no play.py beside it); try: sparring play duel"
        ) from None
    config, players = env_overrides(extra), None
    if args.seat:
        from sparring.players.opponents import parse_seats, resolve_seats

        env_cls = registry.get(args.env)
        config, _, assigned = resolve_seats(env_cls, parse_seats(args.seat), None, config)
        if 0 in assigned:
            raise ValueError(f"you play seat {env_cls.seats[0]!r}; --seat names the others {list(env_cls.seats[1:])}")
        players = functools.partial(_seat_players, assigned=assigned, seed=args.seed)
    module.play(sys.stdin, sys.stdout, seed=args.seed, players=players, **config)
    return 0


def _seat_players(env, assigned: dict, seed: int) -> dict:
    """``{seat: player}`` of the seats ``--seat`` names, for an env's terminal play."""
    from sparring.players import make_player

    return {seat: make_player(spec, env, seed) for seat, spec in assigned.items()}


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``eval``, ``watch`` and ``play``."""
    _add_eval(sub.add_parser("eval", help="win/loss/draw of a checkpoint with 95%% Wilson intervals"))
    _add_watch(sub.add_parser("watch", help="play a checkpoint live in the terminal"))
    _add_play(
        sub.add_parser(
            "play",
            help="play seat 0 from the terminal, a key at a time (a line per tick from a pipe; --env.KEY VALUE)",
        )
    )


def _add_eval(p: argparse.ArgumentParser) -> None:
    p.add_argument("env")
    # untyped (text): the loader checks the run, after the other flags (a missing run is named by it)
    p.add_argument("--checkpoint", help="a run folder or a checkpoints/step-N folder")
    add_seat_args(p, seed=12345, opponent="default: the one the checkpoint trained against")
    p.add_argument("--episodes", type=count(1), default=1000)
    p.add_argument("--greedy", action="store_true", help="most likely action instead of sampling")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--policy",
        metavar="scripted:NAME",
        help="evaluate the env's scripted policy NAME as the player instead of a --checkpoint",
    )
    p.add_argument(
        "--metric",
        metavar="NAME",
        help="also report the rate of this yes/no env metric per "
        "learner seat with its 95%% Wilson interval (town: goal_rate)",
    )
    p.add_argument(
        "--record",
        metavar="FILE",
        type=values.output(".parquet recording"),
        help="keep the evaluated episodes as a .parquet recording",
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing --record")
    p.add_argument(
        "--worst",
        type=count(0),
        default=0,
        metavar="K",
        help="write HTML replays of the K lowest-return episodes next to --record (else into the run folder)",
    )
    p.add_argument(
        "--window",
        type=count(1),
        default=20,
        help="ticks after a phase began within which a loss counts as following it",
    )
    p.set_defaults(fn=cmd_eval)


def _add_watch(p: argparse.ArgumentParser) -> None:
    p.add_argument("env")
    p.add_argument("--checkpoint", required=True, help="a run folder or a checkpoints/step-N folder")
    add_seat_args(p, seed=0, opponent="default: the one the checkpoint trained against")
    p.add_argument("--episodes", type=count(1), default=3)
    p.add_argument("--greedy", action="store_true", help="most likely action instead of sampling")
    p.add_argument("--fps", type=number(0, above=True), default=8.0)
    p.set_defaults(fn=cmd_watch)


def _add_play(p: argparse.ArgumentParser) -> None:
    p.add_argument("env")
    add_seat_args(p, seed=0)  # you play seat 0; --seat puts players in the others
    add_brain_args(p)  # --brain, --episodes, --record
    p.set_defaults(fn=cmd_play)
