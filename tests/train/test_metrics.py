"""Run metrics: JSONL and CSV stay aligned, resume drops records past the checkpoint, plots get written."""

import csv
import json
import time

from sparring.kit import registry
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
    first = json.loads(open(tmp_path / "metrics.jsonl").readline())
    assert rows[0]["loss/policy"] == "" and first["loss/policy"] is None
    assert {p.split("/")[-1] for p in plot_run(str(tmp_path))} == {"learning.png", "speed.png"}


def test_tensorboard_events_hold_the_logged_scalars(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    write_steps(tmp_path, [1, 2, 3])
    events = EventAccumulator(str(tmp_path / "tensorboard"))
    events.Reload()
    assert [(e.step, e.value) for e in events.Scalars("train/sps")] == [(1, 1001.0), (2, 1002.0), (3, 1003.0)]
    assert "loss/policy" not in events.Tags()["scalars"]  # NaN metrics are left out, as in the CSV


def wandb_history(path) -> list[dict]:
    """The history rows of an offline ``.wandb`` file (a LevelDB-style log of protobuf records)."""
    from wandb.proto import wandb_internal_pb2

    data, pos, rows, block = open(path, "rb").read(), 7, [], 32768  # 7: the file header
    while pos + 7 <= len(data):
        if block - pos % block < 7:  # a block's tail too short for a record header is padding
            pos += block - pos % block
            continue
        length = int.from_bytes(data[pos + 4 : pos + 6], "little")
        assert data[pos + 6] == 1, "test reader handles whole (unsplit) records only"
        record = wandb_internal_pb2.Record.FromString(data[pos + 7 : pos + 7 + length])
        if record.WhichOneof("record_type") == "history":
            rows.append({"/".join(i.nested_key) or i.key: json.loads(i.value_json) for i in record.history.item})
        pos += 7 + length
    return rows


def test_wandb_offline_run_keeps_the_metrics(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_SILENT", "true")
    log = MetricsLog(
        str(tmp_path), metric_columns(registry.get("squared")), tensorboard=False, wandb=True, wandb_config={"lr": 0.01}
    )
    for s in (1, 2):
        log.write({"train/step": s, "train/sps": 1000.5 + s})
    log.close()
    (path,) = (tmp_path / "wandb").glob("offline-run-*/run-*.wandb")
    deadline = time.monotonic() + 60  # W&B's service process may still be flushing the file after finish()
    while not (rows := [r for r in wandb_history(path) if "train/sps" in r]) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert [(r["_step"], r["train/sps"]) for r in rows] == [(1, 1001.5), (2, 1002.5)]
