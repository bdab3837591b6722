"""The local Optuna sweep: trials run, an interrupted sweep resumes where it stopped, table and plots written."""

import json
import os

import optuna
import pytest

from sparring.kit import registry
from sparring.sweep.local import run_local
from sparring.sweep.report import write_report
from sparring.sweep.settings import SweepSettings, prepare
from sparring.sweep.space import load_space, parse_space

SQUARED = registry.get("squared")
SPACE = {"train.lr": {"log": [1e-4, 3e-2]}, "train.hidden": {"choices": [16, 32]}}
TINY = {"num_envs": 64, "horizon": 16, "steps": 64 * 16 * 6, "minibatch_size": 256, "threads": 1}


def settings(folder, trials):
    return SweepSettings(
        "squared",
        parse_space(SQUARED, SPACE),
        str(folder),
        trials=trials,
        train=TINY,
        env_config={"size": 5},
        metric="success",
        episodes=128,
        rungs=2,
    )


def test_interrupted_sweep_resumes_from_where_it_stopped_and_reports(tmp_path):
    first = settings(tmp_path, trials=2)
    prepare(first)
    study = run_local(first)
    assert [t.number for t in study.trials] == [0, 1]
    before = [(t.params, t.value) for t in study.trials]
    # a third trial was running when the sweep was killed: it stays in the database as RUNNING
    optuna.load_study(study_name="sweep", storage=f"sqlite:///{tmp_path}/study.db").ask()
    again = settings(tmp_path, trials=3)
    prepare(again)
    study = run_local(again)
    states = [t.state for t in study.trials]
    assert [(t.params, t.value) for t in study.trials[:2]] == before  # the first two were kept, not rerun
    assert states[2] == optuna.trial.TrialState.FAIL and len(study.trials) == 4  # trial 3 is the one it lacked
    assert sum(s in (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED) for s in states) == 3
    for t in study.trials:
        if t.state == optuna.trial.TrialState.COMPLETE:
            assert 0.0 <= t.value <= 1.0 and sorted(t.intermediate_values) == [1, 2]
            assert 1e-4 <= t.params["train.lr"] <= 3e-2 and t.params["train.hidden"] in (16, 32)
    assert run_local(again).trials == study.trials  # nothing left to do
    paths = write_report(study, str(tmp_path), "success")
    assert {"csv", "table", "objective", "importance"} <= set(paths)
    for path in paths.values():
        assert os.path.getsize(path) > 0
    with open(paths["objective"], "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    text = open(paths["table"]).read()
    assert "best: trial" in text and "fail" in text
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".tmp-")]


def test_a_resume_with_other_settings_is_refused(tmp_path):
    prepare(settings(tmp_path, trials=2))
    changed = settings(tmp_path, trials=2)
    changed.metric = "win_rate"
    with pytest.raises(ValueError, match="metric differ"):
        prepare(changed)
    assert json.load(open(tmp_path / "sweep.json"))["metric"] == "success"


@pytest.mark.parametrize(
    "table, message",
    [
        ({}, "no search space"),
        ({"lr": {"log": [1e-4, 1e-2]}}, "train.NAME or env.NAME"),
        ({"train.lrr": {"log": [1e-4, 1e-2]}}, "no train setting 'lrr'"),
        ({"train.lr": {"log": [0, 1e-2]}}, "LOW > 0 for log"),
        ({"train.lr": {"log": [1e-4, 1e-2], "choices": [1]}}, "exactly one of"),
        ({"train.hidden": {"linear": [16.5, 64]}}, "integer setting"),
        ({"train.recurrence": {"choices": ["none", "gru"]}}, "valid values"),
        ({"train.recurrence": {"linear": [0, 1]}}, "not numeric"),
    ],
)
def test_bad_search_spaces_name_the_entry_and_what_is_valid(table, message):
    with pytest.raises(ValueError, match=message):
        parse_space(SQUARED, table)


def test_squared_declares_a_search_space():
    space = load_space(SQUARED)
    assert {p.key for p in space} >= {"train.lr"}
