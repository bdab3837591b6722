"""Writing checkpoints: safetensors weights, a JSON of who/what/when, optimizer and RNG state.

Reading them (for play, not for resuming) is :mod:`sparring.players.load`.

A checkpoint is a folder ``checkpoints/step-<N>/`` written under a temporary name
and renamed into place, then ``checkpoints/latest`` is replaced atomically: a run
killed at any moment leaves the previous checkpoint intact. Torch state files are
loaded with ``weights_only=True`` (no arbitrary pickles).
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import torch
from safetensors.torch import load_file, save_file

import sparring
from sparring.kit.atomic import atomic_file, atomic_folder
from sparring.players.load import check_compatible, load_weights, read_meta, resolve
from sparring.players.policy import Policy

FORMAT = 1


def _tensors(named: dict) -> dict:
    return {k: v.detach().cpu().contiguous().clone() for k, v in named.items()}


def save_checkpoint(run_dir: str, trainer, keep: int = 3) -> str:
    """Write the trainer's full state under ``run_dir/checkpoints``; returns the checkpoint folder."""
    root = os.path.join(run_dir, "checkpoints")
    os.makedirs(root, exist_ok=True)
    name = f"step-{trainer.global_step:012d}"
    with atomic_folder(os.path.join(root, name)) as tmp:
        _write_state(tmp, trainer)
    with atomic_file(os.path.join(root, "latest")) as fh:  # only once the folder it names is in place
        fh.write(name)
    for old in sorted(d for d in os.listdir(root) if d.startswith("step-"))[:-max(1, keep)]:
        shutil.rmtree(os.path.join(root, old), ignore_errors=True)
    return os.path.join(root, name)


def _write_state(tmp: str, trainer) -> None:
    """The files of a checkpoint of ``trainer``, written into the folder ``tmp``."""
    state = trainer.train_state()
    opponent = state["opponent"] or {"json": None, "tensors": {}}
    save_file(_tensors(trainer.policy.state_dict()), os.path.join(tmp, "policy.safetensors"))
    extra = {f"recurrent.{i}": s for i, s in enumerate(state["recurrent_state"])}
    extra.update({f"opponent.{k}": v for k, v in opponent["tensors"].items()})
    extra["just_done"] = torch.from_numpy(state["just_done"].astype(np.uint8))
    save_file(_tensors(extra), os.path.join(tmp, "state.safetensors"))
    np.save(os.path.join(tmp, "records.npy"), state["records"], allow_pickle=False)
    torch.save({"optimizer": trainer.optimizer.state_dict(), "torch_rng": torch.get_rng_state()},
               os.path.join(tmp, "optimizer.pt"))
    meta = {"format": FORMAT, "env": trainer.env_name, "env_config": trainer.env_config,
            "opponent": trainer.opponent_name, "seats": trainer.seats, "train_config": trainer.cfg.__dict__,
            "policy": trainer.policy.spec,
            "version": sparring.__version__, "step": trainer.global_step, "iteration": trainer.iteration,
            "elapsed": trainer.elapsed, "recurrent_count": len(state["recurrent_state"]),
            "opponent_state": opponent["json"]}
    with open(os.path.join(tmp, "meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
    if getattr(trainer, "restarts", None) is not None:
        trainer.restarts.save(tmp)  # the Go-Explore archive


def restore_trainer(trainer, path: str) -> dict:
    """Load weights, optimizer, RNG and rollout state of a checkpoint into ``trainer``; returns meta."""
    folder = resolve(path)
    meta = read_meta(folder)
    check_compatible(meta, trainer.env_name, trainer.env)
    # rebuilt, the saved spec gains the defaults of settings newer than the checkpoint
    if Policy(**meta["policy"]).spec != trainer.policy.spec:
        raise ValueError(f"checkpoint policy {meta['policy']} differs from this run's {trainer.policy.spec}")
    load_weights(trainer.policy, os.path.join(folder, "policy.safetensors"))
    opt = torch.load(os.path.join(folder, "optimizer.pt"), weights_only=True, map_location="cpu")
    trainer.optimizer.load_state_dict(opt["optimizer"])
    torch.set_rng_state(opt["torch_rng"])
    extra = load_file(os.path.join(folder, "state.safetensors"))
    trainer.load_train_state({
        "global_step": meta["step"], "iteration": meta["iteration"], "elapsed": meta["elapsed"],
        "records": np.load(os.path.join(folder, "records.npy"), allow_pickle=False),
        "just_done": extra["just_done"].numpy().astype(np.bool_),
        "recurrent_state": [extra[f"recurrent.{i}"] for i in range(meta["recurrent_count"])],
        "opponent": None if meta["opponent_state"] is None else {
            "json": meta["opponent_state"],
            "tensors": {k[len("opponent."):]: v for k, v in extra.items() if k.startswith("opponent.")}},
    })
    if getattr(trainer, "restarts", None) is not None and os.path.exists(os.path.join(folder, "archive.json")):
        trainer.restarts.load(folder)
    return meta
