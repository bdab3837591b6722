"""Run metrics: JSONL and CSV in the run folder, TensorBoard and W&B when asked for and installed."""

from __future__ import annotations

import csv
import json
import math
import os

STEP = "train/step"


def metric_columns(env_cls) -> list[str]:
    """The stable CSV columns of a run on ``env_cls`` (metrics absent in an iteration stay blank)."""
    base = [
        "train/step",
        "train/iteration",
        "train/elapsed_s",
        "train/sps",
        "train/lr",
        "perf/env_s",
        "perf/infer_s",
        "perf/rollout_s",
        "perf/update_s",
        "loss/policy",
        "loss/value",
        "loss/entropy",
        "loss/approx_kl",
        "loss/clipfrac",
        "loss/explained_variance",
        "env/episodes",
        "env/episode_return",
        "env/episode_length",
    ]
    base += [f"env/{m}" for m in env_cls.metrics] + [f"env/phase/{p}" for p in env_cls.phases]
    return base + ["selfplay/pool", "selfplay/win_rate"]


def read_jsonl(path: str) -> list[dict]:
    """Every record of a metrics.jsonl file."""
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


class MetricsLog:
    """Appends one record per iteration; on resume, drops records past the checkpoint's step."""

    def __init__(
        self,
        run_dir: str,
        columns: list[str],
        resume_step: int | None = None,
        tensorboard: bool = True,
        wandb: bool = False,
        wandb_config: dict | None = None,
    ):
        self.jsonl_path = os.path.join(run_dir, "metrics.jsonl")
        self.csv_path = os.path.join(run_dir, "metrics.csv")
        self.columns = columns
        if resume_step is not None:
            self._truncate(resume_step)
        fresh = not os.path.exists(self.csv_path)
        self._jsonl = open(self.jsonl_path, "a")
        self._csv_file = open(self.csv_path, "a", newline="")
        self._csv = csv.DictWriter(self._csv_file, fieldnames=columns, extrasaction="ignore")
        if fresh:
            self._csv.writeheader()
        self.tensorboard = _tensorboard_writer(run_dir) if tensorboard else None
        self.wandb = _wandb_run(run_dir, wandb_config or {}) if wandb else None

    def _truncate(self, step: int) -> None:
        kept = [r for r in read_jsonl(self.jsonl_path) if r.get(STEP, 0) <= step]
        with open(self.jsonl_path, "w") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in kept)
        with open(self.csv_path, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=self.columns, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(kept)

    def write(self, metrics: dict) -> None:
        """Record one iteration's metrics everywhere."""
        clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in metrics.items()}
        self._jsonl.write(json.dumps(clean) + "\n")
        self._jsonl.flush()
        self._csv.writerow(clean)
        self._csv_file.flush()
        step = int(metrics[STEP])
        if self.tensorboard is not None:
            for key, value in clean.items():
                if value is not None:
                    self.tensorboard.add_scalar(key, value, step)
        if self.wandb is not None:
            self.wandb.log(clean, step=step)

    def close(self) -> None:
        """Flush and close every sink."""
        self._jsonl.close()
        self._csv_file.close()
        if self.tensorboard is not None:
            self.tensorboard.close()
        if self.wandb is not None:
            self.wandb.finish()


def _tensorboard_writer(run_dir: str):
    """A SummaryWriter, or None when the tensorboard package is not installed (it is optional)."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(os.path.join(run_dir, "tensorboard"))


def _wandb_run(run_dir: str, config: dict):
    try:
        import wandb
    except ImportError:
        raise ValueError("--train.wandb true needs the wandb package: pip install 'sparring[wandb]'") from None
    return wandb.init(mode="offline", dir=run_dir, config=config, project="sparring")
