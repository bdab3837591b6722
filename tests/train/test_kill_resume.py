"""A run killed with SIGKILL resumes from its last checkpoint and ends where an uninterrupted run ends."""

import json
import os
import signal
import subprocess
import sys
import time

import torch
from safetensors.torch import load_file

ARGS = [
    "--train.num_envs",
    "64",
    "--train.horizon",
    "16",
    "--train.minibatch_size",
    "256",
    "--train.hidden",
    "32",
    "--train.threads",
    "1",
    "--train.anneal_lr",
    "false",
    "--train.checkpoint_s",
    "0",
    "--train.eval_episodes",
    "0",
    "--train.tensorboard",
    "false",
]
BATCH = 64 * 16
TARGET = 40 * BATCH


def sparring(*args, **kw):
    return subprocess.Popen(
        [sys.executable, "-m", "sparring", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw
    )


def latest(run_dir):
    path = os.path.join(run_dir, "checkpoints", "latest")
    return open(path).read().strip() if os.path.exists(path) else None


def weights(run_dir):
    return load_file(os.path.join(run_dir, "checkpoints", latest(run_dir), "policy.safetensors"))


def test_sigkill_then_resume_matches_an_uninterrupted_run(tmp_path):
    straight = sparring("train", "squared", "--steps", str(TARGET), "--runs", str(tmp_path / "a"), *ARGS)
    killed = sparring("train", "squared", "--steps", str(100 * TARGET), "--runs", str(tmp_path / "b"), *ARGS)
    deadline = time.time() + 120
    run_b = None
    while time.time() < deadline:
        runs = os.listdir(tmp_path / "b") if (tmp_path / "b").exists() else []
        run_b = str(tmp_path / "b" / runs[0]) if runs else None
        name = latest(run_b) if run_b else None
        if name and int(name.split("-")[1]) >= 5 * BATCH:
            break
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert killed.returncode == -signal.SIGKILL
    saved_step = int(latest(run_b).split("-")[1])
    assert 5 * BATCH <= saved_step < TARGET
    saved = weights(run_b)

    resumed = sparring("train", "--resume", run_b, "--steps", str(TARGET))
    assert resumed.wait(timeout=120) == 0, resumed.stderr.read()
    assert straight.wait(timeout=120) == 0, straight.stderr.read()

    steps = [json.loads(line)["train/step"] for line in open(os.path.join(run_b, "metrics.jsonl"))]
    assert steps == list(range(BATCH, TARGET + 1, BATCH))  # no gap and no repeat across the kill
    final = weights(run_b)
    assert any(not torch.equal(final[k], saved[k]) for k in saved)  # training went on after the resume
    run_a = str(tmp_path / "a" / os.listdir(tmp_path / "a")[0])
    reference = weights(run_a)
    assert all(torch.equal(final[k], reference[k]) for k in reference)
