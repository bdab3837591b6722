"""The flag types of sparring.cli.values: ranges, finite numbers, names, paths; and the plain types the parser
makes safe."""

import argparse
import math
import os

import pytest

from sparring.cli import main
from sparring.cli.values import (
    count,
    input_file,
    input_path,
    inside,
    integer,
    name,
    number,
    plain_type,
    seed,
    text,
)


def refused(parse, value: str, match: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=match):
        parse(value)


def test_integers_have_ranges_and_take_only_whole_numbers():
    parse = count(1, 100)
    assert parse("7") == 7 and parse("1e2") == 100 and parse(" 3 ") == 3
    for bad in ("0", "101", "1.5", "nan", "inf", "", "x", "\u2603", str(2**80)):
        refused(parse, bad, r"must be an integer in \[1, 100\]")
    assert seed()(str(2**63 - 1)) == 2**63 - 1
    for bad in ("-5", str(2**63), str(2**80)):
        refused(seed(), bad, "must be an integer >= 0")
    assert integer()("-5") == -5
    refused(integer(), str(2**80), "must be an integer")
    assert (count(0, 10).kind, count(0, 10).low, count(0, 10).high) == ("int", 0, 10)


def test_numbers_are_finite_and_in_range():
    parse = number(0, 1, above=True)
    assert parse("0.5") == 0.5 and parse("1") == 1.0
    for bad in ("0", "1.5", "nan", "inf", "-inf", "1e400", "", "x"):
        refused(parse, bad, r"must be a finite number in \(0, 1\]")
    assert plain_type(float)("-3.5") == -3.5
    for bad in ("nan", "inf", "-inf", "1e400"):
        refused(plain_type(float), bad, "must be a finite number")
    assert math.isinf(number(0).high) and number(0).kind == "float"


def test_text_and_names():
    assert text()("scripted:greedy") == "scripted:greedy" and plain_type(None)("x") == "x"
    for bad in ("", "   ", "a\nb", "x" * 5000):
        refused(text(), bad, "must be a non-empty text")
    assert name()("my-sweep_1.b") == "my-sweep_1.b"
    for bad in ("", "..", "../x", "a/b", "/abs", ".hidden", "\u2603", "x" * 101):
        refused(name(), bad, "must be a name")


def test_paths_read(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    os.symlink("/dev/zero", tmp_path / "zero")
    assert input_file()(str(tmp_path / "f.txt")) == str(tmp_path / "f.txt")
    refused(input_file(), str(tmp_path / "none"), "cannot be read .No such file or directory.; give an existing file")
    refused(input_file(), str(tmp_path), "is a folder")
    refused(input_file(), str(tmp_path / "zero"), r"is not a regular file \(a device, pipe or socket\)")
    (tmp_path / "rec.parquet.parts").mkdir()
    assert input_file(alternatives=(".parts",))(str(tmp_path / "rec.parquet")) == str(tmp_path / "rec.parquet")
    assert input_path()(str(tmp_path)) == str(tmp_path)
    refused(input_path(), str(tmp_path / "zero"), "not a regular file or folder")
    refused(input_path(), "", "must be a path")


def test_inside_keeps_a_name_in_its_folder(tmp_path):
    assert inside(str(tmp_path), "a", "--name") == str(tmp_path / "a")
    for bad in ("../a", "/etc", "a/../../b"):
        with pytest.raises(ValueError, match="leads outside"):
            inside(str(tmp_path), bad, "--name")


def test_an_existing_output_folder_needs_force_or_resume(tmp_path, capsys):
    (tmp_path / "arch").mkdir()
    (tmp_path / "arch" / "archive.json").write_text("{}")
    assert main(["explore", "serpent", "--out", str(tmp_path / "arch"), "--steps", "5"]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "is a folder that is not empty; give --force" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "error",
    [MemoryError(), RuntimeError("[enforce fail at alloc_cpu.cpp:119] DefaultCPUAllocator: can't allocate memory")],
)
def test_running_out_of_memory_is_one_line_not_a_traceback(monkeypatch, capsys, error):
    from sparring.cli import envs

    def fail(args, extra):
        raise error

    monkeypatch.setattr(envs, "cmd_list", fail)
    assert main(["list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sparring: list: ran out of memory") and len(err.strip().splitlines()) == 1


def test_other_runtime_errors_still_raise(monkeypatch):
    from sparring.cli import envs

    def fail(args, extra):
        raise RuntimeError("a bug")

    monkeypatch.setattr(envs, "cmd_list", fail)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["list"])
