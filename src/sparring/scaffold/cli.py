"""The ``new`` and ``list`` subcommands of ``sparring`` (registered by :func:`add_commands`)."""

from __future__ import annotations

import argparse
import json

from sparring.kit import registry
from sparring.scaffold.listing import entry_point_sources, env_summary, format_summary
from sparring.scaffold.new import MAX_AGENTS, new_env


def cmd_new(args, extra) -> int:
    """Write a template env that passes ``sparring check`` and trains as it is."""
    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring new NAME [--agents K] [--dir DIR]")
    made = new_env(args.name, agents=args.agents, where=args.dir, standalone=args.standalone)
    kind = "built-in env in this checkout" if made.mode == "repo" else "standalone package (entry point sparring.envs)"
    print(f"created {made.name!r} as a {kind}:")
    print("\n".join(f"  {path}" for path in made.files))
    print("next:\n" + "\n".join(f"  {step}" for step in made.next_steps))
    return 0


def cmd_list(args, extra) -> int:
    """Print every registered env: agents, observation, action heads, phases, scripted opponents, source."""
    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring list [--json]")
    sources = entry_point_sources()
    infos = [env_summary(name, sources) for name in registry.names()]
    print(json.dumps(infos, indent=1) if args.json else "\n".join(format_summary(info) for info in infos))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``new`` and ``list`` on the ``sparring`` subparsers."""
    p = sub.add_parser("list", help="registered envs: agents, obs size, action heads, phases, scripted opponents")
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser("new", help="write a template env that passes `sparring check` and trains out of the box")
    p.add_argument("name", help="env name: lowercase letters, digits, underscores")
    p.add_argument("--agents", type=int, default=1, help=f"agents per env, 1 to {MAX_AGENTS}")
    p.add_argument("--dir", help="where to write (default: the current folder); inside a sparring checkout the env "
                                 "goes to src/sparring/envs/NAME, elsewhere to a package folder DIR/NAME")
    p.add_argument("--standalone", action="store_true", help="a package folder even inside a sparring checkout")
    p.set_defaults(fn=cmd_new)
