"""Run metrics: JSONL and CSV stay aligned, resume drops records past the checkpoint, plots get written."""

import csv
import io
import json

from sparring.kit import registry
from sparring.train.dashboard import Dashboard
from sparring.train.metrics import MetricsLog, metric_columns, read_jsonl
from sparring.train.plots import plot_run


def write_steps(run_dir, steps, resume_step=None):
    log = MetricsLog(str(run_dir), metric_columns(registry.get("squared")), resume_step, tensorboard=True)
    for s in steps:
        log.write({"train/step": s, "train/sps": 1000.0 + s, "env/success": s / 10, "loss/policy": float("nan")})
    log.close()


def test_resume_truncates_and_appends(tmp_path):
    write_steps(tmp_path, [1, 2, 3, 4])
    write_steps(tmp_path, [3, 4, 5], resume_step=2)  # a run killed after its step-2 checkpoint
    assert [r["train/step"] for r in read_jsonl(str(tmp_path / "metrics.jsonl"))] == [1, 2, 3, 4, 5]
    rows = list(csv.DictReader(open(tmp_path / "metrics.csv")))
    assert [r["train/step"] for r in rows] == ["1", "2", "3", "4", "5"]
    assert rows[0]["loss/policy"] == "" and json.loads(open(tmp_path / "metrics.jsonl").readline())["loss/policy"] is None
    assert {p.split("/")[-1] for p in plot_run(str(tmp_path))} == {"env.png", "train.png"}


def test_dashboard_lines_when_not_a_terminal():
    out = io.StringIO()
    board = Dashboard("squared", stream=out)
    board.update({"train/step": 64, "train/sps": 1234.5, "env/success": 0.5}, 0.25, force=True)
    assert "[ 25.0%] step 64" in out.getvalue() and "success=0.5" in out.getvalue()
    assert "ETA" in board.render(0.25)
