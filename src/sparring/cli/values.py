"""The validation layer of every command's flags: argparse types with ranges, and the checks of output paths.

Each type refuses a bad value with one line naming what is valid (argparse prefixes the flag:
``sparring train: argument --steps: must be an integer in [0, 1e+15], got '-5'``), so a bad
flag ends with exit code 2 before any work is done. A type carries what it accepts as
attributes (``kind``: int, float, text, name, file, path, output, folder; ``low``/``high`` for
numbers), which the fuzz harness (tests/cli/test_fuzz.py) reads to generate bad values for
every flag of every command without a test per flag.

- numbers: :func:`count` (an integer in a range), :func:`integer`, :func:`seed`,
  :func:`threads`, :func:`number` (a finite number in a range);
- text: :func:`text` (non-empty, printable), :func:`name` (one path component, for a folder
  the command makes inside the folder it owns, e.g. ``sweep --name``);
- paths read: :func:`input_file` (an existing regular file: not a folder, device or pipe),
  :func:`input_path` (an existing file or folder);
- paths written: :func:`output` (a file) and :func:`output_folder` (a folder): checked after
  parsing by :func:`check_outputs` (called by the CLI's parser for every command), which
  refuses an existing output unless the command was given ``--force`` (or ``--resume``, for a
  folder it continues), and any output whose folder cannot be written.

The CLI's parser (:class:`sparring.cli._Parser`) also makes the plain argparse types safe:
``type=int`` is :func:`integer` (no ``2**80``), ``type=float`` a finite number, and an
untyped flag is :func:`text` (no empty value), so a command that only says ``type=float``
already refuses ``nan``.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat

INT_MAX = 2**63 - 1
"""Largest integer any flag takes (a signed 64-bit integer: what NumPy and torch take)."""
COUNT_MAX = 10**9
"""Default top of a count (episodes, envs, trials...): more would run for ever or not fit in memory."""
STEPS_MAX = 10**15
"""Top of a budget in steps."""
THREADS_MAX = 1024
"""Most threads a flag may ask for."""
TEXT_MAX = 4096
"""Longest text value a flag takes."""
_HOST = re.compile(r"[A-Za-z0-9.:\-\[\]%]{1,253}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _typed(parse, kind: str, shown: str, **attrs):
    """``parse`` as an argparse type: its name (for argparse's messages) and what it accepts (for the harness)."""
    parse.__name__ = shown
    parse.kind = kind
    for key, value in attrs.items():
        setattr(parse, key, value)
    return parse


def _shown(value: float) -> str:
    return f"{value:g}" if abs(value) >= 1e6 else str(int(value)) if float(value).is_integer() else f"{value:g}"


def _to_int(text: str) -> int | None:
    """``text`` as an integer (``12``, ``-3``, ``1e6``, ``1_000``), or None."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if math.isfinite(value) and value.is_integer() and abs(value) <= INT_MAX else None


def count(low: int = 1, high: int = COUNT_MAX):
    """An argparse type: an integer in [``low``, ``high``]."""
    return integer(low, high)


def integer(low: int = -INT_MAX - 1, high: int = INT_MAX):
    """An argparse type: an integer in [``low``, ``high``] (by default any signed 64-bit integer)."""
    shown = f">= {low}" if high == INT_MAX else f"in [{_shown(low)}, {_shown(high)}]"

    def parse(text: str) -> int:
        value = _to_int(text)
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer {shown}, got {_quoted(text)}")
        return value

    return _typed(parse, "int", f"integer {shown}", low=low, high=high)


def seed():
    """An argparse type: a seed, an integer in [0, 2**63-1]."""
    parse = integer(0, INT_MAX)
    parse.__name__ = "seed"
    return parse


def threads(high: int = THREADS_MAX):
    """An argparse type: a number of threads, 1 to ``high``."""
    return integer(1, high)


def port():
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    parse = integer(0, 65535)
    parse.__name__ = "port"
    return parse


def host():
    """An argparse type: an address to listen on, an IP address or a host name (ASCII letters, digits, '.', '-',
    ':'; at most 253 characters): a name that cannot be one is refused before anything is printed."""

    def parse(value: str) -> str:
        if not _HOST.fullmatch(value):
            raise argparse.ArgumentTypeError(
                f"must be an IP address or a host name (ASCII letters, digits, '.', '-' or ':'), got {_quoted(value)}"
            )
        return value

    return _typed(parse, "text", "host")


def number(low: float = 0.0, high: float = math.inf, above: bool = False):
    """An argparse type: a finite number in [``low``, ``high``] (``(low, high]`` when ``above``)."""
    if math.isfinite(high):
        shown = f"in {'(' if above else '['}{low:g}, {high:g}]"
    elif math.isfinite(low):
        shown = f"{'>' if above else '>='} {low:g}"
    else:
        shown = "(any finite number)"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value > low if above else value >= low) and value <= high):
            raise argparse.ArgumentTypeError(f"must be a finite number {shown}, got {_quoted(text)}")
        return value

    return _typed(parse, "float", f"number {shown}", low=low, high=high, above=above)


def finite():
    """An argparse type: any finite number."""
    return number(-math.inf, math.inf)


def _quoted(text: str) -> str:
    """``text`` for a message: quoted, cut short, control characters escaped."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _path_shown(path: str) -> str:
    """A path for a message: quoted, its end kept when it is long (the file's name is the part that matters)."""
    shown = repr(path)
    return shown if len(shown) <= 240 else "'..." + repr(path[-200:])[1:]


def _printable(text: str) -> bool:
    return all(ch.isprintable() for ch in text)


def text(what: str = "a non-empty text"):
    """An argparse type: non-empty text (not only spaces), printable, at most ``TEXT_MAX`` characters."""

    def parse(value: str) -> str:
        if not value.strip() or not _printable(value) or len(value) > TEXT_MAX:
            raise argparse.ArgumentTypeError(
                f"must be {what} (printable, at most {TEXT_MAX} characters), got {_quoted(value)}"
            )
        return value

    return _typed(parse, "text", what)


def name(what: str = "a name"):
    """An argparse type: one path component, letters, digits, '.', '_' and '-' (not '..'), 1-100 characters:
    the name of something a command makes inside the folder it owns."""

    def parse(value: str) -> str:
        if not _NAME.fullmatch(value) or value.strip(".") == "":
            raise argparse.ArgumentTypeError(
                f"must be {what}: 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit "
                f"(no '/' or '..': it names a folder inside the command's own), got {_quoted(value)}"
            )
        return value

    return _typed(parse, "name", what)


def _path_text(value: str) -> str:
    if not value.strip() or not _printable(value) or len(value) > TEXT_MAX or "\0" in value:
        raise argparse.ArgumentTypeError(f"must be a path (printable, non-empty), got {_quoted(value)}")
    return value


def input_file(what: str = "file", alternatives: tuple[str, ...] = ()):
    """An argparse type: an existing regular file (not a folder, device or pipe: those are refused before
    anything opens them, as a link to ``/dev/zero`` would never end). A missing file is accepted when the
    path with one of the suffixes ``alternatives`` exists (a recording's ``.parts`` folder, left unclosed)."""

    def parse(value: str) -> str:
        _path_text(value)
        if not os.path.lexists(value) and any(os.path.exists(value + alt) for alt in alternatives):
            return value
        try:
            info = os.stat(value)
        except OSError as exc:
            raise argparse.ArgumentTypeError(
                f"{_path_shown(value)} cannot be read ({exc.strerror}); give an existing {what}"
            ) from None
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, pipe or socket)"
            raise argparse.ArgumentTypeError(f"{_path_shown(value)} is {kind}; give an existing {what}")
        return value

    return _typed(parse, "file", f"existing {what}", what=what)


def input_path(what: str = "file or folder"):
    """An argparse type: an existing file or folder (a folder the command reads, e.g. a run)."""

    def parse(value: str) -> str:
        _path_text(value)
        try:
            info = os.stat(value)
        except OSError as exc:
            raise argparse.ArgumentTypeError(
                f"{_path_shown(value)} cannot be read ({exc.strerror}); give an existing {what}"
            ) from None
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            raise argparse.ArgumentTypeError(
                f"{_path_shown(value)} is not a regular file or folder (a device, pipe or socket); "
                f"give an existing {what}"
            )
        return value

    return _typed(parse, "path", f"existing {what}", what=what)


def model(what: str = "model folder or .gguf file"):
    """An argparse type: an installed model's name (``smollm2``, see :data:`sparring.lm.model_spec.NAMED_MODELS`)
    or an existing file or folder (:func:`input_path`), either after ``local:`` or not; a name that is not
    installed says how to install it. The value is kept as given."""
    path = input_path(what)

    def parse(value: str) -> str:
        from sparring.lm.model_spec import named_model

        try:
            if not named_model(value):
                path(value.removeprefix("local:"))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    return _typed(parse, "path", f"installed model name or existing {what}", what=what)


def output(what: str = "file to write"):
    """An argparse type: a file the command writes; checked after parsing by :func:`check_outputs`."""

    def parse(value: str) -> str:
        return _path_text(value)

    return _typed(parse, "output", what)


def output_folder(what: str = "folder to write", exists_ok: bool = False):
    """An argparse type: a folder the command writes (``exists_ok``: a parent folder that may hold others' files,
    as ``--runs``), checked after parsing by :func:`check_outputs`."""

    def parse(value: str) -> str:
        return _path_text(value)

    return _typed(parse, "folder", what, exists_ok=exists_ok)


_FOLDER_HINTS = {"--force": "--force to write into it", "--resume": "--resume to continue it"}


def check_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check every output flag of ``parser`` in ``args``: writable, and not an existing file (or a folder that is
    not empty) unless ``--force`` (or ``--resume`` for a folder) was given. A ValueError names the flag."""
    from sparring.kit.files import check_output

    force = bool(getattr(args, "force", False))
    resume = bool(getattr(args, "resume", False))
    flags = {flag for action in parser._actions for flag in action.option_strings}
    hints = [hint for flag, hint in _FOLDER_HINTS.items() if flag in flags]  # only what this command takes
    give = f"; give {' or '.join(hints)}, or a new folder" if hints else "; give a new or empty folder"
    for action in parser._actions:
        kind = getattr(action.type, "kind", None)
        value = getattr(args, action.dest, None)
        if kind not in ("output", "folder") or not value:
            continue
        flag = "/".join(action.option_strings) or action.dest
        for path in value if isinstance(value, list) else [value]:
            if kind == "folder":
                check_output(path, flag, folder=True)
                existing = os.path.isdir(path) and bool(os.listdir(path))
                if existing and not (action.type.exists_ok or force or resume):
                    raise ValueError(f"{flag} {path!r} is a folder that is not empty{give}")
            else:
                check_output(path, flag, overwrite=force)


def inside(folder: str, path: str, flag: str) -> str:
    """``path`` (absolute) when it lies inside ``folder``; else a ValueError naming ``flag``."""
    root, full = os.path.realpath(folder), os.path.realpath(os.path.join(folder, path))
    if os.path.commonpath([root, full]) != root:
        raise ValueError(f"{flag} {path!r} leads outside {folder!r}; give a name inside it")
    return full


def plain_type(kind):
    """The safe type the CLI's parser uses for a plain ``type=kind`` (int, float, None: text), or ``kind``."""
    if kind is int:
        return integer()
    if kind is float:
        return finite()
    if kind is None:
        return text()
    return kind
