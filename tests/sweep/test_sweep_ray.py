"""The Ray Tune sweep backend on a local Ray instance: trials run, ASHA sees every rung, one report for both."""

import os

import optuna
import pytest

pytest.importorskip("ray", reason="the ray sweep backend needs the [ray] extra")

from sparring.sweep.ray_tune import run_ray  # noqa: E402
from sparring.sweep.report import write_report  # noqa: E402
from sparring.sweep.settings import prepare  # noqa: E402
from tests.sweep.test_sweep_local import settings  # noqa: E402


def test_ray_tune_sweep_runs_trials_and_reports(tmp_path):
    # joins the session's local Ray if another test started one, else starts it and leaves it up for the
    # others (tests/train/test_parallel.py); Ray stops it when the test process exits
    tiny = settings(tmp_path, trials=2)
    prepare(tiny)
    study = run_ray(tiny)
    assert len(study.trials) == 2
    done = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    finished = [t for t in study.trials if t.state in done]
    assert len(finished) == 2 and any(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    for t in study.trials:
        assert 1e-4 <= t.params["train.lr"] <= 3e-2 and t.params["train.hidden"] in (16, 32)
        assert 1 in t.intermediate_values and all(0 <= v <= 1 for v in t.intermediate_values.values())
        if t.state == optuna.trial.TrialState.COMPLETE:
            assert t.value == t.intermediate_values[2]
    paths = write_report(study, str(tmp_path), "success")
    assert os.path.getsize(paths["objective"]) > 0 and "best: trial" in open(paths["table"]).read()
    assert os.path.isdir(tmp_path / "ray" / "tune")
