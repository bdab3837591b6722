"""``sparring list``, ``new``, ``check`` and ``bench`` (with ``--compare``): the env author's commands."""

from __future__ import annotations

import argparse
import json

from sparring.cli.overrides import env_overrides
from sparring.cli.values import count, number, output_folder, seed, text, threads
from sparring.kit import registry
from sparring.scaffold.listing import format_summary, summaries


def cmd_list(args, extra) -> int:
    """Print every registered env: agents, observation, action heads, phases, scripted opponents, source."""
    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring list [--json]")
    infos = summaries(registry.names())
    print(json.dumps(infos, indent=1) if args.json else "\n".join(format_summary(info) for info in infos))
    return 0


def cmd_new(args, extra) -> int:
    """Write a template env that passes ``sparring check`` and trains as it is."""
    from sparring.scaffold.new import new_env

    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring new NAME [--agents K] [--dir DIR]")
    made = new_env(args.name, agents=args.agents, where=args.dir, standalone=args.standalone)
    kind = "built-in env in this checkout" if made.mode == "repo" else "standalone package (entry point sparring.envs)"
    print(f"created {made.name!r} as a {kind}:")
    print("\n".join(f"  {path}" for path in made.files))
    print("next:\n" + "\n".join(f"  {step}" for step in made.next_steps))
    return 0


def cmd_check(args, extra) -> int:
    """Run the env doctor; exit 1 if any check failed."""
    from sparring.kit.check import check

    report = check(args.env, steps=args.steps, seed=args.seed, **env_overrides(extra))
    print(json.dumps([f.__dict__ for f in report.findings], indent=1) if args.json else report.text())
    return 0 if report.ok else 1


def cmd_bench(args, extra) -> int:
    """Measure an env's throughput (at --threads), snapshot cost, allocations and compile times (or compare two setups
    with --compare)."""
    if args.compare:
        if args.threads != 1:
            raise ValueError("--threads applies to the plain bench, not to --compare (whose setups are KEY=VALUE,...)")
        if extra:
            raise ValueError(f"with --compare, put env keys inside the setups (e.g. size=15,num_envs=256), not {extra}")
        from sparring.kit.progress import Progress
        from sparring.sweep.compare import compare, format_compare

        with Progress(f"bench {args.env} --compare") as progress:
            result = compare(
                args.env,
                args.compare[0],
                args.compare[1],
                repeats=args.repeats,
                seconds=args.seconds,
                progress=progress,
            )
        print(json.dumps(result, indent=1) if args.json else format_compare(result))
        return 0
    from sparring.kit.bench import bench, format_bench
    from sparring.kit.progress import Progress

    sizes = args.sizes
    with Progress(f"bench {args.env}") as progress:
        result = bench(
            args.env,
            sizes=sizes,
            repeats=args.repeats,
            seconds=args.seconds,
            compile_times=not args.no_compile,
            progress=progress,
            num_threads=args.threads,
            **env_overrides(extra),
        )
    print(json.dumps(result, indent=1) if args.json else format_bench(result))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``list``, ``new``, ``check`` and ``bench``."""
    p = sub.add_parser("list", help="registered envs: agents, obs size, action heads, phases, scripted opponents")
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser(
        "new", help="write a template env that passes `sparring check` and trains out of the box", arguments=_add_new
    )
    p.set_defaults(fn=cmd_new)
    p = sub.add_parser("check", help="the env doctor: determinism, snapshots, masks, bounds, allocations, reward audit")
    p.add_argument("env")
    p.add_argument("--steps", type=count(1, 10**6), default=2000, help="random-policy steps per check")
    p.add_argument("--seed", type=seed(), default=0)
    p.add_argument("--json", action="store_true", help="findings as JSON")
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("bench", help="agent-steps/s, snapshot cost, allocations per env-step, compile time")
    p.add_argument("env")
    p.add_argument("--sizes", type=_sizes, default="1,64,1024,4096", help="comma-separated num_envs values")
    p.add_argument("--repeats", type=count(1, 1000), default=5)
    p.add_argument("--seconds", type=number(0, 3600, above=True), default=0.3, help="seconds per repeat")
    p.add_argument("--threads", type=threads(), default=1, help="threads that step the batch (BatchedEnv num_threads)")
    p.add_argument("--no-compile", action="store_true", help="skip the cold/warm start measurement")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        type=text("a setup KEY=VALUE,..."),
        help="interleaved throughput of two setups with a significance verdict; a setup is KEY=VALUE,... "
        "of num_envs, threads (stepping the batch) and env keys, e.g. threads=1 threads=2 (uses --repeats turns "
        "of --seconds each)",
    )
    p.set_defaults(fn=cmd_bench)


SIZES_MAX = 1 << 20
"""Largest batch a bench measures."""


def _sizes(text_value: str) -> tuple[int, ...]:
    """``--sizes``: comma-separated batch sizes, each 1 to ``SIZES_MAX``."""
    parse = count(1, SIZES_MAX)
    try:
        sizes = tuple(parse(part) for part in text_value.split(","))
    except argparse.ArgumentTypeError:
        sizes = ()
    if not sizes:
        raise argparse.ArgumentTypeError(
            f"must be comma-separated batch sizes, each an integer in [1, {SIZES_MAX}] (e.g. 1,64,1024), "
            f"got {text_value!r}"
        )
    return sizes


_sizes.kind = "text"


def _add_new(p: argparse.ArgumentParser) -> None:
    """The arguments of ``new``, added when it is parsed (the template module is not needed for the others)."""
    from sparring.scaffold.new import MAX_AGENTS

    p.add_argument("name", help="env name: lowercase letters, digits, underscores")
    p.add_argument("--agents", type=count(1, MAX_AGENTS), default=1, help=f"agents per env, 1 to {MAX_AGENTS}")
    p.add_argument(
        "--dir",
        type=output_folder("folder to write the env in", exists_ok=True),
        help="where to write (default: the current folder); inside a sparring checkout the env "
        "goes to src/sparring/envs/NAME, elsewhere to a package folder DIR/NAME",
    )
    p.add_argument("--standalone", action="store_true", help="a package folder even inside a sparring checkout")
