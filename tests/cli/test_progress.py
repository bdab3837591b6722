"""Every long command shows its progress: off a terminal (as under pytest), plain lines on stderr, stdout untouched.

Each command runs on a tiny budget. The quiet start is turned off (``QUIET_S`` 0), so the status
lines show as well as the last line (``done, ...``); tests/kit/test_progress.py checks the periodic
lines and the live display. train and eval: also tests/cli/test_train.py; distill and grpo:
tests/cli/test_lm.py and tests/lm/test_grpo.py.
"""

import json
import re

import pytest

from sparring.cli import main


@pytest.fixture(autouse=True)
def no_quiet_start(monkeypatch):
    monkeypatch.setattr("sparring.kit.progress.QUIET_S", 0.0)


TRAIN = [
    *("--train.num_envs", "32", "--train.horizon", "16", "--train.minibatch_size", "256"),
    *("--train.hidden", "16", "--train.threads", "1", "--env.size", "5"),
]


def done_line(err: str, title: str) -> str:
    """The last line of the display titled ``title``."""
    found = [line for line in err.splitlines() if line.startswith(f"{title}: done, ")]
    assert found, f"no 'done' line of {title!r} in:\n{err}"
    return found[-1]


def test_record(tmp_path, capsys):
    out = str(tmp_path / "r.parquet")
    assert (
        main(["record", "squared", "--policy", "scripted:greedy", "--episodes", "6", "--num-envs", "2", "--out", out])
        == 0
    )
    captured = capsys.readouterr()
    assert "record squared: recording to" in captured.err
    assert re.match(
        r"record squared: done, 100% 6/6 episodes, .* episodes/s", done_line(captured.err, "record squared")
    )
    assert captured.out.startswith("recorded 6 episodes") and "done" not in captured.out


def test_eval_json_keeps_stdout_clean(capsys):
    assert main(["eval", "squared", "--policy", "scripted:greedy", "--episodes", "30", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["episodes"] == 30  # the progress lines did not go to stdout
    assert "eval squared: playing (" in captured.err
    line = done_line(captured.err, "eval squared")
    assert "100% 30/30 episodes" in line and "| win=" in line and "return=" in line


def test_explore(tmp_path, capsys):
    out = str(tmp_path / "x")
    assert main(["explore", "serpent", "--steps", "640", "--num-envs", "8", "--out", out, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["steps"] == 640
    assert "explore serpent: exploring (" in captured.err and "explore serpent: saving the archive (" in captured.err
    line = done_line(captured.err, "explore serpent")
    assert "100% 640/640 steps" in line and "cells=" in line and "restarts_ended=" in line


def test_bench_and_bench_compare(capsys):
    args = ["bench", "squared", "--sizes", "1,8", "--repeats", "1", "--seconds", "0.01", "--no-compile", "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert [row["num_envs"] for row in json.loads(captured.out)["throughput"]] == [1, 8]
    assert "bench squared: throughput at num_envs=8" in captured.err
    assert "bench squared: Numba allocations of stepping" in captured.err
    line = done_line(captured.err, "bench squared")
    assert "100% 4/4 measurements" in line and "envs_1=" in line and "envs_8=" in line
    args = ["bench", "squared", "--compare", "num_envs=4", "num_envs=8", "--repeats", "3", "--seconds", "0.01"]
    assert main(args) == 0
    line = done_line(capsys.readouterr().err, "bench squared --compare")
    assert "100% 3/3 turns" in line and "median_a=" in line and "median_b=" in line


def test_sweep(tmp_path, capsys):
    args = ["sweep", "squared", "--trials", "2", "--steps", "1024", "--episodes", "16", "--rungs", "1"]
    assert main([*args, "--metric", "success", "--sweeps", str(tmp_path), *TRAIN]) == 0
    captured = capsys.readouterr()
    assert "trial 0: complete success=" in captured.out and "trial 1: complete" in captured.out
    assert "sweep squared: trial 1" in captured.err
    line = done_line(captured.err, "sweep squared")
    assert "100% 2/2 trials" in line and "best_success=" in line and "pruned=0" in line


def test_ablate(capsys):
    args = ["ablate", "squared", "--knob", "train.lr=0,1e-2", "--seeds", "2", "--steps", "512", "--episodes", "16"]
    assert main([*args, "--metric", "success", *TRAIN]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("ablation of train.lr")
    assert "ablate squared: train.lr=1e-2 seed 1" in captured.err
    assert len(re.findall(r"^train\.lr=(0|1e-2) seed [01]: success=", captured.err, re.M)) == 4
    assert "100% 4/4 trainings" in done_line(captured.err, "ablate squared")
