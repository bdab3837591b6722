"""TRL's GRPOTrainer runs 3 optimisation steps on CPU against the duel server, groups restored from one snapshot,
and the reward it logs is the env's."""

import importlib.util
import pathlib

import pytest

pytest.importorskip("trl", reason="the recipe needs the [trl] extra")

RECIPE = pathlib.Path(__file__).resolve().parents[2] / "docs/examples/trl_grpo_openenv.py"


def test_grpo_trainer_trains_on_restored_groups(tmp_path, monkeypatch):
    from sparring.serve.app import ServerThread, make_app

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    spec = importlib.util.spec_from_file_location("trl_grpo_openenv", RECIPE)
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)
    with ServerThread(make_app("duel", {"reward_damage": 0.01, "reward_taken": 0.01})) as server:
        model = recipe.tiny_model(server.url, str(tmp_path / "tiny"))
        report = recipe.train(server.url, model, str(tmp_path / "out"), steps=3, group=8)
    assert report["global_step"] == 3 and len(report["log"]) == 3
    for row, rewards in zip(report["log"], report["env_rewards"]):
        assert len(rewards) == 8
        assert row["reward"] == pytest.approx(sum(rewards) / 8, abs=1e-6)
        assert row["rewards/env_reward/mean"] == pytest.approx(row["reward"], abs=1e-6)
