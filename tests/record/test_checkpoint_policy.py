"""Recording and forking with a trained checkpoint (the trainer's checkpoint format)."""

import numpy as np
import pytest

from sparring.cli import main
from sparring.record import Recording, fork
from sparring.train.checkpoint import save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer
from tests.record.conftest import record

TINY = {"num_envs": 8, "horizon": 8, "minibatch_size": 64, "hidden": 16, "threads": 1}


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """An (untrained) recurrent squared policy saved as the trainer saves it."""
    trainer = Trainer("squared", make_train_config(None, {**TINY, "recurrence": "lstm"}), env_config={"size": 5})
    return save_checkpoint(str(tmp_path_factory.mktemp("run")), trainer)


def test_record_and_fork_with_a_checkpoint(tmp_path, capsys, checkpoint):
    out = str(tmp_path / "c.parquet")
    assert main(["record", "squared", "--checkpoint", checkpoint, "--episodes", "3", "--out", out, "--seed", "4"]) == 0
    assert "recorded 3 episodes of squared (player=checkpoint:" in capsys.readouterr().out
    rec = Recording(out)
    assert rec.config.size == 5  # the env config the checkpoint was trained with
    ep = rec.episode(0)
    assert np.isfinite(ep.logp).all() and (ep.logp <= 0).all() and np.isfinite(ep.value).all()
    assert rec.meta.policy.startswith("player=checkpoint:") and "@step0" in rec.meta.policy
    t = int(ep.ticks[ep.length // 2])
    forked = str(tmp_path / "f.parquet")
    assert fork(out, 0, t, f"checkpoint:{checkpoint}", forked, episodes=2, greedy=True) == 2
    greedy = Recording(forked)
    assert greedy.meta.policy.endswith(":greedy")
    first, second = greedy.episode(0), greedy.episode(1)
    # same state, greedy policy, memory restarted at each fork: both continuations are the same
    assert np.array_equal(first.actions, second.actions) and first.ticks[0] == t
    with pytest.raises(ValueError, match=r"checkpoint .*was trained on env 'squared', not 'toy_walk'"):
        fork(
            record(tmp_path / "w.parquet", "toy_walk", 1, num_envs=1),
            0,
            0,
            f"checkpoint:{checkpoint}",
            str(tmp_path / "x.parquet"),
        )
