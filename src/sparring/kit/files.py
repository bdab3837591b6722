"""Reading the files the project writes: one error for a damaged file, checksums, bounded reads, outputs checked.

Every load point wraps what a third-party reader (json, numpy, safetensors, torch, pyarrow)
raises about a file in :class:`DamagedFile`, a ValueError whose one-line message names the
file, what is wrong with it and what to do; the CLI prints it as ``sparring: <message>``
and exits with 2. Files the project writes record a SHA-256 checksum of each data file in
their metadata (``"sha256:<hex>"``, see :func:`file_checksum`), checked when they are read.

Every read is bounded: :func:`check_regular` is called before a file is opened (a link to a
device such as ``/dev/zero``, a pipe or a folder is refused, and a file larger than the reader
takes), so no crafted path can make a reader wait or read for ever.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterator

_LONGEST = 400  # characters of a message; a garbled file must not print a screenful
JSON_LIMIT = 64 << 20
"""Largest JSON file (metadata, configs) any reader takes, in bytes."""


def _one_line(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _LONGEST else text[: _LONGEST - 3] + "..."


class DamagedFile(ValueError):
    """A file that is missing, cut short, garbled, or of the wrong layout; the message names it.

    Args:
      path: the file; problem: what is wrong with it; remedy: what to do instead (optional).
    """

    def __init__(self, path: str | os.PathLike, problem: str, remedy: str = ""):
        self.path = os.fspath(path)
        super().__init__(_one_line(f"{self.path}: {problem}" + (f"; {remedy}" if remedy else "")))


def describe(exc: BaseException) -> str:
    """An exception as a short phrase for a message: the reason of an OSError, else its type and first words."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if type(exc).__name__ == "UnpicklingError":  # torch's weights-only refusal: its advice is to unpickle anyway
        return "it holds objects other than tensors and plain containers, which are not loaded"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@contextlib.contextmanager
def reading(path: str | os.PathLike, what: str, remedy: str = "") -> Iterator[None]:
    """Turn any error raised in the block into ``DamagedFile(path, "not a readable WHAT (why)", remedy)``.

    Wrap only the reading of ``path`` and the parsing of what it holds, so that the error
    is about that file. A :class:`DamagedFile` raised inside passes unchanged; so do
    KeyboardInterrupt and SystemExit.
    """
    try:
        yield
    except DamagedFile:
        raise
    except Exception as exc:
        raise DamagedFile(path, f"not a readable {what} ({describe(exc)})", remedy) from exc


def check_regular(path: str | os.PathLike, what: str, remedy: str = "", limit: int | None = None) -> int:
    """The size of ``path`` when it is a regular file of at most ``limit`` bytes (None: any size); else a
    :class:`DamagedFile`. Call it before opening a file: a folder, a device (a link to ``/dev/zero``, which
    never ends), a pipe (whose open waits for a writer) or a socket is refused without being opened."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise DamagedFile(path, f"not a readable {what} ({describe(exc)})", remedy) from None
    if stat.S_ISDIR(info.st_mode):
        raise DamagedFile(path, f"is a folder, not a {what}", remedy)
    if not stat.S_ISREG(info.st_mode):
        raise DamagedFile(path, f"is not a regular file (a device, pipe or socket), not a {what}", remedy)
    if limit is not None and info.st_size > limit:
        raise DamagedFile(
            path, f"is {info.st_size} bytes, more than the {limit} a {what} may have: not a {what}", remedy
        )
    return info.st_size


def read_bytes(path: str | os.PathLike, what: str, limit: int, remedy: str = "") -> bytes:
    """The bytes of the regular file ``path`` (a ``what``) of at most ``limit`` bytes (see :func:`check_regular`);
    never more than ``limit`` + 1 bytes are read, even from a file that grows while it is read."""
    check_regular(path, what, remedy, limit)
    with reading(path, what, remedy):
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    if len(data) > limit:
        raise DamagedFile(path, f"holds more than the {limit} bytes a {what} may have", remedy)
    return data


def read_text(path: str | os.PathLike, what: str, limit: int, remedy: str = "") -> str:
    """The UTF-8 text of ``path`` (see :func:`read_bytes`); bytes that are not UTF-8 are a :class:`DamagedFile`."""
    data = read_bytes(path, what, limit, remedy)
    with reading(path, f"{what} (UTF-8 text)", remedy):
        return data.decode("utf-8")


def read_json(path: str | os.PathLike, what: str, remedy: str = "", limit: int = JSON_LIMIT) -> dict:
    """The JSON object in ``path`` (a ``what``, e.g. "checkpoint meta"); anything else is a :class:`DamagedFile`."""
    text = read_text(path, f"{what} (JSON)", limit, remedy)
    with reading(path, f"{what} (JSON)", remedy):
        value = json.loads(text)
    if not isinstance(value, dict):
        raise DamagedFile(path, f"is a JSON {type(value).__name__}, not a JSON object ({what} expected)", remedy)
    return value


_KINDS = {
    int: "an integer",
    float: "a finite number",
    str: "a string",
    bool: "true or false",
    dict: "an object",
    list: "a list",
    type(None): "null",
}


def _is(value, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def check_keys(data: dict, schema: dict, path: str | os.PathLike, what: str, remedy: str = "") -> None:
    """Check that ``data`` (read from ``path``) has each key of ``schema`` with a value of its type.

    ``schema`` maps a key to a type or a tuple of types (``int``, ``float``: finite, ``str``,
    ``bool``, ``dict``, ``list``, ``type(None)``); a missing key or a wrong value is a
    :class:`DamagedFile` naming the key and what it should hold.
    """
    for key, kinds in schema.items():
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if key not in data:
            raise DamagedFile(path, f"lacks the key {key!r} every {what} has", remedy)
        if not any(_is(data[key], kind) for kind in kinds):
            shown = json.dumps(data[key])[:60] if _jsonable(data[key]) else repr(data[key])[:60]
            valid = " or ".join(_KINDS[kind] for kind in kinds)
            raise DamagedFile(path, f"{key!r} is {shown}, not {valid} as in every {what}", remedy)


def _jsonable(value) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def file_checksum(path: str | os.PathLike) -> str:
    """``"sha256:<hex>"`` of the bytes of ``path`` (a regular file: a device or pipe is a :class:`DamagedFile`)."""
    check_regular(path, "file")
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def arrays_checksum(arrays: dict) -> str:
    """``"sha256:<hex>"`` over the names, dtypes, shapes and bytes of the NumPy ``arrays`` (in name order): the
    checksum a file of several arrays (an ``.npz``) records in its own metadata."""
    import numpy as np

    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return "sha256:" + digest.hexdigest()


def checksums(folder: str | os.PathLike, names) -> dict[str, str]:
    """``{name: file_checksum}`` of the files ``names`` in ``folder`` (for a metadata file to record)."""
    return {name: file_checksum(os.path.join(folder, name)) for name in names}


_CHECKSUM = re.compile(r"sha256:[0-9a-f]{64}")


def verify_checksums(
    folder: str | os.PathLike, recorded, meta_path: str | os.PathLike, remedy: str = "", names=None
) -> None:
    """Check the files of ``folder`` (those in ``names`` when given) against the checksums the metadata file
    ``meta_path`` recorded.

    ``recorded`` is what :func:`checksums` returned when they were written (None: written before
    checksums existed, nothing to check). A file whose bytes changed is a :class:`DamagedFile`.
    """
    if recorded is None:
        return
    if not isinstance(recorded, dict) or not all(
        isinstance(k, str) and os.path.basename(k) == k and isinstance(v, str) and _CHECKSUM.fullmatch(v)
        for k, v in recorded.items()
    ):
        raise DamagedFile(
            meta_path, "'checksums' is not an object of file names and \"sha256:<64 hex digits>\"", remedy
        )
    for name, want in recorded.items():
        if names is not None and name not in names:
            continue
        path = os.path.join(folder, name)
        with reading(path, "file", remedy):
            got = file_checksum(path)
        if got != want:
            raise DamagedFile(
                path,
                f"its bytes changed since it was written (SHA-256 {got[7:19]}..., "
                f"{os.path.basename(meta_path)} recorded {want[7:19]}...): the file is damaged",
                remedy,
            )


def check_output(path: str | os.PathLike, flag: str, folder: bool = False, overwrite: bool = True) -> str:
    """Fail before any work when the output ``path`` given as ``flag`` cannot be written; returns it absolute.

    A file output must not be an existing folder (a folder output not an existing file), nor,
    unless ``overwrite``, an existing file (the command's ``--force`` allows it); and the nearest
    folder that exists on the way to it must take new files (missing folders below it are
    created when the output is written). The ValueError names ``flag``.
    """
    full = os.path.abspath(path)
    if not folder and os.path.isdir(full):
        raise ValueError(f"{flag} {os.fspath(path)!r} is a folder; give the path of a file to write")
    if not folder and not overwrite and os.path.lexists(full):
        raise ValueError(f"{flag} {os.fspath(path)!r} exists; give --force to overwrite it, or another path")
    if folder and os.path.exists(full) and not os.path.isdir(full):
        raise ValueError(f"{flag} {os.fspath(path)!r} is a file; give a folder")
    where = full if folder else os.path.dirname(full)
    while not os.path.exists(where):
        where = os.path.dirname(where)
    if not os.path.isdir(where):
        raise ValueError(
            f"{flag} {os.fspath(path)!r}: {where!r} is a file, not a folder; choose a path in a writable folder"
        )
    try:
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as exc:
        raise ValueError(
            f"{flag} {os.fspath(path)!r}: cannot write in {where!r} ({describe(exc)}); choose a writable folder"
        ) from None
    return full


def read_npy(path: str | os.PathLike, dtype, shape: tuple, what: str, remedy: str = ""):
    """The array in the ``.npy`` file ``path``, which must hold ``shape`` of ``dtype`` (checked in its header,
    before any data is read: a garbled header cannot ask for a huge allocation). Never unpickles."""
    import numpy as np

    dtype = np.dtype(dtype)
    check_regular(path, f"{what} (NumPy .npy)", remedy)
    with reading(path, f"{what} (NumPy .npy)", remedy):
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            got_shape, _, got_dtype = header(fh)
    if got_dtype != dtype:
        raise DamagedFile(
            path,
            f"holds an array of dtype {_short(got_dtype)}, not the {what} expected here (dtype {_short(dtype)})",
            remedy,
        )
    if tuple(got_shape) != tuple(shape):
        raise DamagedFile(
            path, f"holds {what} of shape {tuple(got_shape)}, not the {tuple(shape)} expected here", remedy
        )
    with reading(path, f"{what} (NumPy .npy)", remedy):
        return np.load(path, allow_pickle=False)


def _short(dtype) -> str:
    """A dtype in a few words: its fields, or its name."""
    return f"[{', '.join(dtype.names[:4])}{', ...' if len(dtype.names) > 4 else ''}]" if dtype.names else str(dtype)
