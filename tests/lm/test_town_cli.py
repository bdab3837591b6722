"""`sparring distill town` end to end with a tiny model, and its bad input."""

import os

from sparring.cli import main

TINY = ["--episodes", "2", "--held-out", "0.5", "--steps", "1", "--batch-size", "2", "--vocab", "300", "--hidden",
        "16", "--layers", "1", "--heads", "2", "--intermediate", "32", "--context", "2048", "--threads", "1"]


def test_distill_saves_a_model_folder_and_reports_accuracy(tmp_path, capsys):
    out = str(tmp_path / "m")
    assert main(["distill", "town", "--out", out, "--teacher", "scripted:planner", *TINY, "--env.days", "1"]) == 0
    assert "held-out action accuracy" in capsys.readouterr().out and os.path.isfile(os.path.join(out, "config.json"))
    assert main(["distill", "town", "--out", out, *TINY]) == 2
    assert "exists; choose a new folder" in capsys.readouterr().err
    assert main(["distill", "town", "--out", str(tmp_path / "n"), "--goal", "fame", *TINY]) == 2
    assert "goal must be one of ['any', 'rich', 'house', 'gathering']" in capsys.readouterr().err
