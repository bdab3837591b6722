"""Crash-safe Parquet storage: one small segment file per completed row group, merged on close.

While recording, each row group is written to ``<out>.parts/part-NNNNNN.parquet``
all at once (:mod:`sparring.kit.atomic`), so a segment is either complete or
absent. Closing merges the segments into ``<out>`` (again temp file + rename) and
deletes them. A killed recording therefore leaves only whole segments, which
:func:`read_table` recovers.
"""

from __future__ import annotations

import os
import shutil
import warnings

import pyarrow as pa
import pyarrow.parquet as pq

from sparring.kit.atomic import atomic_path


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
            raise FileExistsError(f"{self.folder} exists: an earlier recording to {self.out} was not closed. "
                                  f"Recover it with sparring.record.load({self.out!r}) or delete the folder")
        os.makedirs(os.path.dirname(os.path.abspath(self.out)), exist_ok=True)
        os.makedirs(self.folder)
        self.count = 0

    def write(self, table: pa.Table) -> None:
        """Write one completed row group as the next segment."""
        with atomic_path(os.path.join(self.folder, f"part-{self.count:06d}.parquet")) as tmp:
            pq.write_table(table.cast(self.schema), tmp, compression="zstd")
        self.count += 1

    def close(self) -> None:
        """Merge the segments into ``out`` (one row group each) and delete them."""
        with atomic_path(self.out) as tmp:
            with pq.ParquetWriter(tmp, self.schema, compression="zstd") as writer:
                for path in _segments(self.folder):
                    writer.write_table(pq.read_table(path))
        shutil.rmtree(self.folder)


def read_table(path: str) -> pa.Table:
    """The table of a closed recording, or the completed segments of one that was killed (with a warning)."""
    path = os.fspath(path)
    if os.path.isfile(path):
        return pq.read_table(path)
    folder = parts_dir(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"no recording at {path} (and no unfinished recording at {folder})")
    segments = _segments(folder)
    if not segments:
        raise FileNotFoundError(f"{path} was never closed and {folder} holds no completed row group; "
                                f"nothing was recorded")
    warnings.warn(f"{path} was not closed (was the recording killed?); recovered {len(segments)} completed "
                  f"row group(s) from {folder}", RuntimeWarning, stacklevel=3)
    return pa.concat_tables([pq.read_table(p) for p in segments])
