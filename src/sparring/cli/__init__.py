"""The ``sparring`` command: parses arguments, then calls the library. Nothing below the CLI imports this package.

A module per command group registers its subcommands (``add_commands``); each command is
``fn(args, extra)``, ``extra`` being the ``--GROUP.KEY VALUE`` overrides (see ``overrides``).
"""

from __future__ import annotations

import argparse
import sys

from sparring.cli import envs, explore, lm, play, record, train
from sparring.cli.overrides import pull_overrides


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="sparring", description="Fast, honest game environments and agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in (envs, lm, train, explore, play, record):
        group.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sparring`` console script; bad input is ``sparring: <why>`` on stderr and exit 2."""
    rest, overrides = pull_overrides(sys.argv[1:] if argv is None else argv)
    args, extra = build_parser().parse_known_args(rest)
    try:
        return args.fn(args, extra + overrides)
    except (LookupError, ValueError) as exc:
        print(f"sparring: {exc}", file=sys.stderr)
        return 2
