"""Archive exploration with random actions, and the reach of a policy from fresh starts."""

import json
import os

import pytest

import sparring
from sparring.cli import main
from sparring.explore.archive import Archive
from sparring.explore.explore import Explorer
from sparring.explore.frontier import frontier_table, summary
from sparring.explore.reach import reach
from sparring.players.policy import policy_for
from sparring.train.config import make_train_config


def test_exploration_grows_the_archive_and_counts_every_visit():
    explorer = Explorer("serpent", num_envs=16, seed=4, segment=30).run(3000)
    archive = explorer.archive
    assert explorer.steps == 3008 and archive.visits.sum() == 16 + explorer.steps
    assert len(archive) > 20 and archive.chosen.sum() >= 16 * 3000 // 16 // 30
    assert archive.restarts.sum() == explorer.outcomes > 0
    info = summary(archive)
    assert info["cells"] == len(archive) and info["deepest"]["dealt"] == archive.deepest() >= 1
    assert info["deepest"]["phase"] in sparring.kit.registry.get("serpent").phases
    assert "cells found" in frontier_table(archive, top=3)
    with pytest.raises(ValueError, match="explore steps must be a positive number"):
        explorer.run(0)


def test_reach_plays_one_episode_per_env_from_its_start():
    env = sparring.make("serpent", num_envs=1)
    policy = policy_for(env, make_train_config(None, {"hidden": 8}))
    result = reach("serpent", policy, episodes=6, seed=1)
    assert result["field"] == "dealt" and len(result["reach"]) == len(result["clear"]) == 6
    assert all(t > 0 for t in result["ticks"]) and min(result["reach"]) >= 0


def test_the_reach_of_an_env_without_cells_is_its_episodes_length():
    env = sparring.make("duel", num_envs=1)
    policy = policy_for(env, make_train_config(None, {"hidden": 8}))
    result = reach("duel", policy, episodes=4, seed=1)
    assert result["field"] == "tick" and result["reach"] == result["ticks"] and min(result["ticks"]) > 0
    assert len(result["clear"]) == 4


def test_explore_command_saves_resumes_and_names_a_wrong_env(tmp_path, capsys):
    out = str(tmp_path / "archive")
    assert main(["explore", "serpent", "--steps", "640", "--num-envs", "8", "--out", out, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["out"] == out and first["steps"] == 640
    assert main(["explore", "serpent", "--steps", "640", "--num-envs", "8", "--resume", out, "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["visits"] == first["visits"] + 8 + 640 and second["cells"] >= first["cells"]
    assert main(["explore", "duel", "--resume", out]) == 2
    assert "built for env 'serpent', not 'duel'" in capsys.readouterr().err


def test_explore_command_saves_into_a_new_folder_under_runs_by_default(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main(["explore", "serpent", "--steps", "64", "--num-envs", "8", "--runs", str(runs), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["out"]
    assert os.path.dirname(out) == str(runs) and os.path.basename(out).startswith("serpent-explore-")
    assert sorted(os.listdir(out)) == ["archive.json", "archive.npz"]


def test_explore_saves_as_it_goes_and_resume_finishes_the_steps_asked_for(tmp_path, capsys, monkeypatch):
    out = str(tmp_path / "archive")
    saves = []
    save = Archive.save

    def count(self, folder, extra=None):
        saves.append(dict(extra))
        save(self, folder, extra)
        if len(saves) == 2:
            raise KeyboardInterrupt  # killed after a save made mid-way

    monkeypatch.setattr(Archive, "save", count)
    with pytest.raises(KeyboardInterrupt):
        main(["explore", "serpent", "--steps", "640", "--num-envs", "8", "--out", out, "--save-s", "1e-9"])
    assert saves == [{"policy": "random", "seed": 0, "steps": 8 * k, "goal": 640} for k in (1, 2)]
    monkeypatch.setattr(Archive, "save", save)
    assert Archive.load(out, sparring.kit.registry.get("serpent"))[1]["steps"] == 16
    assert main(["explore", "serpent", "--num-envs", "8", "--resume", out, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 640 - 16
    extra = Archive.load(out, sparring.kit.registry.get("serpent"))[1]
    assert extra["steps"] == extra["goal"] == 640
    assert main(["explore", "serpent", "--num-envs", "8", "--resume", out, "--json"]) == 0  # nothing left to do
    assert json.loads(capsys.readouterr().out)["steps"] == 0
    assert main(["explore", "serpent", "--num-envs", "8", "--resume", out, "--steps", "8", "--json"]) == 0
    assert Archive.load(out, sparring.kit.registry.get("serpent"))[1]["goal"] == 648
