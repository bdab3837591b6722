"""The ``sparring`` command: parses arguments, then calls the library. Nothing below the CLI imports this package.

A module per command group registers its subcommands (``add_commands``); each command is
``fn(args, extra)``, ``extra`` being the ``--GROUP.KEY VALUE`` overrides (see ``overrides``).
Start-up stays fast (``sparring --help`` in well under half a second): the command modules import
the library inside each command, and a subcommand whose flags come from a heavy module (``distill``
and ``grpo`` take their flags from config dataclasses) adds them only when that subcommand is parsed.
Every bad argument and every damaged or unwritable file ends the same way: one line on
stderr naming the flag or file, what is wrong and what is valid, and exit code 2.

The flags' types and the checks of output paths are :mod:`sparring.cli.values`; the parser
makes every plain type safe (``type=int``: a 64-bit integer, ``type=float``: finite, no type:
non-empty printable text) and checks every output flag after parsing (writable; an existing
one only with ``--force`` or ``--resume``), so a command's flags are validated before it runs.
"""

from __future__ import annotations

import argparse
import sys

from sparring.cli import envs, explore, judge, lm, openenv, play, record, train, warm
import sparring.cli.values as values
from sparring.cli.overrides import pull_overrides

_PLAIN = (argparse._StoreAction, argparse._AppendAction, argparse._ExtendAction)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``sparring CMD: argument --flag: why``), exit code 2.

    ``arguments(parser)``, when given, adds the parser's arguments the first time it parses (or shows
    its help): a subcommand whose flags need a heavy import costs nothing to the other commands.
    """

    def __init__(self, *args, arguments=None, **kwargs):
        super().__init__(*args, **kwargs)
        self._arguments = arguments

    def parse_known_args(self, args=None, namespace=None):
        self.load_arguments()
        parsed, extra = super().parse_known_args(args, namespace)
        if self._defaults.get("fn") is not None:  # a command's parser (not the top one): its outputs
            try:
                values.check_outputs(self, parsed)
            except ValueError as exc:
                self.error(str(exc))
        return parsed, extra

    def load_arguments(self) -> None:
        """Add the lazily added arguments, if any, and make the plain types of every argument safe."""
        if self._arguments is not None:
            add, self._arguments = self._arguments, None
            add(self)
        for action in self._actions:
            if isinstance(action, _PLAIN) and action.choices is None and action.nargs != 0:
                action.type = values.plain_type(action.type)

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {_one_line(message)} (see {self.prog} --help)\n")


def _one_line(text) -> str:
    return " ".join(str(text).split())


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(prog="sparring", description="Fast, honest game environments and agents.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for group in (envs, lm, train, explore, play, record, judge, warm, openenv):
        group.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sparring`` console script; bad input is ``sparring: <why>`` on stderr and exit 2."""
    rest, overrides = pull_overrides(sys.argv[1:] if argv is None else argv)
    try:
        args, extra = build_parser().parse_known_args(rest)
    except SystemExit as exc:  # --help (0), or a bad argument already printed on one line (2)
        return exc.code
    try:
        return args.fn(args, extra + overrides)
    except (LookupError, ValueError) as exc:
        print(f"sparring: {_one_line(exc)}", file=sys.stderr)
    except OSError as exc:  # a file that cannot be read or written, named by the system's error
        where = f" {exc.filename!r}" if exc.filename else ""
        print(
            f"sparring: cannot use{where}: {exc.strerror or _one_line(exc)}; check the path and its permissions",
            file=sys.stderr,
        )
    except MemoryError as exc:  # a size no memory check caught: still one line, naming what to lower
        print(f"sparring: {args.command}: {_out_of_memory(exc)}", file=sys.stderr)
    except RuntimeError as exc:
        if getattr(exc, "one_line", False):  # an error written for the user (e.g. a lost Ray worker)
            print(f"sparring: {args.command}: {_one_line(exc)}", file=sys.stderr)
        elif not _is_allocation_failure(exc):
            raise
        else:
            print(f"sparring: {args.command}: {_out_of_memory(exc)}", file=sys.stderr)
    return 2


def _is_allocation_failure(exc: RuntimeError) -> bool:
    """Whether ``exc`` is an allocator's refusal (torch's CPU or CUDA allocator), not another runtime error."""
    text = str(exc)
    return type(exc).__name__ == "OutOfMemoryError" or "can't allocate memory" in text or "out of memory" in text


def _out_of_memory(exc: BaseException) -> str:
    said = _one_line(exc)[:160]
    return (
        f"ran out of memory ({type(exc).__name__}{': ' + said if said else ''}); ask for less: smaller sizes, "
        "counts or batches (e.g. --num-envs, --steps, --hidden)"
    )
