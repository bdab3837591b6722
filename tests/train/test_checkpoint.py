"""Checkpoints: exact resume (weights, optimizer, RNG, env records, recurrent and self-play state), clear errors."""

import json
import os

import pytest
import torch

from sparring.kit.files import DamagedFile, file_checksum
from sparring.players.load import load_policy
from sparring.train.checkpoint import FILES, restore_trainer, save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer
from tests.train import toys  # noqa: F401  (registers the toy envs)

TINY = {"num_envs": 32, "horizon": 16, "minibatch_size": 128, "hidden": 32, "threads": 1, "pool_every": 2}


def run(trainer, iterations):
    for _ in range(iterations):
        trainer.iterate()


@pytest.mark.parametrize(
    "env, recurrence, opponent, optimizer, critic",
    [
        ("squared", "none", None, "adam", "shared"),
        ("squared", "none", None, "adam", "separate"),
        ("toy_masked_pick", "lstm", None, "muon", "shared"),
        ("toy_match", "mingru", "self", "adam", "shared"),
    ],
)
def test_resume_continues_exactly(tmp_path, env, recurrence, opponent, optimizer, critic):
    cfg = make_train_config(
        None, {**TINY, "recurrence": recurrence, "optimizer": optimizer, "critic": critic, "steps": 32 * 16 * 6}
    )
    straight = Trainer(env, cfg, opponent=opponent)
    run(straight, 3)
    folder = save_checkpoint(str(tmp_path), straight)
    run(straight, 3)

    resumed = Trainer(env, cfg, opponent=opponent)
    meta = restore_trainer(resumed, folder)
    assert meta["step"] == resumed.global_step == 3 * straight.batch_size
    run(resumed, 3)
    assert resumed.global_step == straight.global_step
    for (name, a), b in zip(straight.policy.state_dict().items(), resumed.policy.state_dict().values()):
        assert torch.equal(a, b), name


def test_checkpoint_files_and_meta(tmp_path):
    trainer = Trainer("squared", make_train_config(None, {**TINY, "steps": 512}))
    run(trainer, 1)
    folder = save_checkpoint(str(tmp_path), trainer, keep=1)
    assert sorted(os.listdir(folder)) == [
        "meta.json",
        "optimizer.pt",
        "policy.safetensors",
        "records.npy",
        "state.safetensors",
    ]
    meta = json.load(open(os.path.join(folder, "meta.json")))
    assert meta["env"] == "squared" and meta["step"] == 512 and meta["version"]
    run(trainer, 1)
    save_checkpoint(str(tmp_path), trainer, keep=1)
    assert [d for d in os.listdir(tmp_path / "checkpoints") if d.startswith("step-")] == ["step-000000001024"]
    policy, _ = load_policy(str(tmp_path))
    assert torch.equal(policy.actor.weight, trainer.policy.actor.weight)


def test_a_checkpoint_older_than_a_policy_setting_resumes_with_its_default(tmp_path):
    trainer = Trainer("squared", make_train_config(None, {**TINY, "steps": 1024}))
    run(trainer, 1)
    folder = save_checkpoint(str(tmp_path), trainer)
    meta_file = os.path.join(folder, "meta.json")
    meta = json.load(open(meta_file))
    del meta["policy"]["critic"]  # as written before the setting existed
    json.dump(meta, open(meta_file, "w"))
    resumed = Trainer("squared", make_train_config(None, {**TINY, "steps": 1024}))
    assert restore_trainer(resumed, folder)["step"] == resumed.global_step == 512


def test_wrong_env_or_policy_is_refused_with_a_reason(tmp_path):
    trainer = Trainer("squared", make_train_config(None, {**TINY, "steps": 512}))
    save_checkpoint(str(tmp_path), trainer)
    other = Trainer("toy_masked_pick", make_train_config(None, TINY))
    with pytest.raises(ValueError, match="trained on env 'squared', not 'toy_masked_pick'"):
        restore_trainer(other, str(tmp_path))
    bigger = Trainer("squared", make_train_config(None, {**TINY, "hidden": 64}))
    with pytest.raises(ValueError, match="differs"):
        restore_trainer(bigger, str(tmp_path))
    small_grid = Trainer("squared", make_train_config(None, TINY), env_config={"size": 5})
    with pytest.raises(ValueError, match="obs_size"):
        restore_trainer(small_grid, str(tmp_path))
    with pytest.raises(ValueError, match="no checkpoint"):
        load_policy(str(tmp_path / "nowhere"))


def test_meta_records_a_checksum_of_every_file_and_diverged_weights_are_refused(tmp_path):
    trainer = Trainer("squared", make_train_config(None, {**TINY, "steps": 512}), env_config={"size": 5})
    folder = save_checkpoint(str(tmp_path / "a"), trainer)
    meta = json.load(open(os.path.join(folder, "meta.json")))
    assert sorted(meta["checksums"]) == sorted(FILES)
    assert meta["checksums"]["records.npy"] == file_checksum(os.path.join(folder, "records.npy"))
    with torch.no_grad():
        trainer.policy.actor.weight[0, 0] = float("nan")
    with pytest.warns(RuntimeWarning, match="not finite .* the training diverged"):
        folder = save_checkpoint(str(tmp_path / "b"), trainer)
    with pytest.raises(DamagedFile, match="policy.safetensors: holds non-finite weights .*actor.weight"):
        load_policy(folder)
