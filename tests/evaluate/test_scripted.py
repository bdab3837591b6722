"""`sparring eval --policy scripted:NAME --metric NAME`: a scripted player without a checkpoint, and a metric's rate."""

import json

import pytest

from sparring.cli import main
from sparring.evaluate.play import evaluate_scripted
from tests.train import toys  # noqa: F401  (registers the toy envs)


def test_a_scripted_player_is_evaluated_like_a_checkpoint():
    # toy_match with opponent zeros: seat 0 wins by playing 0, which is all always_zero ever plays
    report = evaluate_scripted(
        "toy_match", "scripted:always_zero", episodes=60, env_overrides={"opponent": "zeros"}, metric="win"
    )
    assert report["episodes"] == 60 and report["win"]["count"] == 60
    assert report["policy"] == "scripted:always_zero"
    metric = report["metric"]
    assert (metric["successes"], metric["trials"], metric["seats"]) == (60, 60, 1)
    assert metric["ci95"][0] > 0.9 and metric["ci95"][1] == pytest.approx(1.0)


def test_eval_cli_scripted_policy_and_metric(capsys):
    args = [
        "eval",
        "toy_match",
        "--policy",
        "scripted:always_zero",
        "--episodes",
        "40",
        "--env.opponent",
        "zeros",
        "--metric",
        "win",
    ]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metric"]["successes"] == 40
    assert main(args) == 0
    assert "win: 40/40 seat-episodes" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--policy", "scripted:always_zero", "--checkpoint", "runs/x"], "exactly one of"),
        ([], "exactly one of"),
        (["--policy", "planner"], "expected scripted:NAME"),
        (["--policy", "scripted:nobody"], "known: ['always_zero']"),
        (["--policy", "scripted:always_zero", "--metric", "goals"], "valid: ['win']"),
        (["--policy", "scripted:always_zero", "--opponent", "self"], "needs another opponent"),
    ],
)
def test_eval_cli_names_what_was_wrong(args, message, capsys):
    assert main(["eval", "toy_match", "--episodes", "4", *args]) == 2
    assert message in capsys.readouterr().err


def test_only_players_without_a_checkpoint_are_taken():
    with pytest.raises(ValueError, match="scripted:NAME"):
        evaluate_scripted("toy_match", "scripted:", episodes=4)
    report = evaluate_scripted("toy_match", "random", episodes=20, env_overrides={"opponent": "zeros"})
    assert report["policy"] == "random" and report["episodes"] == 20
