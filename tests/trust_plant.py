"""Crafted files for the trust boundary: a value planted into the states of a good checkpoint, recording,
archive or state set, every checksum recomputed (as an attacker who knows the format would).

Used by ``tests/test_trust_files.py``, and as a script to make the files by hand::

    python -m tests.trust_plant KIND PATH FIELD VALUE [INDEX]

KIND: checkpoint (a run folder), recording (a .parquet), archive (a folder), states (a .npz). The value
goes into record INDEX (default 0, every record for a recording; ``all``: every record) at the first
element of FIELD.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sparring.kit import registry
from sparring.kit.files import arrays_checksum, file_checksum


def plant(records: np.ndarray, field: str, value, index: int | None = 0) -> np.ndarray:
    """A copy of ``records`` with the first element of ``field`` set to ``value`` in record ``index`` (None: all)."""
    out = records.copy()
    rows = range(len(out)) if index is None else [index]
    for i in rows:
        flat = np.array(out[field][i]).reshape(-1)
        flat[0] = value
        out[field][i] = flat.reshape(np.shape(out[field][i]))
    return out


def checkpoint(run: str, field: str, value, index: int | None = 0) -> str:
    """Plant into the latest checkpoint of ``run``'s records.npy and reseal its checksum; returns the file."""
    root = os.path.join(run, "checkpoints")
    with open(os.path.join(root, "latest")) as fh:
        folder = os.path.join(root, fh.read().strip())
    path = os.path.join(folder, "records.npy")
    np.save(path, plant(np.load(path, allow_pickle=False), field, value, index), allow_pickle=False)
    meta_path = os.path.join(folder, "meta.json")
    with open(meta_path) as fh:
        meta = json.load(fh)
    meta["checksums"]["records.npy"] = file_checksum(path)
    with open(meta_path, "w") as fh:
        json.dump(meta, fh)
    return path


def recording(path: str, field: str, value, index: int | None = None) -> str:
    """Plant into the ``state`` column of the recording ``path`` (every row, or row ``index``); returns it."""
    table = pq.read_table(path)
    env_cls = registry.get(json.loads(table.schema.metadata[b"sparring.env"]))
    dtype = env_cls.record_dtype
    state = table["state"].combine_chunks()
    raw = np.frombuffer(state.buffers()[1], np.uint8)[state.offset * dtype.itemsize :][: len(state) * dtype.itemsize]
    records = plant(raw.copy().view(dtype), field, value, index)
    column = pa.FixedSizeBinaryArray.from_buffers(state.type, len(state), [None, pa.py_buffer(records.tobytes())])
    i = table.schema.get_field_index("state")
    pq.write_table(
        table.set_column(i, table.schema.field(i), column), path, compression="zstd", write_page_checksum=True
    )
    return path


def archive(folder: str, field: str, value, index: int | None = 0) -> str:
    """Plant into cell ``index`` of the archive in ``folder`` and recompute its checksum; returns archive.npz."""
    path = os.path.join(folder, "archive.npz")
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(arrays.pop("meta").tobytes())
    dtype = registry.get(meta["env"]).record_dtype
    records = plant(arrays["records"].copy().view(dtype).reshape(-1), field, value, index)
    arrays["records"] = records.view(np.uint8).reshape(len(records), dtype.itemsize)
    meta["checksum"] = arrays_checksum(arrays)
    np.savez(path, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    return path


def states(path: str, field: str, value, index: int | None = 0) -> str:
    """Plant into state ``index`` of the state set ``path`` and recompute its checksum; returns it."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(arrays.pop("meta").tobytes())
    dtype = registry.get(meta["env"]).record_dtype
    records = plant(arrays["records"].copy().view(dtype).reshape(-1), field, value, index)
    arrays["records"] = records.view(np.uint8).reshape(len(records), dtype.itemsize)
    meta["checksum"] = arrays_checksum(arrays)
    np.savez(path, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    return path


KINDS = {"checkpoint": checkpoint, "recording": recording, "archive": archive, "states": states}

if __name__ == "__main__":
    kind, target, name, text = sys.argv[1:5]
    number = float(text)
    extra = [None if sys.argv[5] == "all" else int(sys.argv[5])] if len(sys.argv) > 5 else []
    print(KINDS[kind](target, name, int(number) if number.is_integer() else number, *extra))
