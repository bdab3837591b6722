"""Crash safety (a SIGKILLed recording still loads) and clear errors for files that are not ours."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pyarrow.parquet as pq
import pytest

import sparring
from sparring.kit.atomic import STALE_S
from sparring.record import Recorder, Recording, RecordingError, load
from tests.record.conftest import record

RECORD_FOREVER = textwrap.dedent("""
    import sys
    import sparring
    from sparring.players import make_player
    from sparring.record import record_episodes
    env = sparring.make("squared", num_envs=4, seed=9)
    record_episodes(env, make_player("random", env, 0), 10**9, sys.argv[1], group_rows=40)
""")


def test_a_killed_recording_leaves_complete_row_groups_that_load(tmp_path):
    out = str(tmp_path / "killed.parquet")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.Popen([sys.executable, "-c", RECORD_FOREVER, out], cwd=root)
    parts = out + ".parts"
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not (os.path.isdir(parts) and len(os.listdir(parts)) >= 3):
            assert proc.poll() is None, "the recording process died on its own"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)  # mid-way: more segments are being written right now
    finally:
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL and not os.path.exists(out)
    with pytest.warns(RuntimeWarning, match="was not closed"):
        table = load(out)
    assert table.num_rows >= 3 * 40
    with pytest.warns(RuntimeWarning):
        rec = Recording(out)
    ids = rec.episode_ids()
    assert ids == list(range(len(ids)))  # whole episodes only, in order
    live = rec.make_env(autoreset=False)
    for k in ids[::3]:
        ep = rec.episode(k)
        assert ep.ticks[0] == 0 and (ep.terminals[-1].any() or ep.truncations[-1].any())
        live.restore([0], ep.states[:1])
        for t in range(ep.length):
            live.step(ep.actions[t])
        assert live.records.tobytes() == ep.states[-1:].tobytes()
    env = sparring.make("squared")
    with pytest.raises(FileExistsError, match=r"killed.parquet.parts exists: an earlier recording"):
        Recorder(env, out)


def test_close_merges_segments_and_removes_them(tmp_path):
    out = record(tmp_path / "m.parquet", "toy_walk", 10, group_rows=20)
    assert os.path.isfile(out) and not os.path.exists(out + ".parts")
    assert pq.ParquetFile(out).metadata.num_row_groups > 1
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(out).st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's owner-only mode


def _rewrite_meta(src: str, dst: str, **changes) -> None:
    table = pq.read_table(src)
    meta = dict(table.schema.metadata)
    for key, value in changes.items():
        meta[f"sparring.{key}".encode()] = json.dumps(value).encode()
    pq.write_table(table.replace_schema_metadata(meta), dst)


def test_other_versions_envs_and_layouts_fail_clearly(tmp_path, squared_file):
    _rewrite_meta(squared_file, str(tmp_path / "v99.parquet"), schema_version=99)
    with pytest.raises(RecordingError, match=r"schema version 99; this sparring .* reads version 1 only"):
        load(str(tmp_path / "v99.parquet"))
    with pytest.raises(RecordingError, match=r"squared.parquet records env 'squared', not 'toy_walk'"):
        load(squared_file, env="toy_walk")
    with pytest.raises(RecordingError, match=r"records env 'squared', not 'toy_walk'"):
        Recording(squared_file, env="toy_walk")
    layout = json.loads(Recording(squared_file).meta.record_dtype)
    layout["formats"][3] = "<i2"
    _rewrite_meta(
        squared_file, str(tmp_path / "layout.parquet"), record_dtype=json.dumps(layout, separators=(",", ":"))
    )
    with pytest.raises(RecordingError, match=r"has changed its state record .*row <i2 -> <i4"):
        Recording(str(tmp_path / "layout.parquet"))
    _rewrite_meta(squared_file, str(tmp_path / "gone.parquet"), env="no_such_env")
    with pytest.raises(RecordingError, match=r"records env 'no_such_env', which is not registered"):
        Recording(str(tmp_path / "gone.parquet"))


def test_foreign_and_missing_files_fail_clearly(tmp_path, squared_file):
    pq.write_table(pq.read_table(squared_file).replace_schema_metadata({}), str(tmp_path / "plain.parquet"))
    with pytest.raises(RecordingError, match=r"plain.parquet is not a sparring recording"):
        load(str(tmp_path / "plain.parquet"))
    with pytest.raises(FileNotFoundError, match=r"no recording at .*nothing.parquet"):
        load(str(tmp_path / "nothing.parquet"))
    os.makedirs(tmp_path / "empty.parquet.parts")
    with pytest.raises(FileNotFoundError, match=r"holds no completed row group"):
        load(str(tmp_path / "empty.parquet"))
    with pytest.raises(RecordingError, match=r"has no episode 99; recorded episodes: 0..7"):
        Recording(squared_file).episode(99)


def test_stored_states_restore_byte_identical(squared_file):
    states = Recording(squared_file).episode(0).states
    assert states.dtype.names[-1] == "_pad0"  # squared's alignment gap is an explicit, copied field
    assert (states["_pad0"] == 0).all()


def test_a_merge_killed_midway_leaves_a_temporary_that_the_next_open_or_write_removes(tmp_path, squared_file):
    out = tmp_path / "r.parquet"
    shutil.copy(squared_file, out)
    stray = tmp_path / ".r.parquet.k2j4l5m6.tmp.parquet"  # what a SIGKILL during close's merge leaves
    for name in (stray, tmp_path / ".mine.parquet.k2j4l5m6.tmp.parquet", tmp_path / "notes.tmp.parquet"):
        name.write_bytes(b"half")
        os.utime(name, (time.time() - 2 * STALE_S,) * 2)
    assert load(str(out)).num_rows > 0 and not stray.exists()
    assert sorted(os.listdir(tmp_path)) == [".mine.parquet.k2j4l5m6.tmp.parquet", "notes.tmp.parquet", "r.parquet"]
    record(tmp_path / "mine.parquet", "squared", 1, num_envs=1)  # writing mine.parquet removes its own stray
    assert sorted(os.listdir(tmp_path)) == ["mine.parquet", "notes.tmp.parquet", "r.parquet"]
