"""Crafted files through the commands that load them: a planted state value is one line and exit 2, never a crash.

Each case plants one bad value into the states of a good checkpoint, recording, archive or state set,
recomputes every checksum (as someone who knows the format would; see ``tests/trust_plant.py``) and runs
the command that loads the file in a subprocess (``python -m sparring ...``), where a crash is a
negative exit code instead of the end of the test run. Before the trust boundary, the first case of
each kind (the ones the issue reported) ended in SIGSEGV. The bulk of the bad values, every field of
every env, is tested in process in ``tests/kit/test_trust.py``.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from sparring.explore.explore import Explorer
from sparring.kit import BatchedEnv, registry
from sparring.kit.state_set import save_state_set
from sparring.train.checkpoint import save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer
from tests import trust_plant
from tests.kit.trust_fuzz import reached_states
from tests.record.conftest import record

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
SMALL = [
    "--train.num_envs",
    "2",
    "--train.horizon",
    "8",
    "--train.minibatch_size",
    "16",
    "--train.hidden",
    "8",
    "--train.threads",
    "1",
    "--train.eval_episodes",
    "0",
]


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A squared run (one checkpoint), recordings of squared, duel and town, serpent and gauntlet archives, and
    a squared state set, all good."""
    root = tmp_path_factory.mktemp("good")
    trainer = Trainer("squared", make_train_config(None, TINY))
    trainer.iterate()
    save_checkpoint(str(root / "run"), trainer)
    trainer.close()
    (root / "run" / "metrics.jsonl").write_text("")
    for env in ("squared", "duel", "town"):
        record(root / f"{env}.parquet", env, 1, num_envs=1)
    for env in ("serpent", "gauntlet"):
        Explorer(env, num_envs=2, seed=0, segment=10).run(60).archive.save(str(root / f"{env}-archive"), {"steps": 60})
    cls = registry.get("squared")
    save_state_set(
        root / "squared.npz", cls, reached_states(cls, 0, steps=20, num_envs=4)[:8], BatchedEnv(cls).config.__dict__
    )
    return root


# (kind, file in the good folder, field, value, record, the command's arguments after `sparring`)
CASES = [
    ("checkpoint", "run", "target", 10**8, 0, ["train", "--resume", "{file}"]),  # the case
    ("checkpoint", "run", "phase", 7, 5, ["train", "--resume", "{file}"]),
    (
        "recording",
        "squared.parquet",
        "target",
        10**8,
        None,
        ["fork", "{file}", "--episode", "0", "--tick", "0", "--policy", "random", "--out", "{out}/f.parquet"],
    ),
    (
        "recording",
        "duel.parquet",
        "gear",
        -1,
        None,
        ["fork", "{file}", "--episode", "0", "--tick", "0", "--policy", "random", "--out", "{out}/f.parquet"],
    ),
    (
        "recording",
        "town.parquet",
        "last",
        99999,
        None,
        ["fork", "{file}", "--episode", "0", "--tick", "0", "--policy", "random", "--out", "{out}/f.parquet"],
    ),
    (
        "archive",
        "serpent-archive",
        "rotation",
        10**8,
        None,
        ["explore", "serpent", "--resume", "{file}", "--steps", "40", "--num-envs", "2", "--json"],
    ),  # the issue's
    (
        "archive",
        "serpent-archive",
        "row",
        10**8,
        None,
        ["explore", "serpent", "--resume", "{file}", "--steps", "40", "--num-envs", "2", "--json"],
    ),
    (
        "archive",
        "gauntlet-archive",
        "m_type",
        100,
        0,
        [
            "train",
            "gauntlet",
            "--steps",
            "32",
            "--runs",
            "{out}",
            "--train.archive_fraction",
            "0.5",
            "--train.archive_start",
            "{file}",
            *SMALL,
        ],
    ),
    (
        "states",
        "squared.npz",
        "rng",
        0,
        3,
        ["train", "squared", "--steps", "32", "--runs", "{out}", "--train.curriculum", "states:{file}", *SMALL],
    ),
]


@pytest.mark.parametrize(
    "kind, name, field, value, index, argv", CASES, ids=[f"{c[0]}-{c[1].split('.')[0]}-{c[2]}" for c in CASES]
)
def test_a_planted_state_value_is_one_line_and_exit_2(good, tmp_path, kind, name, field, value, index, argv):
    work = tmp_path / name
    (shutil.copytree if os.path.isdir(good / name) else shutil.copy)(good / name, work)
    named = trust_plant.KINDS[kind](str(work), field, value, index)
    out = tmp_path / "out"
    command = [a.format(file=work, out=out) for a in argv]
    env = {**os.environ, "PYTHONPATH": ROOT}
    done = subprocess.run(
        [sys.executable, "-m", "sparring", *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (command, done.returncode, done.stderr[-1500:])  # a crash would be -11
    assert len(lines) == 1 and lines[0].startswith("sparring: "), lines
    for word in (named, f"state field {field}", str(value)):
        assert word in lines[0], (word, lines[0])
    assert not out.exists() or not any(os.scandir(out)), list(os.scandir(out))


def test_the_good_files_still_load(good):
    """The same files, unplanted, pass the checks (the refusals above are the planted values' doing)."""
    from sparring.explore.archive import Archive
    from sparring.kit.state_set import load_state_set
    from sparring.record.reader import Recording

    for env in ("squared", "duel", "town"):
        recording = Recording(str(good / f"{env}.parquet"))
        assert len(recording.episode(0).states) >= 2
    for env in ("serpent", "gauntlet"):
        assert len(Archive.load(str(good / f"{env}-archive"), registry.get(env))[0]) > 0
    assert len(load_state_set(good / "squared.npz", registry.get("squared")).records) == 8
    latest = (good / "run" / "checkpoints" / "latest").read_text().strip()
    assert np.load(good / "run" / "checkpoints" / latest / "records.npy").shape == (8,)


def test_grpo_start_states_refuse_a_planted_recording_or_archive(good, tmp_path):
    """GRPO's groups start from recorded ticks or archive cells: planted values are refused before any restore."""
    from sparring.kit.trust import BadState
    from sparring.lm.starts import StartStates

    shutil.copy(good / "town.parquet", tmp_path / "town.parquet")
    trust_plant.recording(str(tmp_path / "town.parquet"), "slots", 64)
    with pytest.raises(
        BadState,
        match=r"town.parquet: episode 0 tick 0: town state field slots\[0, 0\] is 64; "
        r"valid: -1..7",
    ):
        StartStates(f"recording:{tmp_path / 'town.parquet'}", "town", {})
    Explorer("town", num_envs=2, seed=0, segment=10).run(40).archive.save(str(tmp_path / "arch"), {})
    trust_plant.archive(str(tmp_path / "arch"), "needs", float("nan"), None)
    with pytest.raises(BadState, match=r"archive.npz: cell 0 \(.*\): town state field needs\[0, 0\] is nan"):
        StartStates(f"archive:{tmp_path / 'arch'}", "town", {})
