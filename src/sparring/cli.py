"""The ``sparring`` command: parses arguments, then calls the library. Nothing imports this module."""

from __future__ import annotations

import argparse
import json
import sys

from sparring.kit import registry
from sparring.kit.config import make_config


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


def cmd_list(args, extra) -> int:
    """Print every registered env with its shape."""
    for name in registry.names():
        cls = registry.get(name)
        obs = cls.obs_spec(make_config(cls))
        heads = ", ".join(f"{n}={s}" for n, s in zip(cls.actions.names, cls.actions.sizes))
        print(f"{name}: agents={cls.num_agents} obs={obs.size}x{obs.dtype} heads=[{heads}] "
              f"phases={list(cls.phases)} scripted={sorted(cls.scripted)}")
    return 0


def cmd_check(args, extra) -> int:
    """Run the env doctor; exit 1 if any check failed."""
    from sparring.kit.check import check

    report = check(args.env, steps=args.steps, seed=args.seed, **_env_overrides(extra))
    print(json.dumps([f.__dict__ for f in report.findings], indent=1) if args.json else report.text())
    return 0 if report.ok else 1


def cmd_bench(args, extra) -> int:
    """Measure an env's throughput, snapshot cost and compile times."""
    from sparring.kit.bench import bench, format_bench

    sizes = tuple(int(s) for s in args.sizes.split(","))
    result = bench(args.env, sizes=sizes, repeats=args.repeats, seconds=args.seconds,
                   compile_times=not args.no_compile, **_env_overrides(extra))
    print(json.dumps(result, indent=1) if args.json else format_bench(result))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="sparring", description="Fast, honest game environments and agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="registered envs").set_defaults(fn=cmd_list)
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
    p.set_defaults(fn=cmd_bench)
    return parser


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
