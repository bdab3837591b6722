"""``sparring record``, ``replay`` and ``fork``: episodes to Parquet, played back, and continued from a tick."""

from __future__ import annotations

import argparse
import os

from sparring.cli.overrides import env_overrides
from sparring.cli.seats import add_seat_args
from sparring.cli.values import COUNT_MAX, count, input_file, input_path, number, output, seed, text
from sparring.kit import registry
from sparring.kit.files import check_output


def cmd_record(args, extra) -> int:
    """Record episodes of an env played by a policy to a Parquet file."""
    from sparring.kit.progress import Progress

    spec, explicit, opponent = _policy_spec(args), env_overrides(extra), args.opponent
    check_output(args.out, "--out", overwrite=args.force)
    if args.force and os.path.lexists(args.out):
        os.remove(args.out)  # the recorder refuses to write over a file: --force asked for it
    with Progress(f"record {args.env}") as progress:
        progress.status("building the envs and the players (compiling the env's kernels on a first run)")
        n, name = _record(args, spec, explicit, opponent, progress)
    print(f"recorded {n} episodes of {args.env} ({name}) to {args.out} ({os.path.getsize(args.out)} bytes)")
    return 0


def _record(args, spec: str, explicit: dict, opponent: str | None, progress) -> tuple[int, str]:
    """Seat the players and record: (episodes recorded, who played)."""
    from sparring.players import make_player
    from sparring.players.load import read_meta
    from sparring.players.opponents import SELF_PLAY, Seating, parse_seats, resolve_seats, seat_players
    from sparring.record import record_episodes

    env_cls = registry.get(args.env)
    config = {}
    if args.checkpoint:  # by default the env and opponent it trained with, as in eval
        meta = read_meta(args.checkpoint)
        config = dict(meta["env_config"]) if meta["env"] == args.env else {}
        opponent = opponent if opponent is not None or args.seat else meta.get("opponent")
    config, other, assigned = resolve_seats(env_cls, parse_seats(args.seat), opponent, {**config, **explicit}, explicit)
    env = registry.make(args.env, num_envs=args.num_envs, seed=args.seed, **config)
    player = make_player(spec, env, args.seed, args.greedy)
    mirror = make_player(spec, env, args.seed) if other == SELF_PLAY else None
    policy = Seating(env, seat_players(env, player, other, mirror, assigned, args.seed))
    progress.status(f"recording to {args.out}")
    try:
        n = record_episodes(env, policy, args.episodes, args.out, progress=progress, group_rows=args.group_rows)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    return n, policy.name


def cmd_replay(args, extra) -> int:
    """Replay a recorded episode: in the terminal, or as --gif/--mp4/--html files."""
    from sparring.record import Recording, print_episode, replay_terminal, write_gif, write_html, write_mp4

    env_overrides(extra)  # nothing to override here; unknown arguments are errors
    for flag in ("html", "gif", "mp4"):
        if getattr(args, flag):
            check_output(getattr(args, flag), f"--{flag}", overwrite=args.force)
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
    from sparring.players.opponents import parse_seats
    from sparring.record import fork

    env_overrides(extra)  # the env and its config come from the recording
    check_output(args.out, "--out", overwrite=args.force)
    if _same_file(args.file, args.out):
        raise ValueError(f"--out {args.out!r} is the recording being forked ({args.file!r}); give another path")
    if args.force and os.path.lexists(args.out):
        os.remove(args.out)  # the recorder refuses to write over a file: --force asked for it
    try:
        n = fork(
            args.file,
            args.episode,
            args.tick,
            _policy_spec(args),
            args.out,
            episodes=args.episodes,
            seed=args.seed,
            reseed=args.reseed,
            greedy=args.greedy,
            seats=parse_seats(args.seat),
        )
    except (FileNotFoundError, FileExistsError) as exc:
        raise ValueError(str(exc)) from None
    print(
        f"forked episode {args.episode} of {args.file} at tick {args.tick}: {n} continuation(s) written to {args.out}"
    )
    return 0


def _same_file(a: str, b: str) -> bool:
    """Whether the paths ``a`` and ``b`` name one file (or one recording and its unclosed parts)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _policy_spec(args) -> str:
    """The policy of ``record``/``fork`` as a make_player spec: --checkpoint C, or --policy random|scripted:NAME."""
    if (args.checkpoint is None) == (args.policy is None):
        raise ValueError("give exactly one of --policy (random, scripted:NAME) and --checkpoint C")
    return f"checkpoint:{args.checkpoint}" if args.checkpoint else args.policy


EPISODES_MAX = 10**7
FPS_MAX = 1000.0
RECORDING = input_file("recording (.parquet)", alternatives=(".parts",))


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``record``, ``replay`` and ``fork``."""
    _add_record(sub.add_parser("record", help="record episodes to Parquet (--env.KEY VALUE overrides)"))
    _add_replay(sub.add_parser("replay", help="replay a recorded episode in the terminal, or as GIF, MP4 or HTML"))
    _add_fork(sub.add_parser("fork", help="restore a recorded tick and play on with another policy or seed"))


def _add_record(p: argparse.ArgumentParser) -> None:
    p.add_argument("env")
    _policy_args(p, opponent="default: with --checkpoint, the one it trained against; else the env's")
    p.add_argument("--episodes", type=count(1, EPISODES_MAX), default=10)
    p.add_argument("--out", required=True, type=output(".parquet file to write"), help="the .parquet file to write")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument(
        "--num-envs",
        type=count(1),
        default=1,
        help="envs played at once (more is faster, but the first episodes to finish are the shorter ones)",
    )
    p.add_argument("--group-rows", type=count(1, COUNT_MAX), default=4096, help="rows per crash-safe row group")
    p.set_defaults(fn=cmd_record)


def _add_replay(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=RECORDING, help="a recording (.parquet) of `sparring record`")
    p.add_argument("--episode", type=count(0), default=0)
    p.add_argument("--gif", metavar="OUT", type=output("GIF file to write"))
    p.add_argument("--mp4", metavar="OUT", type=output("MP4 file to write"))
    p.add_argument(
        "--html",
        metavar="OUT",
        type=output("HTML file to write"),
        help="one self-contained page: timeline, per-tick panel, chart",
    )
    p.add_argument("--force", action="store_true", help="overwrite the --gif/--mp4/--html files if they exist")
    p.add_argument("--fps", type=number(0, FPS_MAX, above=True), default=8.0)
    p.add_argument("--print", action="store_true", help="print every tick instead of the interactive replay")
    p.set_defaults(fn=cmd_replay)


def _add_fork(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=RECORDING, help="a recording (.parquet) of `sparring record`")
    p.add_argument("--episode", type=count(0), required=True)
    p.add_argument("--tick", type=count(0), required=True)
    _policy_args(p)
    p.add_argument("--episodes", type=count(1, EPISODES_MAX), default=1, help="continuations to record")
    p.add_argument("--reseed", type=seed(), help="also reseed the env's own generator (new dice) per continuation")
    p.add_argument("--out", required=True, type=output(".parquet file to write"))
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists (never the recording forked)")
    p.set_defaults(fn=cmd_fork)


def _policy_args(p: argparse.ArgumentParser, opponent: str | None = None) -> None:
    """Who plays in ``record`` and ``fork``: --policy or --checkpoint (--greedy), the seed, and for ``record`` who
    plays the other seats (``opponent``: the help of --opponent)."""
    p.add_argument(
        "--policy",
        type=text("a policy: random or scripted:NAME"),
        help="random, or scripted:NAME (one of the env's scripted policies)",
    )
    p.add_argument(
        "--checkpoint",
        type=input_path("run folder or checkpoint folder"),
        help="a run folder or checkpoint folder of `sparring train`",
    )
    p.add_argument("--greedy", action="store_true", help="with --checkpoint: most likely actions, no sampling")
    add_seat_args(p, seed=0, opponent=opponent)
