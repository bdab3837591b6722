"""`sparring train / eval / watch` on a tiny budget: the run folder, the final evaluation, the reports, the errors."""

import csv
import json
import os

from sparring.cli import main
from tests.train import toys  # noqa: F401  (registers the toy envs)

TINY = [
    "--train.num_envs",
    "32",
    "--train.horizon",
    "16",
    "--train.minibatch_size",
    "256",
    "--train.hidden",
    "32",
    "--train.threads",
    "1",
    "--train.eval_episodes",
    "50",
    "--train.tensorboard",
    "false",
]


def test_train_then_eval_then_watch(tmp_path, capsys):
    assert main(["train", "squared", "--steps", "2048", "--runs", str(tmp_path), *TINY]) == 0
    run = str(tmp_path / os.listdir(tmp_path)[0])
    assert os.path.basename(run).startswith("squared-")
    files = set(os.listdir(run))
    assert {"metrics.jsonl", "metrics.csv", "config.json", "checkpoints", "plots", "eval.json"} <= files
    assert os.path.exists(os.path.join(run, "plots", "learning.png"))
    rows = list(csv.DictReader(open(os.path.join(run, "metrics.csv"))))
    assert [r["train/step"] for r in rows] == ["512", "1024", "1536", "2048"]
    assert {"train/sps", "loss/policy", "perf/env_s", "env/success"} <= set(rows[0])
    captured = capsys.readouterr()
    out = captured.out
    assert "win" in out and f"run folder: {run}" in out
    assert "train squared: done, 100% 2,048/2,048 steps" in captured.err  # the progress display, off a terminal
    assert "eval squared: done, 100% 50/50 episodes" in captured.err and "done" not in out
    assert json.load(open(os.path.join(run, "eval.json")))["episodes"] == 50

    assert main(["eval", "squared", "--checkpoint", run, "--episodes", "40", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["episodes"] == 40 and report["checkpoint_step"] == 2048
    assert report["win"]["count"] + report["loss"]["count"] + report["draw"]["count"] == 40
    low, high = report["win"]["ci95"]
    assert low <= report["win"]["rate"] <= high
    assert report["phases"]["play"]["episodes"] == 40

    assert main(["watch", "squared", "--checkpoint", run, "--episodes", "1", "--fps", "1000"]) == 0
    out = capsys.readouterr().out
    assert "@" in out and "episode 1 ended" in out

    assert main(["eval", "toy_masked_pick", "--checkpoint", run, "--episodes", "5"]) == 2
    assert "trained on env 'squared'" in capsys.readouterr().err


def test_train_needs_a_budget_and_valid_settings(tmp_path, capsys):
    assert main(["train", "squared", "--runs", str(tmp_path), *TINY]) == 2
    assert "budget" in capsys.readouterr().err
    assert main(["train", "squared", "--steps", "10", "--train.lr", "fast"]) == 2
    assert "'lr' (--train.lr) must be float" in capsys.readouterr().err


def test_resume_takes_overrides_after_it_and_skips_a_disabled_final_eval(tmp_path, monkeypatch, capsys):
    calls = []

    def fake_train(env, budget, env_config, opponent, resume, runs_dir, progress, seats):
        calls.append((env, budget, env_config, opponent, resume))
        (tmp_path / "config.json").write_text(
            json.dumps({"env": "squared", "opponent": None, "train": {"eval_episodes": 0}})
        )
        return str(tmp_path)

    monkeypatch.setattr("sparring.train.run.train", fake_train)
    assert main(["train", "--resume", str(tmp_path), "--train.checkpoint_s", "5"]) == 0
    assert calls == [(None, {"checkpoint_s": "5"}, {}, None, str(tmp_path))]
    assert main(["train", "--env.size", "9", "squared", "--steps", "8"]) == 0
    assert calls[-1] == ("squared", {"steps": 8}, {"size": "9"}, None, None)
    assert not (tmp_path / "eval.json").exists() and "run folder" not in capsys.readouterr().out


def test_train_with_a_seat_player_keeps_it_through_checkpoint_resume_and_final_eval(tmp_path, capsys):
    args = [
        "train",
        "toy_match",
        "--steps",
        "2048",
        "--seat",
        "seat0=scripted:always_zero",
        "--runs",
        str(tmp_path),
        "--train.num_envs",
        "16",
        "--train.horizon",
        "16",
        "--train.minibatch_size",
        "128",
        "--train.hidden",
        "16",
        "--train.threads",
        "1",
        "--train.eval_episodes",
        "40",
    ]
    assert main(args) == 0
    run = next(p for p in tmp_path.iterdir() if p.is_dir())
    assert json.loads((run / "config.json").read_text())["seats"] == {"seat0": "scripted:always_zero"}
    report = json.loads((run / "eval.json").read_text())
    assert report["seat"] == "seat1" and report["seats"]["seat0"]["player"] == "scripted:always_zero"
    assert main(["train", "--resume", str(run), "--seat", "seat0=random"]) == 2
    assert "keeps the run's seats" in capsys.readouterr().err
