"""Reading files safely: DamagedFile on one line, JSON and key checks, checksums, .npy headers, output paths."""

import os

import numpy as np
import pytest

from sparring.kit.files import (
    DamagedFile,
    check_keys,
    check_output,
    checksums,
    file_checksum,
    read_json,
    read_npy,
    reading,
    verify_checksums,
)
from sparring.kit.memory import available_memory, check_fits


def test_reading_turns_any_error_into_one_line_naming_the_file(tmp_path):
    with pytest.raises(DamagedFile) as err, reading(tmp_path / "x.bin", "widget", "make another"):
        raise RuntimeError("line one\n  line two")
    assert (
        str(err.value) == f"{tmp_path / 'x.bin'}: not a readable widget (RuntimeError: line one line two); make another"
    )
    assert isinstance(err.value, ValueError) and err.value.path == str(tmp_path / "x.bin")
    with pytest.raises(DamagedFile, match="No such file or directory"), reading(tmp_path / "none", "widget"):
        open(tmp_path / "none")
    with pytest.raises(DamagedFile, match="^inner: boom$"), reading(tmp_path / "x", "widget"):
        raise DamagedFile("inner", "boom")  # passes unchanged
    assert len(str(DamagedFile("f", "x" * 5000))) <= 400


def test_read_json_wants_an_object(tmp_path):
    path = tmp_path / "meta.json"
    for text, why in [("[1]", "is a JSON list, not a JSON object"), ("{", "JSONDecodeError"), ("", "JSONDecodeError")]:
        path.write_text(text)
        with pytest.raises(DamagedFile, match=why):
            read_json(path, "meta")
    path.write_bytes(b"\xff{}")
    with pytest.raises(DamagedFile, match="UnicodeDecodeError"):
        read_json(path, "meta")
    path.write_text('{"a": 1}')
    assert read_json(path, "meta") == {"a": 1}


@pytest.mark.parametrize("value, ok", [(3, True), (True, False), (2.0, False), ("3", False), (None, False)])
def test_check_keys_takes_only_real_integers(value, ok):
    if ok:
        check_keys({"step": value}, {"step": int}, "m.json", "meta")
    else:
        with pytest.raises(DamagedFile, match="'step' is .*, not an integer"):
            check_keys({"step": value}, {"step": int}, "m.json", "meta")


def test_check_keys_names_a_missing_key_and_wants_finite_numbers():
    with pytest.raises(DamagedFile, match="m.json: lacks the key 'env'"):
        check_keys({}, {"env": str}, "m.json", "meta")
    check_keys({"t": 1, "o": None}, {"t": float, "o": (dict, type(None))}, "m.json", "meta")
    with pytest.raises(DamagedFile, match="'t' is NaN, not a finite number"):
        check_keys({"t": float("nan")}, {"t": float}, "m.json", "meta")


def test_checksums_catch_any_changed_byte(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"abc")
    recorded = checksums(tmp_path, ["a.bin"])
    assert recorded == {"a.bin": "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}
    verify_checksums(tmp_path, recorded, tmp_path / "meta.json")
    verify_checksums(tmp_path, None, tmp_path / "meta.json")  # written before checksums: nothing to check
    (tmp_path / "a.bin").write_bytes(b"abd")
    with pytest.raises(DamagedFile, match=r"a.bin: its bytes changed since it was written"):
        verify_checksums(tmp_path, recorded, tmp_path / "meta.json")
    verify_checksums(tmp_path, recorded, tmp_path / "meta.json", names=["other.bin"])  # only the files read
    for bad in ("x", {"a.bin": "md5:00"}, {"../a.bin": file_checksum(tmp_path / "a.bin")}):
        with pytest.raises(DamagedFile, match="meta.json: 'checksums' is not"):
            verify_checksums(tmp_path, bad, tmp_path / "meta.json")


def test_read_npy_checks_the_header_before_reading_data(tmp_path):
    path = tmp_path / "r.npy"
    np.save(path, np.zeros(4, [("a", "i4")]))
    assert read_npy(path, [("a", "i4")], (4,), "records").shape == (4,)
    with pytest.raises(DamagedFile, match=r"holds records of shape \(4,\), not the \(5,\)"):
        read_npy(path, [("a", "i4")], (5,), "records")
    with pytest.raises(DamagedFile, match="holds an array of dtype"):
        read_npy(path, "f4", (4,), "records")
    header = f"{{'descr': '<i4', 'fortran_order': False, 'shape': ({10**15},), }}".encode()
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 16)
    with pytest.raises(DamagedFile, match=r"shape \(1000000000000000,\)"):  # refused without allocating it
        read_npy(path, "<i4", (4,), "records")


def test_check_output_fails_before_any_work(tmp_path):
    (tmp_path / "file.txt").write_text("x")
    assert check_output(tmp_path / "new" / "deep" / "out.gif", "--gif") == str(tmp_path / "new" / "deep" / "out.gif")
    assert not (tmp_path / "new").exists()  # nothing is created by the check
    with pytest.raises(ValueError, match="--out .* is a folder; give the path of a file"):
        check_output(tmp_path, "--out")
    with pytest.raises(ValueError, match="--out .* is a file; give a folder"):
        check_output(tmp_path / "file.txt", "--out", folder=True)
    with pytest.raises(ValueError, match="--gif .*file.txt' is a file, not a folder"):
        check_output(tmp_path / "file.txt" / "x.gif", "--gif")
    assert os.listdir(tmp_path) == ["file.txt"]


def test_check_fits_names_the_size_and_the_remedy():
    assert available_memory() > 0
    check_fits(1024, "a small thing", "nothing")
    with pytest.raises(
        ValueError,
        match=r"a huge thing needs about 1024.0 TiB of memory, more than the .* available; "
        r"use less",
    ):
        check_fits(2**50, "a huge thing", "use less")


def test_reads_are_bounded_and_refuse_devices_pipes_and_folders(tmp_path):
    """Issue 39: a link to /dev/zero (endless) or a pipe (whose open waits for a writer) is refused unopened."""
    from sparring.kit.files import check_regular, read_bytes, read_text

    os.symlink("/dev/zero", tmp_path / "zero")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "big").write_bytes(b"x" * 100)
    for path, why in [
        (tmp_path / "zero", "is not a regular file"),
        (tmp_path / "pipe", "is not a regular file"),
        (tmp_path, "is a folder"),
        (tmp_path / "none", "No such file"),
    ]:
        with pytest.raises(DamagedFile, match=why):
            read_bytes(path, "widget", 1000)
    with pytest.raises(DamagedFile, match="is 100 bytes, more than the 99 a widget may have"):
        read_text(tmp_path / "big", "widget", 99)
    assert check_regular(tmp_path / "big", "widget") == 100 and read_text(tmp_path / "big", "w", 100) == "x" * 100
    with pytest.raises(DamagedFile, match="not a regular file"):
        file_checksum(tmp_path / "zero")
    with pytest.raises(DamagedFile, match="not a regular file"):
        read_json(tmp_path / "zero", "meta")


def test_check_output_refuses_an_existing_file_unless_overwrite(tmp_path):
    (tmp_path / "old.txt").write_text("keep")
    assert check_output(tmp_path / "old.txt", "--out") == str(tmp_path / "old.txt")  # overwrite by default
    with pytest.raises(ValueError, match=r"^--out '.*old.txt' exists; give --force to overwrite it, or another path$"):
        check_output(tmp_path / "old.txt", "--out", overwrite=False)
    os.symlink(tmp_path / "gone", tmp_path / "dangling")
    with pytest.raises(ValueError, match="exists"):
        check_output(tmp_path / "dangling", "--out", overwrite=False)
