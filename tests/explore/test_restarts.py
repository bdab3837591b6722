"""Restarts inside training: the right record, the right recurrent state, and a run that resumes with its archive."""

import json
import os

import numpy as np
import torch

import sparring
from sparring.cli import main
from sparring.explore.archive import Archive
from sparring.explore.restarts import ArchiveRestarts
from sparring.train.policy import policy_for
from sparring.train.config import make_train_config
from sparring.train.rollout import Rollout

TINY = ["--train.num_envs", "16", "--train.horizon", "16", "--train.minibatch_size", "128", "--train.hidden", "16",
        "--train.threads", "1", "--train.eval_episodes", "0", "--train.tensorboard", "false",
        "--train.recurrence", "mingru", "--train.archive_every", "2", "--train.checkpoint_s", "0"]


def recurrent_rollout(num_envs=6):
    env = sparring.make("serpent", num_envs=num_envs, seed=1)
    cfg = make_train_config(None, {"hidden": 8, "recurrence": "mingru"})
    policy = policy_for(env, cfg)
    return env, Rollout(env, policy, 8, np.arange(env.rows))


def test_a_restart_loads_the_chosen_record_and_its_recurrent_state():
    env, rollout = recurrent_rollout()
    restarts = ArchiveRestarts(env, rollout, fraction=1.0, every=1, seed=0)
    rollout.collect()  # fills the archive with states met along the way, recurrent states included
    archive = restarts.archive
    assert len(archive) > 1 and archive.states.shape == (len(archive), 1, 1, 8)
    assert np.abs(archive.states).sum() > 0
    envs, cells = np.array([1, 4]), np.array([len(archive) - 1, 0])
    before = env.snapshot()
    restarts.restart(envs, cells)
    after = env.snapshot()
    for e, c in zip(envs, cells):
        expected = archive.records[c].copy()
        expected["rng"] = before["rng"][e]  # the env keeps its own dice
        assert after[e].tobytes() == expected.tobytes()
        assert torch.equal(rollout.state[0][e], torch.from_numpy(archive.states[c, 0, 0]))
    untouched = [0, 2, 3, 5]
    assert after[untouched].tobytes() == before[untouched].tobytes()
    assert not rollout.just_done[envs].any()
    assert restarts.from_cell[envs].tolist() == cells.tolist()


def test_ended_restarts_are_counted_against_their_cell():
    env, rollout = recurrent_rollout(4)
    restarts = ArchiveRestarts(env, rollout, fraction=1.0, every=4, seed=0)
    dying = env.snapshot()
    dying["hp"] = 1  # one tick from death under most attacks; let the env end these episodes
    restarts.archive.insert(dying, 0.0, np.zeros((4, 1, 1, 8), np.float32))
    cell = restarts.archive.index[int(env.env_cls.cell_keys(dying[:1])[0])]
    restarts.restart(np.arange(4), np.full(4, cell))
    for _ in range(40):
        rollout.collect()
        if restarts.archive.restarts[cell] == 4:
            break
    assert restarts.archive.restarts[cell] == 4 and restarts.archive.successes[cell] == 0
    metrics = restarts.after_update()
    assert metrics["archive/cells"] == len(restarts.archive) and metrics["archive/restarts"] >= 0


def test_training_with_the_archive_runs_resumes_and_explores_from_its_checkpoint(tmp_path, capsys):
    assert main(["train", "serpent", "--steps", "512", "--runs", str(tmp_path), "--archive", "0.5", *TINY]) == 0
    run = str(tmp_path / os.listdir(tmp_path)[0])
    rows = [json.loads(line) for line in open(os.path.join(run, "metrics.jsonl"))]
    assert rows[-1]["archive/cells"] > 1 and "archive/restarts" in rows[-1]
    checkpoint = os.path.join(run, "checkpoints", open(os.path.join(run, "checkpoints", "latest")).read().strip())
    saved, _ = Archive.load(checkpoint, sparring.kit.registry.get("serpent"))
    assert len(saved) == rows[-1]["archive/cells"]

    assert main(["train", "--resume", run, "--steps", "1024"]) == 0
    rows = [json.loads(line) for line in open(os.path.join(run, "metrics.jsonl"))]
    assert [r["train/step"] for r in rows] == [256, 512, 768, 1024]
    assert rows[-1]["archive/cells"] >= len(saved)  # the resumed archive grew from the saved one
    capsys.readouterr()

    out = tmp_path / "explored"
    assert main(["explore", "serpent", "--policy", run, "--steps", "600", "--num-envs", "8", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "cells found:" in text and "frontier:" in text
    archive, extra = Archive.load(str(out), sparring.kit.registry.get("serpent"))
    assert archive.state_shape == (1, 1, 16) and extra["steps"] == 600 and len(archive) > 1
