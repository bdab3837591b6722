"""`sparring serve`, `build-lm` and `distill`: arguments, errors, and distill end to end with a tiny model
(the server itself: tests/lm/test_server.py)."""

import os
import re

from sparring.cli import main

TINY = [
    "--episodes",
    "2",
    "--held-out",
    "0.5",
    "--steps",
    "1",
    "--batch-size",
    "2",
    "--vocab",
    "300",
    "--hidden",
    "16",
    "--layers",
    "1",
    "--heads",
    "2",
    "--intermediate",
    "32",
    "--context",
    "2048",
    "--threads",
    "1",
]


def test_serve_command_refuses_a_missing_folder_and_bad_port(tmp_path, capsys):
    assert main(["serve", "--model", str(tmp_path)]) == 2
    assert "not a model folder" in capsys.readouterr().err
    assert main(["serve", "--model", str(tmp_path), "--port", "70000"]) == 2
    assert "argument --port: must be an integer in [0, 65535]" in capsys.readouterr().err
    assert main(["serve", "--model", str(tmp_path), "--max-batch", "0"]) == 2
    assert "argument --max-batch: must be an integer in [1, 1e+09]" in capsys.readouterr().err


def test_build_lm_command(tmp_path, capsys):
    text = tmp_path / "lines.txt"
    text.write_text("\n".join(["go home", "eat 1 bread"] * 20), encoding="utf-8")
    out = tmp_path / "m"
    args = [
        "build-lm",
        "--text",
        str(text),
        "--out",
        str(out),
        "--vocab",
        "300",
        "--hidden",
        "16",
        "--layers",
        "1",
        "--heads",
        "2",
        "--intermediate",
        "32",
        "--context",
        "64",
    ]
    assert main(args) == 0 and (out / "config.json").exists()
    assert main(args) == 2 and "exists" in capsys.readouterr().err
    assert main(["build-lm", "--text", str(tmp_path / "none.txt"), "--out", str(out)]) == 2
    assert "argument --text: " in (err := capsys.readouterr().err) and "none.txt' cannot be read" in err


def test_distill_saves_a_model_folder_and_reports_accuracy(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sparring.kit.progress.QUIET_S", 0.0)  # every status line, however fast the stages
    out = str(tmp_path / "m")
    assert main(["distill", "town", "--out", out, "--teacher", "scripted:planner", *TINY, "--env.days", "1"]) == 0
    captured = capsys.readouterr()
    assert "held-out action accuracy" in captured.out and os.path.isfile(os.path.join(out, "config.json"))
    # the progress display says each stage, then counts the optimiser steps with the loss
    assert "distill town: recording the teacher's turns (scripted:planner)" in captured.err
    assert re.search(r"^distill town: done, 100% (\d+)/\1 steps, .*\| loss=", captured.err, re.M)
    assert main(["distill", "town", "--out", out, *TINY]) == 2
    assert "exists; choose a new folder" in capsys.readouterr().err
    assert main(["distill", "town", "--out", str(tmp_path / "n"), "--goal", "fame", *TINY]) == 2
    assert "goal must be one of ['any', 'rich', 'house', 'gathering']" in capsys.readouterr().err


def test_lm_commands_refuse_envs_without_a_text_face(tmp_path, capsys):
    assert main(["distill", "squared", "--out", str(tmp_path / "m"), *TINY]) == 2
    assert "env 'squared' has no text face: declare `text = ...`" in capsys.readouterr().err
