import fcntl
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from sparring.kit.atomic import STALE_S, atomic_file, atomic_folder, atomic_path, clean_stale, new_folder


class Boom(Exception):
    pass


def test_file_replaces_the_old_one(tmp_path):
    path = tmp_path / "a.json"
    path.write_text("old")
    with atomic_file(path) as fh:
        fh.write("new")
        assert path.read_text() == "old"  # not in place before the block ends
    assert path.read_text() == "new"
    assert os.listdir(tmp_path) == ["a.json"]


def test_a_failed_file_write_leaves_the_old_file_and_no_temp(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(b"old")
    with pytest.raises(Boom), atomic_file(path, "wb") as fh:
        fh.write(b"half")
        raise Boom
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["a.bin"]


def test_a_failed_first_write_leaves_nothing(tmp_path):
    with pytest.raises(Boom), atomic_file(tmp_path / "new.txt") as fh:
        fh.write("half")
        raise Boom
    assert os.listdir(tmp_path) == []


def test_path_keeps_the_extension_and_the_permissions(tmp_path):
    path = tmp_path / "plot.png"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    with atomic_path(path) as tmp:
        assert tmp.endswith(".png") and os.path.dirname(tmp) == str(tmp_path)
        with open(tmp, "wb") as fh:
            fh.write(b"new")
    assert path.read_bytes() == b"new"
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    with atomic_file(tmp_path / "new.txt") as fh:
        fh.write("x")
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o666 & ~umask


def test_file_mode_must_write_a_whole_file(tmp_path):
    with pytest.raises(ValueError, match="'a'"), atomic_file(tmp_path / "x", "a"):
        pass


def test_folder_replaces_the_old_one(tmp_path):
    path = tmp_path / "model"
    path.mkdir()
    (path / "stale.txt").write_text("old")
    with atomic_folder(path) as tmp:
        assert os.listdir(tmp) == []
        os.makedirs(os.path.join(tmp, "sub"))
        with open(os.path.join(tmp, "sub", "w.txt"), "w") as fh:
            fh.write("new")
        assert (path / "stale.txt").exists()
    assert sorted(os.listdir(path)) == ["sub"]
    assert (path / "sub" / "w.txt").read_text() == "new"
    assert os.listdir(tmp_path) == ["model"]


def test_a_failed_folder_write_leaves_the_old_folder_and_no_temp(tmp_path):
    path = tmp_path / "model"
    path.mkdir()
    (path / "w.txt").write_text("old")
    with pytest.raises(Boom), atomic_folder(path) as tmp:
        with open(os.path.join(tmp, "w.txt"), "w") as fh:
            fh.write("half")
        raise Boom
    assert (path / "w.txt").read_text() == "old"
    assert os.listdir(tmp_path) == ["model"]


def test_a_failed_first_folder_write_leaves_nothing(tmp_path):
    with pytest.raises(Boom), atomic_folder(tmp_path / "new"):
        raise Boom
    assert os.listdir(tmp_path) == []


def test_a_new_folder_gets_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    with atomic_folder(tmp_path / "new"):
        pass
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o777 & ~umask


def test_new_folder_never_hands_out_a_taken_name(tmp_path):
    first = new_folder(tmp_path / "runs", "duel")
    second = new_folder(tmp_path / "runs", "duel")
    assert os.path.isdir(first) and os.path.isdir(second) and first != second
    assert os.path.basename(first).startswith("duel-")
    taken = second + "-1"
    os.mkdir(taken)  # a third in the same second skips it
    third = new_folder(tmp_path / "runs", "duel")
    assert third not in (first, second, taken) and os.listdir(third) == []


HOLD_A_WRITE = textwrap.dedent("""
    import sys, time
    from sparring.kit.atomic import atomic_path, atomic_folder
    with atomic_path(sys.argv[1]) as tmp, atomic_folder(sys.argv[2]):
        open(tmp, "w").write("half")
        print("writing", flush=True)
        time.sleep(60)
""")


def _age(path, seconds):
    """Make ``path`` look ``seconds`` old."""
    when = time.time() - seconds
    os.utime(path, (when, when))


def test_a_killed_writer_leaves_temporaries_that_the_next_write_removes(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    file, folder = tmp_path / "rec.parquet", tmp_path / "model"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_A_WRITE, str(file), str(folder)], cwd=root, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline() == "writing\n"
        left = sorted(os.listdir(tmp_path))
        assert len(left) == 2 and all(name.startswith((".rec.parquet.", ".model.")) for name in left)
        for name in left:
            _age(tmp_path / name, 2 * STALE_S)
        assert clean_stale(tmp_path) == []  # the writer is alive: its locks keep them
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    assert sorted(os.listdir(tmp_path)) == left  # a kill leaves them, never in place of the real names
    with atomic_path(file) as tmp:
        open(tmp, "w").write("whole")
    with atomic_folder(folder):
        pass
    assert sorted(os.listdir(tmp_path)) == ["model", "rec.parquet"]


def test_clean_stale_removes_only_old_unlocked_names_of_its_own_pattern(tmp_path):
    ours = [".a.json.abcd_123.tmp.json", ".step-000000000064.k2j4l5m6.tmp", ".latest.zzzzzzzz.tmp"]
    theirs = [
        ".a.json.ABCDEFGH.tmp.json",
        ".a.json.abcd1234.tmp.csv",
        "a.json.abcd1234.tmp.json",
        ".notes.tmp",
        ".x.abcd1234.tmp.old",
        "report.tmp",
    ]  # an .old without its folder is the only copy: kept
    young = ".b.json.abcd1234.tmp.json"
    os.mkdir(tmp_path / ours[1])  # a folder of atomic_folder
    for name in ours + theirs + [young]:
        if name != ours[1]:
            (tmp_path / name).write_text("x")
        if name != young:
            _age(tmp_path / name, 2 * STALE_S)
    locked = tmp_path / ".c.json.abcd1234.tmp.json"
    locked.write_text("x")
    _age(locked, 2 * STALE_S)
    with open(locked) as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        removed = clean_stale(tmp_path)
    assert sorted(os.path.basename(p) for p in removed) == sorted(ours)
    assert sorted(os.listdir(tmp_path)) == sorted(theirs + [young, locked.name])
    assert clean_stale(tmp_path, names=["c.json"]) == [str(locked)]  # unlocked now; only that target's
