"""``sparring eval``, ``watch``, ``record``, ``replay``, ``fork`` and ``play``: playing, recording and replaying."""

from __future__ import annotations

import argparse
import json
import sys

from sparring.cli.lm import add_brain_args, play_brains
from sparring.cli.overrides import env_overrides, override_groups
from sparring.cli.seats import add_seat_args
from sparring.kit import registry


def cmd_eval(args, extra) -> int:
    """Evaluate a checkpoint or a scripted policy: win/loss/draw with Wilson intervals, phases, episode means,
    failure analysis, and the rate of a yes/no metric (``--metric``)."""
    from sparring.evaluate.episodes import format_metric, format_report
    from sparring.evaluate.failures import format_failures
    from sparring.evaluate.play import evaluate_checkpoint, evaluate_scripted
    from sparring.evaluate.scripted import parse_policy

    if (args.checkpoint is None) == (args.policy is None):
        raise ValueError("sparring eval: give exactly one of --checkpoint RUN and --policy scripted:NAME")
    config = override_groups(extra, {"env"}).get("env", {})
    try:
        if args.policy is not None:
            report = evaluate_scripted(args.env, parse_policy(args.policy), args.opponent, args.episodes,
                                       seed=args.seed, env_overrides=config, record=args.record,
                                       worst=args.worst, window=args.window, metric=args.metric)
        else:
            report = evaluate_checkpoint(args.env, args.checkpoint, args.opponent, args.episodes, seed=args.seed,
                                         greedy=args.greedy, env_overrides=config, record=args.record,
                                         worst=args.worst, window=args.window, chart=True, metric=args.metric)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(format_report(args.env, report))
    if "metric" in report:
        print(format_metric(report["metric"]))
    print(f"failures (losses by final phase and by the last phase transition before the loss):\n"
          f"{format_failures(report['failures'])}")
    written = ([f"recording: {report['record']}"] if "record" in report else []) + \
        [f"worst replay: {p}" for p in report.get("worst", [])] + \
        ([f"chart: {report['chart']}"] if "chart" in report else [])
    print("\n".join(written))
    return 0


def cmd_watch(args, extra) -> int:
    """Replay a checkpoint's play live in the terminal."""
    from sparring.evaluate.play import watch

    watch(args.env, args.checkpoint, args.opponent, args.episodes, fps=args.fps, seed=args.seed, greedy=args.greedy,
          env_overrides=override_groups(extra, {"env"}).get("env", {}))
    return 0


def _policy_spec(args) -> str:
    """The policy of ``record``/``fork`` as a make_policy spec: --checkpoint C, or --policy random|scripted:NAME."""
    if (args.checkpoint is None) == (args.policy is None):
        raise ValueError("give exactly one of --policy (random, scripted:NAME) and --checkpoint C")
    return f"checkpoint:{args.checkpoint}" if args.checkpoint else args.policy


def cmd_record(args, extra) -> int:
    """Record episodes of an env played by a policy to a Parquet file."""
    import os

    from sparring.record import make_policy, record_episodes
    from sparring.record.policy import checkpoint_env_config

    spec = _policy_spec(args)
    config = checkpoint_env_config(args.checkpoint, args.env) if args.checkpoint else {}
    config.update(env_overrides(extra))
    env = registry.make(args.env, num_envs=args.num_envs, seed=args.seed, **config)
    policy = make_policy(spec, env, args.seed, args.greedy)
    try:
        n = record_episodes(env, policy, args.episodes, args.out, group_rows=args.group_rows)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    print(f"recorded {n} episodes of {args.env} ({policy.name}) to {args.out} ({os.path.getsize(args.out)} bytes)")
    return 0


def cmd_replay(args, extra) -> int:
    """Replay a recorded episode: in the terminal, or as --gif/--mp4/--html files."""
    from sparring.record import Recording, print_episode, replay_terminal, write_gif, write_html, write_mp4

    env_overrides(extra)  # nothing to override here; unknown arguments are errors
    try:
        rec = Recording(args.file)
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    outputs = [(args.html, write_html), (args.gif, write_gif), (args.mp4, write_mp4)]
    for out, write in outputs:
        if out:
            kw = {} if write is write_html else {"fps": args.fps}
            print(f"wrote {write(rec, args.episode, out, **kw)}")
    if not any(out for out, _ in outputs):
        if args.print:
            print_episode(rec, args.episode)
        else:
            replay_terminal(rec, args.episode, fps=args.fps)
    return 0


def cmd_fork(args, extra) -> int:
    """Restore a recorded state and play on with another policy or seed, recording the continuation."""
    from sparring.record import fork

    env_overrides(extra)  # the env and its config come from the recording
    try:
        n = fork(args.file, args.episode, args.tick, _policy_spec(args), args.out, episodes=args.episodes,
                 seed=args.seed, reseed=args.reseed, greedy=args.greedy)
    except (FileNotFoundError, FileExistsError) as exc:
        raise ValueError(str(exc)) from None
    print(f"forked episode {args.episode} of {args.file} at tick {args.tick}: {n} continuation(s) written to "
          f"{args.out}")
    return 0


def cmd_play(args, extra) -> int:
    """Play seat 0 of an env from the terminal, for envs that ship a ``play`` module (e.g. duel); with --brain, a
    town where every character has a brain."""
    import importlib

    if args.brain:
        return play_brains(args, env_overrides(extra))
    package = registry.get(args.env).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.play")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.play":
            raise
        raise LookupError(f"env {args.env!r} has no terminal play (no play.py beside it); try: sparring play duel") \
            from None
    module.play(sys.stdin, sys.stdout, seed=args.seed, **env_overrides(extra))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``eval``, ``watch``, ``record``, ``replay``, ``fork`` and ``play``."""
    _add_eval(sub.add_parser("eval", help="win/loss/draw of a checkpoint with 95%% Wilson intervals"))
    _add_watch(sub.add_parser("watch", help="play a checkpoint live in the terminal"))
    _add_record(sub.add_parser("record", help="record episodes to Parquet (--env.KEY VALUE overrides)"))
    _add_replay(sub.add_parser("replay", help="replay a recorded episode in the terminal, or as GIF, MP4 or HTML"))
    _add_fork(sub.add_parser("fork", help="restore a recorded tick and play on with another policy or seed"))
    _add_play(sub.add_parser("play", help="play seat 0 from the terminal, one tick per line (--env.KEY VALUE "
                                          "overrides)"))


def _add_eval(p: argparse.ArgumentParser) -> None:
    p.add_argument("env")
    p.add_argument("--checkpoint", help="a run folder or a checkpoints/step-N folder")
    add_seat_args(p, seed=12345, opponent="default: the one the checkpoint trained against")
    p.add_argument("--episodes", type=int, default=1000)
    p.add_argument("--greedy", action="store_true", help="most likely action instead of sampling")
    p.add_argument("--json", action="store_true")
    p.add_argument("--policy", metavar="scripted:NAME", help="evaluate the env's scripted policy NAME as the "
                                                            "player instead of a --checkpoint")
    p.add_argument("--metric", metavar="NAME", help="also report the rate of this yes/no env metric per "
                                                   "learner seat with its 95%% Wilson interval (town: goal_rate)")
    p.add_argument("--record", metavar="FILE", help="keep the evaluated episodes as a .parquet recording")
    p.add_argument("--worst", type=int, default=0, metavar="K",
                   help="write HTML replays of the K lowest-return episodes next to --record (else into "
                        "the run folder)")
    p.add_argument("--window", type=int, default=20,
                   help="ticks after a phase began within which a loss counts as following it")
    p.set_defaults(fn=cmd_eval)


def _add_watch(p: argparse.ArgumentParser) -> None:
    p.add_argument("env")
    p.add_argument("--checkpoint", required=True, help="a run folder or a checkpoints/step-N folder")
    add_seat_args(p, seed=0, opponent="default: the one the checkpoint trained against")
    p.add_argument("--episodes", type=int, default=3)
    p.add_argument("--greedy", action="store_true", help="most likely action instead of sampling")
    p.add_argument("--fps", type=float, default=8.0)
    p.set_defaults(fn=cmd_watch)


def _add_record(p: argparse.ArgumentParser) -> None:
    p.add_argument("env")
    _policy_args(p)
    p.add_argument("--episodes", type=int, default=10)
    p.add_argument("--out", required=True, help="the .parquet file to write")
    p.add_argument("--num-envs", type=int, default=1, help="envs played at once (more is faster, but the first "
                                                            "episodes to finish are the shorter ones)")
    p.add_argument("--group-rows", type=int, default=4096, help="rows per crash-safe row group")
    p.set_defaults(fn=cmd_record)


def _add_replay(p: argparse.ArgumentParser) -> None:
    p.add_argument("file")
    p.add_argument("--episode", type=int, default=0)
    p.add_argument("--gif", metavar="OUT")
    p.add_argument("--mp4", metavar="OUT")
    p.add_argument("--html", metavar="OUT", help="one self-contained page: timeline, per-tick panel, chart")
    p.add_argument("--fps", type=float, default=8.0)
    p.add_argument("--print", action="store_true", help="print every tick instead of the interactive replay")
    p.set_defaults(fn=cmd_replay)


def _add_fork(p: argparse.ArgumentParser) -> None:
    p.add_argument("file")
    p.add_argument("--episode", type=int, required=True)
    p.add_argument("--tick", type=int, required=True)
    _policy_args(p)
    p.add_argument("--episodes", type=int, default=1, help="continuations to record")
    p.add_argument("--reseed", type=int, help="also reseed the env's own generator (new dice) per continuation")
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_fork)


def _add_play(p: argparse.ArgumentParser) -> None:
    p.add_argument("env")
    add_seat_args(p, seed=0)
    add_brain_args(p)  # --brain, --episodes, --record
    p.set_defaults(fn=cmd_play)


def _policy_args(p: argparse.ArgumentParser) -> None:
    """Who plays in ``record`` and ``fork``: --policy or --checkpoint (--greedy), and the seed."""
    p.add_argument("--policy", help="random, or scripted:NAME (one of the env's scripted policies)")
    p.add_argument("--checkpoint", help="a run folder or checkpoint folder of `sparring train`")
    p.add_argument("--greedy", action="store_true", help="with --checkpoint: most likely actions, no sampling")
    add_seat_args(p, seed=0)
