"""Checkpoints of several policies: files of each policy's own, exact resume with a league, play by checkpoint:RUN."""

import json
import os

import numpy as np
import pytest
import torch

from sparring.kit import BatchedEnv, registry
from sparring.kit.files import DamagedFile
from sparring.players.load import load_policy
from sparring.players.make import make_player
from sparring.players.seats import SeatPlayers
from sparring.train.checkpoint import restore_trainer, save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer
from tests.train import toys  # noqa: F401  (registers the toy envs)

TINY = {"num_envs": 32, "horizon": 16, "minibatch_size": 128, "hidden": 32, "threads": 1, "pool_every": 2}


def weights(trainer):
    return [p.state_dict() for p in trainer.population.policies]


@pytest.mark.parametrize(
    "settings",
    [
        {"policies": "seat"},
        {"policies": "groups:2", "league": "self", "league_seats": 1},
        {
            "policies": "1,0,0,1",
            "league": "self,scripted:right,scripted:right:0.3,random",
            "league_seats": 2,
            "recurrence": "lstm",
        },
    ],
)
def test_resume_continues_exactly(tmp_path, settings):
    cfg = make_train_config(None, {**TINY, **settings, "steps": 10**6})
    straight = Trainer("toy_roles", cfg)
    for _ in range(3):
        straight.iterate()
    folder = save_checkpoint(str(tmp_path), straight)
    for _ in range(3):
        straight.iterate()

    resumed = Trainer("toy_roles", cfg)
    assert restore_trainer(resumed, folder)["step"] == resumed.global_step
    for _ in range(3):
        resumed.iterate()
    for a, b in zip(weights(straight), weights(resumed)):
        for name, tensor in a.items():
            assert torch.equal(tensor, b[name]), name
    if straight.opponent is not None:  # the league's PFSP statistics and snapshots too
        assert straight.opponent.state()["json"] == resumed.opponent.state()["json"]


def test_each_policy_has_its_own_files_and_meta_maps_the_seats(tmp_path):
    trainer = Trainer("toy_roles", make_train_config(None, {**TINY, "policies": "1,1,0,0", "steps": 10**6}))
    trainer.iterate()
    folder = save_checkpoint(str(tmp_path), trainer)
    assert sorted(os.listdir(folder)) == [
        "meta.json",
        "optimizer-0.pt",
        "optimizer-1.pt",
        "policy-0.safetensors",
        "policy-1.safetensors",
        "records.npy",
        "rng.pt",
        "state.safetensors",
    ]
    with open(os.path.join(folder, "meta.json")) as fh:
        meta = json.load(fh)
    assert meta["policies"] == {"count": 2, "seats": [1, 1, 0, 0]}
    assert sorted(meta["checksums"]) == sorted(set(os.listdir(folder)) - {"meta.json"})


def test_a_damaged_policy_file_or_another_mapping_is_refused(tmp_path):
    cfg = make_train_config(None, {**TINY, "policies": "seat", "steps": 10**6})
    trainer = Trainer("toy_roles", cfg)
    trainer.iterate()
    folder = save_checkpoint(str(tmp_path), trainer)
    other = Trainer("toy_roles", make_train_config(None, {**TINY, "policies": "groups:2", "steps": 10**6}))
    with pytest.raises(ValueError, match="do not match this run's, policy per seat \\[0, 0, 1, 1\\]"):
        restore_trainer(other, folder)
    with pytest.raises(ValueError, match="trained with train.policies 'seat', this run with 'shared'"):
        restore_trainer(Trainer("toy_roles", make_train_config(None, {**TINY, "steps": 10**6})), folder)
    with open(os.path.join(folder, "policy-2.safetensors"), "r+b") as fh:
        fh.seek(100)
        fh.write(b"\xff\xff")
    with pytest.raises(DamagedFile, match="policy-2.safetensors"):
        restore_trainer(Trainer("toy_roles", cfg), folder)


def test_checkpoint_run_plays_each_seat_with_its_policy(tmp_path):
    cfg = make_train_config(None, {**TINY, "policies": "1,1,0,0", "steps": 10**6})
    trainer = Trainer("toy_roles", cfg)
    trainer.iterate()
    save_checkpoint(str(tmp_path), trainer)
    env = BatchedEnv(registry.get("toy_roles"), num_envs=8, seed=3)
    player = make_player(f"checkpoint:{tmp_path}", env, greedy=True)
    assert isinstance(player, SeatPlayers) and player.name.endswith(":greedy")
    rows = np.arange(env.rows)
    actions = player.act(env, rows)
    obs, mask = torch.from_numpy(env.obs), torch.from_numpy(env.mask)
    for policy, seats in zip(trainer.population.policies, ([2, 3], [0, 1])):
        mine = rows[np.isin(rows % 4, seats)]
        with torch.inference_mode():
            want, _, _, _ = policy.act(obs[mine], mask[mine], (), None, greedy=True)
        assert (actions[mine] == want.numpy()).all()
    assert np.isfinite(player.logp).all() and len(player.value) == env.rows
    with pytest.raises(ValueError, match="holds 2 policies, one per group of seats"):
        load_policy(str(tmp_path))
