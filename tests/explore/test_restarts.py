"""Restarts inside training: the right record, the right recurrent state, and a run that resumes with its archive."""

import numpy as np
import pytest
import torch

import sparring
from sparring.cli import build_parser, main
from sparring.explore.archive import Archive
from sparring.explore.restarts import ArchiveRestarts, rows_per_env
from sparring.players.policy import policy_for
from sparring.train.checkpoint import restore_trainer, save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.rollout import Rollout
from sparring.train.trainer import Trainer


def restarting_rollout(num_envs=6, every=1):
    """A recurrent policy's rollout on serpent with archive restarts (fraction 1) as its episode-end hook."""
    torch.manual_seed(0)  # the sampled actions decide which episodes end within a rollout
    env = sparring.make("serpent", num_envs=num_envs, seed=1)
    cfg = make_train_config(None, {"hidden": 8, "recurrence": "mingru"})
    policy = policy_for(env, cfg)
    rollout = Rollout(env, policy, 8, np.arange(env.rows))
    restarts = ArchiveRestarts(env, rollout.rows_np, rollout.state, fraction=1.0, every=every, seed=0)
    rollout.episode_end = restarts
    return env, rollout, restarts


def test_a_restart_loads_the_chosen_record_and_its_recurrent_state():
    env, rollout, restarts = restarting_rollout()
    rollout.collect()  # fills the archive with states met along the way, recurrent states included
    archive = restarts.archive
    assert len(archive) > 1 and archive.states.shape == (len(archive), 1, 1, 8)
    assert np.abs(archive.states).sum() > 0
    envs, cells = np.array([1, 4]), np.array([len(archive) - 1, 0])
    before = env.snapshot()
    (states,) = restarts.load_cells(envs, cells)
    after = env.snapshot()
    for k, (e, c) in enumerate(zip(envs, cells)):
        expected = archive.records[c].copy()
        expected["rng"] = before["rng"][e]  # the env keeps its own dice
        assert after[e].tobytes() == expected.tobytes()
        assert np.array_equal(states[k], archive.states[c, 0, 0])
    untouched = [0, 2, 3, 5]
    assert after[untouched].tobytes() == before[untouched].tobytes()
    assert restarts.from_cell[envs].tolist() == cells.tolist()


def test_ended_episodes_restart_from_the_archive_at_the_end_of_the_rollout():
    env, rollout, restarts = restarting_rollout(every=100)
    archive = restarts.archive
    archive.states[:] = np.arange(1, archive.states.size + 1, dtype=np.float32).reshape(archive.states.shape)
    dying = env.snapshot()
    dying["hp"] = 1  # most of these episodes end at once
    env.restore(None, dying)
    rollout.collect()
    restarted = np.flatnonzero(restarts.from_cell >= 0)
    assert restarts.metrics()["archive/restarts"] == restarted.size > 0
    assert not rollout.just_done[restarted].any()  # they carry on from the cell's memory at the next rollout
    for e in restarted:
        assert torch.equal(rollout.state[0][e], torch.from_numpy(archive.states[restarts.from_cell[e], 0, 0]))


def test_ended_restarts_are_counted_against_their_cell():
    env, rollout, restarts = restarting_rollout(4, every=4)
    dying = env.snapshot()
    dying["hp"] = 1  # one tick from death under most attacks; let the env end these episodes
    restarts.archive.insert(dying, 0.0, np.zeros((4, 1, 1, 8), np.float32))
    cell = restarts.archive.index[int(env.env_cls.cell_keys(dying[:1])[0])]
    restarts.load_cells(np.arange(4), np.full(4, cell))
    for _ in range(40):
        rollout.collect()
        if restarts.archive.restarts[cell] >= 4:
            break
    assert restarts.archive.restarts[cell] >= 4 and restarts.archive.successes[cell] == 0
    metrics = restarts.metrics()
    assert metrics["archive/cells"] == len(restarts.archive) and metrics["archive/restarts"] >= 0


def test_training_with_the_archive_resumes_with_it_and_explores_from_its_checkpoint(tmp_path, capsys):
    args, _ = build_parser().parse_known_args(["train", "serpent", "--archive"])
    assert args.archive == 0.25  # `--archive` alone: the default fraction
    cfg = make_train_config(
        None,
        {
            "num_envs": 16,
            "horizon": 16,
            "minibatch_size": 128,
            "hidden": 16,
            "threads": 1,
            "recurrence": "mingru",
            "archive_fraction": 0.5,
            "archive_every": 2,
        },
    )
    trainer = Trainer("serpent", cfg)
    metrics = [trainer.iterate() for _ in range(3)][-1]
    assert metrics["archive/cells"] == len(trainer.restarts.archive) > 1 and "archive/restarts" in metrics
    checkpoint = save_checkpoint(str(tmp_path), trainer)
    saved = trainer.restarts

    resumed = Trainer("serpent", cfg)
    restore_trainer(resumed, checkpoint)
    archive = resumed.restarts.archive
    assert archive.records.tobytes() == saved.archive.records.tobytes() and archive.index == saved.archive.index
    assert np.array_equal(archive.states, saved.archive.states) and np.array_equal(archive.chosen, saved.archive.chosen)
    assert np.array_equal(resumed.restarts.from_cell, saved.from_cell) and resumed.restarts.ticks == saved.ticks
    assert resumed.restarts.rng.random() == saved.rng.random()  # the same cell draws follow
    assert resumed.iterate()["archive/cells"] >= len(saved.archive)

    out = tmp_path / "explored"
    assert (
        main(["explore", "serpent", "--policy", str(tmp_path), "--steps", "600", "--num-envs", "8", "--out", str(out)])
        == 0
    )
    text = capsys.readouterr().out
    assert "cells found:" in text and "frontier:" in text
    archive, extra = Archive.load(str(out), sparring.kit.registry.get("serpent"))
    assert archive.state_shape == (1, 1, 16) and extra["steps"] == 600 and len(archive) > 1


def test_training_can_start_from_an_explored_archive(tmp_path):
    explored = tmp_path / "explored"
    assert main(["explore", "serpent", "--steps", "400", "--num-envs", "8", "--out", str(explored)]) == 0
    saved, _ = Archive.load(str(explored), sparring.kit.registry.get("serpent"))
    base = {
        "num_envs": 8,
        "horizon": 8,
        "minibatch_size": 64,
        "hidden": 8,
        "threads": 1,
        "recurrence": "mingru",
        "archive_start": str(explored),
    }
    trainer = Trainer("serpent", make_train_config(None, {**base, "archive_fraction": 1.0}))
    archive = trainer.restarts.archive
    assert len(archive) >= len(saved) and archive.index.items() >= saved.index.items()
    assert (archive.visits[: len(saved)] >= saved.visits).all() and (archive.score[: len(saved)] >= saved.score).all()
    assert archive.states.shape == (len(archive), 1, 1, 8) and not archive.states[: len(saved)].any()
    trainer.iterate()
    with pytest.raises(ValueError, match="archive_fraction"):
        Trainer("serpent", make_train_config(None, base))


def test_rows_per_env_needs_the_same_trained_seats_in_every_env():
    assert rows_per_env(np.array([0, 2, 4]), 3, 2) == 1  # seat 0 of three two-seat envs
    assert rows_per_env(np.array([0, 1, 2, 3]), 2, 2) == 2
    with pytest.raises(ValueError, match="same trained seats in every env"):
        rows_per_env(np.array([0, 1, 2]), 2, 2)
