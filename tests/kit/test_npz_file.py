"""The kit's checksummed .npz files: round trip, damage refused as DamagedFile, written all at once."""

import json

import numpy as np
import pytest

from sparring.kit import npz_file
from sparring.kit.files import DamagedFile
from sparring.kit.npz_file import load_npz, read_npz, write_npz

ARRAYS = {"a": np.arange(5, dtype=np.int64), "b": np.zeros((2, 3), [("x", "f4"), ("y", "u1")])}


def _rewrite(path, arrays, meta):
    """Write ``path`` as write_npz does, but with ``meta`` as it is (no checksum recomputed)."""
    text = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    np.savez(path, meta=np.frombuffer(text, np.uint8), **arrays)


def test_arrays_and_metadata_round_trip(tmp_path):
    path = tmp_path / "f.npz"
    written = write_npz(path, ARRAYS, {"format": 1, "env": "toy"})
    assert list(written) == ["format", "env", "checksum"] and written["checksum"].startswith("sha256:")
    meta, arrays = read_npz(path, "toy file", keys={"format": int, "env": str})
    assert meta == written and set(arrays) == {"a", "b"}
    assert all(arrays[k].dtype == v.dtype and arrays[k].tobytes() == v.tobytes() for k, v in ARRAYS.items())


def test_arrays_that_do_not_match_their_checksum_are_a_damaged_file(tmp_path):
    path = tmp_path / "f.npz"
    meta = write_npz(path, ARRAYS, {"format": 1})
    _rewrite(path, {**ARRAYS, "a": ARRAYS["a"] + 1}, meta)
    with pytest.raises(DamagedFile, match=r"f\.npz: its arrays do not match the checksum .*; write it again"):
        read_npz(path, "toy file", "write it again")


def test_missing_or_garbled_metadata_is_a_damaged_file_naming_what_is_wrong(tmp_path):
    path = tmp_path / "f.npz"
    meta = write_npz(path, ARRAYS, {"format": 1})
    cases = [
        ({k: v for k, v in meta.items() if k != "format"}, "lacks the key 'format' every toy file's metadata has"),
        ({k: v for k, v in meta.items() if k != "checksum"}, "lacks the key 'checksum'"),
        ([meta], "its metadata is a JSON list, not a JSON object"),
        (b"\xff{", "not a readable toy file metadata"),
    ]
    for bad, message in cases:
        _rewrite(path, ARRAYS, bad)
        with pytest.raises(DamagedFile, match=message):
            read_npz(path, "toy file", keys={"format": int})
    np.savez(path, **ARRAYS)  # no metadata: load_npz hands such a file to a reader of an older format
    assert load_npz(path, "toy file")[0] is None
    with pytest.raises(DamagedFile, match="has no 'meta' entry, the metadata every toy file has"):
        read_npz(path, "toy file")
    for path, message in [(tmp_path / "nowhere.npz", "not a readable toy file"), (tmp_path, "is a folder")]:
        with pytest.raises(DamagedFile, match=message):
            read_npz(path, "toy file")
    (tmp_path / "cut.npz").write_bytes(b"PK\x03\x04 cut short")
    with pytest.raises(DamagedFile, match=r"cut\.npz: not a readable toy file \(NumPy \.npz\)"):
        read_npz(tmp_path / "cut.npz", "toy file")


def test_a_crash_mid_write_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "f.npz"
    write_npz(path, ARRAYS, {"format": 1})
    before = path.read_bytes()

    def crashes(fh, **arrays):
        fh.write(b"PK\x03\x04 half of a file")
        raise OSError("disk full")

    monkeypatch.setattr(npz_file.np, "savez", crashes)
    with pytest.raises(OSError, match="disk full"):
        write_npz(path, {"a": np.ones(3)}, {"format": 2})
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["f.npz"]


def test_what_cannot_be_written_plainly_is_refused(tmp_path):
    with pytest.raises(ValueError, match="cannot be named 'meta'"):
        write_npz(tmp_path / "x.npz", {"meta": np.zeros(1)}, {})
    with pytest.raises(ValueError, match=r"arrays \['o'\] hold Python objects"):
        write_npz(tmp_path / "x.npz", {"o": np.array([{}], object)}, {})
    assert not (tmp_path / "x.npz").exists()
