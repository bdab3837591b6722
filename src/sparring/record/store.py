"""Crash-safe Parquet storage: one small segment file per completed row group, merged on close.

While recording, each row group is written to ``<out>.parts/part-NNNNNN.parquet``
all at once (:mod:`sparring.kit.atomic`), so a segment is either complete or
absent. Closing merges the segments into ``<out>`` (again temp file + rename) and
deletes them. A killed recording therefore leaves only whole segments, which
:func:`read_table` recovers. Every data page carries a CRC-32 checked when it is read;
a damaged file is a RecordingError naming it.
"""

from __future__ import annotations

import os
import shutil
import warnings

import pyarrow as pa
import pyarrow.parquet as pq

from sparring.kit.atomic import atomic_path, clean_stale
from sparring.kit.files import describe
from sparring.record.schema import RecordingError

CHECKSUMS = {"write_page_checksum": True}  # a CRC-32 per data page, checked by _read


def parts_dir(out: str) -> str:
    """The folder holding the segments of a recording being written to ``out``."""
    return os.fspath(out) + ".parts"


def _segments(folder: str) -> list[str]:
    # temporary files of a segment being written when the process died are not segments
    names = sorted(n for n in os.listdir(folder) if n.startswith("part-") and n.endswith(".parquet"))
    return [os.path.join(folder, n) for n in names]


class SegmentWriter:
    """Writes row groups as segment files of ``<out>.parts/``; ``close`` merges them into ``out``."""

    def __init__(self, out: str, schema: pa.Schema):
        self.out = os.fspath(out)
        self.folder = parts_dir(self.out)
        self.schema = schema
        if os.path.exists(self.folder):
            raise FileExistsError(
                f"{self.folder} exists: an earlier recording to {self.out} was not closed. "
                f"Recover it with sparring.record.load({self.out!r}) or delete the folder"
            )
        os.makedirs(os.path.dirname(os.path.abspath(self.out)), exist_ok=True)
        clean_stale(os.path.dirname(os.path.abspath(self.out)), [os.path.basename(self.out)])
        os.makedirs(self.folder)
        self.count = 0

    def write(self, table: pa.Table) -> None:
        """Write one completed row group as the next segment."""
        with atomic_path(os.path.join(self.folder, f"part-{self.count:06d}.parquet")) as tmp:
            pq.write_table(table.cast(self.schema), tmp, compression="zstd", **CHECKSUMS)
        self.count += 1

    def close(self) -> None:
        """Merge the segments into ``out`` (one row group each) and delete them."""
        with atomic_path(self.out) as tmp:
            with pq.ParquetWriter(tmp, self.schema, compression="zstd", **CHECKSUMS) as writer:
                for path in _segments(self.folder):
                    writer.write_table(_read(path))
        shutil.rmtree(self.folder)


def read_table(path: str) -> pa.Table:
    """The table of a closed recording, or the completed segments of one that was killed (with a warning)."""
    path = os.fspath(path)
    clean_stale(os.path.dirname(os.path.abspath(path)), [os.path.basename(path)])
    if os.path.isfile(path):
        return _read(path)
    folder = parts_dir(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"no recording at {path} (and no unfinished recording at {folder})")
    segments = _segments(folder)
    if not segments:
        raise FileNotFoundError(
            f"{path} was never closed and {folder} holds no completed row group; nothing was recorded"
        )
    tables = [_read(p) for p in segments]
    try:
        table = pa.concat_tables(tables)
    except pa.ArrowException as exc:
        raise RecordingError(
            f"{folder}: its segments are not of one recording ({describe(exc)}); delete the "
            "folder, or recover the segments one by one"
        ) from None
    warnings.warn(
        f"{path} was not closed (was the recording killed?); recovered {len(segments)} completed "
        f"row group(s) from {folder}",
        RuntimeWarning,
        stacklevel=3,
    )
    return table


def _read(path: str) -> pa.Table:
    """The table of one Parquet file, its page checksums verified; a damaged file is a RecordingError naming it."""
    try:
        return pq.read_table(path, page_checksum_verification=True)
    except FileNotFoundError:
        raise
    except Exception as exc:  # pyarrow raises many kinds for damaged bytes
        raise RecordingError(
            f"{path}: not a readable Parquet recording ({describe(exc)}); it is damaged or not a "
            "recording: record it again"
        ) from None
