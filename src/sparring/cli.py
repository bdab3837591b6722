"""The ``sparring`` command: parses arguments, then calls the library. Nothing imports this module."""

from __future__ import annotations

import argparse
import json
import sys

from sparring.explore.cli import add_commands as explore_commands
from sparring.kit import registry
from sparring.lm.cli import add_commands as lm_commands
from sparring.lm.town_cli import add_commands as town_lm_commands, add_play_args, cmd_play_brains
from sparring.scaffold.cli import add_commands as scaffold_commands
from sparring.sweep.cli import add_commands as sweep_commands, cmd_bench_compare


def _split_overrides(extra: list[str]) -> dict[str, dict[str, str]]:
    """``--env.size 15 --train.lr=3e-4`` -> {"env": {"size": "15"}, "train": {"lr": "3e-4"}}."""
    out: dict[str, dict[str, str]] = {}
    i = 0
    while i < len(extra):
        arg = extra[i]
        if not arg.startswith("--") or "." not in arg:
            raise SystemExit(f"sparring: unexpected argument {arg!r}; overrides look like --env.KEY VALUE")
        key, eq, value = arg[2:].partition("=")
        if not eq:
            if i + 1 >= len(extra):
                raise SystemExit(f"sparring: {arg} needs a value")
            value = extra[i + 1]
            i += 1
        section, _, name = key.partition(".")
        out.setdefault(section, {})[name] = value
        i += 1
    return out


def _env_overrides(extra: list[str]) -> dict[str, str]:
    groups = _split_overrides(extra)
    unknown = sorted(set(groups) - {"env"})
    if unknown:
        raise SystemExit(f"sparring: unknown override group(s) {unknown}; this command takes --env.KEY VALUE")
    return groups.get("env", {})


def cmd_check(args, extra) -> int:
    """Run the env doctor; exit 1 if any check failed."""
    from sparring.kit.check import check

    report = check(args.env, steps=args.steps, seed=args.seed, **_env_overrides(extra))
    print(json.dumps([f.__dict__ for f in report.findings], indent=1) if args.json else report.text())
    return 0 if report.ok else 1


def cmd_bench(args, extra) -> int:
    """Measure an env's throughput, snapshot cost and compile times."""
    from sparring.kit.bench import bench, format_bench

    if args.compare:
        if extra:
            raise ValueError(f"with --compare, put env keys inside the setups (e.g. size=15,num_envs=256), not {extra}")
        return cmd_bench_compare(args)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    result = bench(args.env, sizes=sizes, repeats=args.repeats, seconds=args.seconds,
                   compile_times=not args.no_compile, **_env_overrides(extra))
    print(json.dumps(result, indent=1) if args.json else format_bench(result))
    return 0


def _groups(extra: list[str], allowed: set[str]) -> dict[str, dict[str, str]]:
    groups = _split_overrides(extra)
    unknown = sorted(set(groups) - allowed)
    if unknown:
        raise SystemExit(f"sparring: unknown override group(s) {unknown}; valid: {sorted(allowed)}")
    return groups


def cmd_train(args, extra) -> int:
    """Train PPO on an env (or resume a run); prints the run folder."""
    from sparring.train.run import train

    groups = _groups(extra, {"env", "train"})
    budget = groups.get("train", {})
    if args.minutes is not None:
        budget["minutes"] = args.minutes
    if args.steps is not None:
        budget["steps"] = args.steps
    if args.ray_address is not None:
        budget.update(vec="ray", ray_address=args.ray_address)
    if args.archive is not None:
        budget["archive_fraction"] = args.archive
    if args.env is None and args.resume is None:
        raise SystemExit("sparring train: give an env name, or --resume RUN")
    train(args.env, budget, groups.get("env", {}), args.opponent, resume=args.resume, runs_dir=args.runs)
    return 0


def cmd_eval(args, extra) -> int:
    """Evaluate a checkpoint or a scripted policy: win/loss/draw with Wilson intervals, phases, episode means,
    failure analysis, and the rate of a yes/no metric (``--metric``)."""
    from sparring.evaluate.episodes import format_metric, format_report
    from sparring.evaluate.failures import format_failures
    from sparring.evaluate.play import evaluate_checkpoint, evaluate_scripted
    from sparring.evaluate.scripted import parse_policy

    if (args.checkpoint is None) == (args.policy is None):
        raise ValueError("sparring eval: give exactly one of --checkpoint RUN and --policy scripted:NAME")
    env_overrides = _groups(extra, {"env"}).get("env", {})
    try:
        if args.policy is not None:
            report = evaluate_scripted(args.env, parse_policy(args.policy), args.opponent, args.episodes,
                                       seed=args.seed, env_overrides=env_overrides, record=args.record,
                                       worst=args.worst, window=args.window, metric=args.metric)
        else:
            report = evaluate_checkpoint(args.env, args.checkpoint, args.opponent, args.episodes, seed=args.seed,
                                         greedy=args.greedy, env_overrides=env_overrides, record=args.record,
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
          env_overrides=_groups(extra, {"env"}).get("env", {}))
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
    config.update(_env_overrides(extra))
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

    _env_overrides(extra)  # nothing to override here; unknown arguments are errors
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

    _env_overrides(extra)  # the env and its config come from the recording
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
        return cmd_play_brains(args, _env_overrides(extra))
    package = registry.get(args.env).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.play")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.play":
            raise
        raise LookupError(f"env {args.env!r} has no terminal play (no play.py beside it); try: sparring play duel") \
            from None
    module.play(sys.stdin, sys.stdout, seed=args.seed, **_env_overrides(extra))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="sparring", description="Fast, honest game environments and agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    scaffold_commands(sub)  # list, new
    lm_commands(sub)  # serve, build-lm
    town_lm_commands(sub, _env_overrides)  # distill, grpo
    p = sub.add_parser("check", help="the env doctor: determinism, snapshots, masks, bounds, reward audit")
    p.add_argument("env")
    p.add_argument("--steps", type=int, default=2000, help="random-policy steps per check")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="findings as JSON")
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("bench", help="agent-steps/s, snapshot cost, compile time")
    p.add_argument("env")
    p.add_argument("--sizes", default="1,64,1024,4096", help="comma-separated num_envs values")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seconds", type=float, default=0.3, help="seconds per repeat")
    p.add_argument("--no-compile", action="store_true", help="skip the cold/warm start measurement")
    p.add_argument("--json", action="store_true")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="interleaved throughput of two setups with a significance verdict; a setup is KEY=VALUE,... "
                        "of num_envs, vec (inprocess|multiprocess|ray), workers and env keys, e.g. vec=inprocess "
                        "vec=ray,workers=2 (uses --repeats turns of --seconds each)")
    p.set_defaults(fn=cmd_bench)
    p = sub.add_parser("train", help="PPO with a live dashboard, checkpoints, plots (--train.KEY VALUE overrides)")
    p.add_argument("env", nargs="?", help="env name (optional with --resume)")
    p.add_argument("--minutes", type=float, help="training budget in minutes")
    p.add_argument("--steps", type=int, help="training budget in learner agent-steps")
    p.add_argument("--opponent", help="the env's opponent knob value, one of its scripted policies, or 'self'")
    p.add_argument("--resume", metavar="RUN", help="continue a run folder (or checkpoint) where it stopped")
    p.add_argument("--runs", default="runs", help="folder for new run folders")
    p.add_argument("--ray-address", help="step the envs on this Ray cluster (same as --train.vec ray "
                                         "--train.ray_address ADDR)")
    p.add_argument("--archive", type=float, nargs="?", const=0.25, metavar="F",
                   help="Go-Explore: restart a fraction F (default 0.25) of ended episodes from archive cells "
                        "(same as --train.archive_fraction F)")
    p.set_defaults(fn=cmd_train)
    sweep_commands(sub, _groups)  # sweep, ablate
    explore_commands(sub, _groups)  # explore
    for name, fn, text in (("eval", cmd_eval, "win/loss/draw of a checkpoint with 95%% Wilson intervals"),
                           ("watch", cmd_watch, "play a checkpoint live in the terminal")):
        p = sub.add_parser(name, help=text)
        p.add_argument("env")
        p.add_argument("--checkpoint", required=name == "watch", help="a run folder or a checkpoints/step-N folder")
        p.add_argument("--opponent", help="default: the one the checkpoint trained against")
        p.add_argument("--episodes", type=int, default=1000 if name == "eval" else 3)
        p.add_argument("--seed", type=int, default=12345 if name == "eval" else 0)
        p.add_argument("--greedy", action="store_true", help="most likely action instead of sampling")
        if name == "eval":
            p.add_argument("--json", action="store_true")
            p.add_argument("--policy", metavar="scripted:NAME", help="evaluate the env's scripted policy NAME as the "
                                                                    "player instead of a --checkpoint")
            p.add_argument("--metric", metavar="NAME", help="also report the rate of this yes/no env metric per "
                                                           "learner seat with its 95%% Wilson interval "
                                                           "(town: goal_rate)")
            p.add_argument("--record", metavar="FILE", help="keep the evaluated episodes as a .parquet recording")
            p.add_argument("--worst", type=int, default=0, metavar="K",
                           help="write HTML replays of the K lowest-return episodes next to --record (else into "
                                "the run folder)")
            p.add_argument("--window", type=int, default=20,
                           help="ticks after a phase began within which a loss counts as following it")
        else:
            p.add_argument("--fps", type=float, default=8.0)
        p.set_defaults(fn=fn)
    p = sub.add_parser("record", help="record episodes to Parquet (--env.KEY VALUE overrides)")
    p.add_argument("env")
    _policy_args(p)
    p.add_argument("--episodes", type=int, default=10)
    p.add_argument("--out", required=True, help="the .parquet file to write")
    p.add_argument("--num-envs", type=int, default=1, help="envs played at once (more is faster, but the first "
                                                            "episodes to finish are the shorter ones)")
    p.add_argument("--group-rows", type=int, default=4096, help="rows per crash-safe row group")
    p.set_defaults(fn=cmd_record)
    p = sub.add_parser("replay", help="replay a recorded episode in the terminal, or as GIF, MP4 or HTML")
    p.add_argument("file")
    p.add_argument("--episode", type=int, default=0)
    p.add_argument("--gif", metavar="OUT")
    p.add_argument("--mp4", metavar="OUT")
    p.add_argument("--html", metavar="OUT", help="one self-contained page: timeline, per-tick panel, chart")
    p.add_argument("--fps", type=float, default=8.0)
    p.add_argument("--print", action="store_true", help="print every tick instead of the interactive replay")
    p.set_defaults(fn=cmd_replay)
    p = sub.add_parser("fork", help="restore a recorded tick and play on with another policy or seed")
    p.add_argument("file")
    p.add_argument("--episode", type=int, required=True)
    p.add_argument("--tick", type=int, required=True)
    _policy_args(p)
    p.add_argument("--episodes", type=int, default=1, help="continuations to record")
    p.add_argument("--reseed", type=int, help="also reseed the env's own generator (new dice) per continuation")
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_fork)
    p = sub.add_parser("play", help="play seat 0 from the terminal, one tick per line (--env.KEY VALUE overrides)")
    p.add_argument("env")
    p.add_argument("--seed", type=int, default=0)
    add_play_args(p)  # --brain, --episodes, --record
    p.set_defaults(fn=cmd_play)
    return parser


def _policy_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--policy", help="random, or scripted:NAME (one of the env's scripted policies)")
    p.add_argument("--checkpoint", help="a run folder or checkpoint folder of `sparring train`")
    p.add_argument("--greedy", action="store_true", help="with --checkpoint: most likely actions, no sampling")
    p.add_argument("--seed", type=int, default=0)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sparring`` console script."""
    args, extra = build_parser().parse_known_args(argv)
    try:
        return args.fn(args, extra)
    except (LookupError, ValueError) as exc:
        print(f"sparring: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
