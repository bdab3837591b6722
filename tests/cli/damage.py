"""A seeded corpus of damaged and crafted files: the bytes of a good file cut, garbled or rewritten.

Each damage is a function of a folder that changes one file in it; the tests apply it to a
copy of a good checkpoint, recording or archive and run every command that reads the file.
(Out-of-range values inside state records are the trust boundary's to test, not this corpus's.)
"""

import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sparring.kit.files import arrays_checksum, file_checksum

# a tiny squared run (size 5): one checkpoint at 64 of its 128 steps, the good file the corpus damages
TINY = {
    "num_envs": 8,
    "horizon": 8,
    "minibatch_size": 64,
    "hidden": 16,
    "threads": 1,
    "steps": 128,
    "eval_episodes": 0,
    "tensorboard": False,
}
STEP = "checkpoints/step-000000000064"


def tiny_run(folder) -> None:
    """Train :data:`TINY` on squared (size 5) for one iteration and save its checkpoint into ``folder``."""
    from sparring.train.checkpoint import save_checkpoint
    from sparring.train.config import make_train_config
    from sparring.train.trainer import Trainer

    trainer = Trainer("squared", make_train_config(None, TINY), {"size": 5})
    trainer.iterate()
    save_checkpoint(str(folder), trainer)
    trainer.close()


# the bytes of a file, cut or garbled; every one of these is caught by a checksum
BYTES = {
    "empty": lambda d: b"",
    "cut-to-1": lambda d: d[:1],
    "cut-half": lambda d: d[: len(d) // 2],
    "cut-last-byte": lambda d: d[:-1],
    "garble-head": lambda d: b"\xff" * 16 + d[16:],
    "garble-middle": lambda d: (
        d[: len(d) // 2] + bytes(b ^ 0x5A for b in d[len(d) // 2 : len(d) // 2 + 8]) + d[len(d) // 2 + 8 :]
    ),
    "garble-tail": lambda d: d[:-16] + bytes(b ^ 0x5A for b in d[-16:]),
}
# the ones a reader notices without a checksum (a file written before checksums existed)
STRUCTURAL = ("empty", "cut-half", "garble-head")


def rewrite_bytes(name: str, how):
    """A damage: the file ``name`` of the folder rewritten as ``how(its bytes)``."""

    def damage(folder):
        path = os.path.join(folder, name)
        with open(path, "rb") as fh:
            data = fh.read()
        with open(path, "wb") as fh:
            fh.write(how(data))

    return damage


def remove(name: str):
    """A damage: the file ``name`` deleted."""
    return lambda folder: os.remove(os.path.join(folder, name))


def edit_json(name: str, edit):
    """A damage: the JSON file ``name`` replaced by ``edit(its value)`` (a str result is written as it is)."""

    def damage(folder):
        path = os.path.join(folder, name)
        with open(path) as fh:
            value = edit(json.load(fh))
        with open(path, "w") as fh:
            fh.write(value if isinstance(value, str) else json.dumps(value))

    return damage


def without_checksums(damage):
    """``damage`` applied to a checkpoint whose meta.json has no checksums (as written before they existed)."""

    def apply(folder):
        edit_json("meta.json", lambda meta: {k: v for k, v in meta.items() if k != "checksums"})(folder)
        damage(folder)

    return apply


def resealed(name: str, damage):
    """``damage`` to ``name``, then its checksum in meta.json recomputed: a file written that way (e.g. by a run
    whose training diverged), or crafted by someone who knows the format."""

    def apply(folder):
        damage(folder)
        edit_json(
            "meta.json",
            lambda meta: {**meta, "checksums": {**meta["checksums"], name: file_checksum(os.path.join(folder, name))}},
        )(folder)

    return apply


def set_key(key, value):
    """A meta.json edit: ``key`` set to ``value``."""
    return lambda meta: {**meta, key: value}


def drop_key(key):
    """A meta.json edit: ``key`` removed."""
    return lambda meta: {k: v for k, v in meta.items() if k != key}


def rewrite_recording(name: str, metadata=None, table=None):
    """A damage: the recording ``name`` rewritten (valid Parquet) with ``metadata(kv)`` and ``table(table)``."""

    def damage(folder):
        path = os.path.join(folder, name)
        data = pq.read_table(path)
        if table is not None:
            data = table(data)
        kv = dict(data.schema.metadata or {})
        if metadata is not None:
            kv = metadata(kv)
        pq.write_table(data.replace_schema_metadata(kv), path)

    return damage


def meta_value(key: str, text: bytes):
    """A recording metadata edit: the value of ``sparring.<key>`` set to the bytes ``text`` (None: removed)."""

    def edit(kv):
        kv = {k: v for k, v in kv.items() if k != f"sparring.{key}".encode()}
        return kv if text is None else {**kv, f"sparring.{key}".encode(): text}

    return edit


def column(name: str, make):
    """A recording table edit: column ``name`` replaced by ``make(table)`` (None: dropped)."""

    def edit(data):
        i = data.schema.get_field_index(name)
        return data.remove_column(i) if make is None else data.set_column(i, name, make(data))

    return edit


def unknown_phase(data):
    """The phase column with a phase name the env does not have."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(data.num_rows, np.int8)), pa.array(["limbo"]))


def rewrite_archive(arrays=None, meta=None, keep_checksum=False):
    """A damage: archive.npz rewritten with ``arrays(arrays)`` and ``meta(its metadata)``, the checksum recomputed
    unless ``keep_checksum`` (a crafted archive that passes the checksum, or one whose arrays changed)."""

    def damage(folder):
        path = os.path.join(folder, "archive.npz")
        with np.load(path) as data:
            content = {name: data[name] for name in data.files}
        info = json.loads(content.pop("meta").tobytes())
        content = arrays(content) if arrays is not None else content
        if not keep_checksum:
            info["checksum"] = arrays_checksum(content)
        info = meta(info) if meta is not None else info
        text = info if isinstance(info, bytes) else json.dumps(info).encode()
        np.savez(path, meta=np.frombuffer(text, np.uint8), **content)

    return damage


def change(name: str, fn):
    """An archive arrays edit: array ``name`` replaced by ``fn(array)`` (None: dropped)."""

    def edit(arrays):
        arrays = dict(arrays)
        if fn is None:
            del arrays[name]
        else:
            arrays[name] = fn(arrays[name])
        return arrays

    return edit
