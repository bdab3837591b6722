"""Writing checkpoints: safetensors weights, a JSON of who/what/when, optimizer and RNG state.

Reading them (for play, not for resuming) is :mod:`sparring.players.load`.

A checkpoint is a folder ``checkpoints/step-<N>/`` written under a temporary name
and renamed into place, then ``checkpoints/latest`` is replaced atomically: a run
killed at any moment leaves the previous checkpoint intact. meta.json records the
SHA-256 of every other file (``"checksums"``), checked on resume. Torch state files
are loaded with ``weights_only=True`` (no arbitrary pickles); every file read on
resume is checked, and a damaged one is a DamagedFile naming it.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings

import numpy as np
import torch
from safetensors.torch import save_file

import sparring
from sparring.kit.atomic import atomic_file, atomic_folder, clean_stale
from sparring.kit.files import DamagedFile, check_keys, check_regular, checksums, read_npy, reading
from sparring.kit.trust import validate_states
from sparring.train.teacher import TeacherKL
from sparring.players.load import (
    FORMAT,
    REMEDY,
    build_policy,
    check_compatible,
    check_range,
    load_weights,
    read_meta,
    read_tensors,
    resolve,
    verify_files,
)

FILES = ("policy.safetensors", "state.safetensors", "records.npy", "optimizer.pt")
# what meta.json holds beyond what every reader needs (players.load.META_KEYS), read on resume
RESUME_KEYS = {
    "iteration": int,
    "elapsed": float,
    "recurrent_count": int,
    "train_config": dict,
    "opponent": (str, type(None)),
    "opponent_state": (dict, type(None)),
}

RESUME_RANGES = {"iteration": (0, 2**63 - 1), "elapsed": (0.0, 1e12), "recurrent_count": (0, 64)}


def _tensors(named: dict) -> dict:
    return {k: v.detach().cpu().contiguous().clone() for k, v in named.items()}


def save_checkpoint(run_dir: str, trainer, keep: int = 3) -> str:
    """Write the trainer's full state under ``run_dir/checkpoints``; returns the checkpoint folder."""
    root = os.path.join(run_dir, "checkpoints")
    os.makedirs(root, exist_ok=True)
    clean_stale(root)  # what a run killed while saving left behind
    name = f"step-{trainer.global_step:012d}"
    with atomic_folder(os.path.join(root, name)) as tmp:
        _write_state(tmp, trainer)
    with atomic_file(os.path.join(root, "latest")) as fh:  # only once the folder it names is in place
        fh.write(name)
    for old in sorted(d for d in os.listdir(root) if d.startswith("step-"))[: -max(1, keep)]:
        shutil.rmtree(os.path.join(root, old), ignore_errors=True)
    return os.path.join(root, name)


def _write_state(tmp: str, trainer) -> None:
    """The files of a checkpoint of ``trainer``, written into the folder ``tmp``."""
    if getattr(trainer, "population", None) is not None:
        trainer.population.save(tmp, trainer)  # several policies: files of their own (train.population_checkpoint)
        return
    state = trainer.train_state()
    opponent = state["opponent"] or {"json": None, "tensors": {}}
    if not all(bool(torch.isfinite(p).all()) for p in trainer.policy.parameters()):
        warnings.warn(
            f"the policy's weights are not finite (NaN or infinity) at step {trainer.global_step}: the "
            "training diverged; this checkpoint will not load (lower --train.lr)",
            RuntimeWarning,
            stacklevel=3,
        )
    save_file(_tensors(trainer.policy.state_dict()), os.path.join(tmp, "policy.safetensors"))
    extra = {f"recurrent.{i}": s for i, s in enumerate(state["recurrent_state"])}
    extra.update({f"opponent.{k}": v for k, v in opponent["tensors"].items()})
    extra["just_done"] = torch.from_numpy(state["just_done"].astype(np.uint8))
    save_file(_tensors(extra), os.path.join(tmp, "state.safetensors"))
    np.save(os.path.join(tmp, "records.npy"), state["records"], allow_pickle=False)
    torch.save(
        {"optimizer": trainer.optimizer.state_dict(), "torch_rng": torch.get_rng_state()},
        os.path.join(tmp, "optimizer.pt"),
    )
    write_meta(tmp, trainer, len(state["recurrent_state"]), opponent["json"], FILES)
    if getattr(trainer, "restarts", None) is not None:
        trainer.restarts.save(tmp)  # the Go-Explore archive
    if getattr(trainer, "curriculum", None) is not None:
        trainer.curriculum.save(tmp)  # its statistics, draws and each env's origin
    if getattr(trainer, "teacher", None) is not None:
        trainer.teacher.save(tmp)  # the frozen teacher of train.kl_teacher and where its fade started


def write_meta(tmp: str, trainer, recurrent_count: int, opponent_json, files, **more) -> None:
    """meta.json of a checkpoint in ``tmp``: who, what and when, and the checksums of ``files`` (plus ``more``)."""
    meta = {
        "format": FORMAT,
        "env": trainer.env_name,
        "env_config": trainer.env_config,
        "opponent": trainer.opponent_name,
        "seats": trainer.seats,
        "train_config": trainer.cfg.__dict__,
        "policy": trainer.policy.spec,
        "version": sparring.__version__,
        "step": trainer.global_step,
        "iteration": trainer.iteration,
        "elapsed": trainer.elapsed,
        "recurrent_count": recurrent_count,
        "opponent_state": opponent_json,
        **more,
        "checksums": checksums(tmp, files),
    }
    with open(os.path.join(tmp, "meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1)


def read_resume_meta(path: str) -> dict:
    """The meta.json of the checkpoint at ``path``, with the keys a resume reads checked."""
    meta = read_meta(path)
    file = os.path.join(resolve(path), "meta.json")
    check_keys(meta, RESUME_KEYS, file, "checkpoint meta.json", REMEDY)
    for key, bounds in RESUME_RANGES.items():
        check_range(meta, key, bounds, file)
    return meta


def restore_trainer(trainer, path: str) -> dict:
    """Load weights, optimizer, RNG and rollout state of a checkpoint into ``trainer``; returns meta.

    Every file is checked before the trainer is changed: checksums, the keys of meta.json, the
    layout of the records and tensors. A damaged file is a DamagedFile naming it.
    """
    folder = resolve(path)
    meta = read_resume_meta(folder)
    check_compatible(meta, trainer.env_name, trainer.env, folder)
    # rebuilt, the saved spec gains the defaults of settings newer than the checkpoint
    if build_policy(meta, folder).spec != trainer.policy.spec:
        raise ValueError(f"checkpoint policy {meta['policy']} differs from this run's {trainer.policy.spec}")
    if (meta.get("policies") is not None) != (getattr(trainer, "population", None) is not None):
        raise ValueError(
            f"checkpoint {folder} was trained with train.policies {meta['train_config'].get('policies', 'shared')!r}, "
            f"this run with {trainer.cfg.policies!r}; resume it with the run's own settings"
        )
    if getattr(trainer, "population", None) is not None:
        trainer.population.restore(trainer, folder, meta)
        return meta
    verify_files(folder, meta, list(FILES))
    records = read_records(trainer, folder)
    extra = _rollout_tensors(os.path.join(folder, "state.safetensors"), trainer, meta["recurrent_count"])
    load_weights(trainer.policy, os.path.join(folder, "policy.safetensors"))
    file = os.path.join(folder, "optimizer.pt")
    check_regular(file, "optimizer and RNG state (torch)", REMEDY)
    with reading(file, "optimizer and RNG state (torch)", REMEDY):
        opt = torch.load(file, weights_only=True, map_location="cpu")
        trainer.optimizer.load_state_dict(opt["optimizer"])
        torch.set_rng_state(opt["torch_rng"])
    trainer.load_train_state(
        {
            "global_step": meta["step"],
            "iteration": meta["iteration"],
            "elapsed": meta["elapsed"],
            "records": records,
            "just_done": extra["just_done"].numpy().astype(np.bool_),
            "recurrent_state": [extra[f"recurrent.{i}"] for i in range(meta["recurrent_count"])],
            "opponent": None,
        }
    )
    restore_opponent(trainer, folder, meta, extra)
    if getattr(trainer, "restarts", None) is not None and os.path.exists(os.path.join(folder, "archive.json")):
        trainer.restarts.load(folder)
    curriculum = getattr(trainer, "curriculum", None)
    if curriculum is not None and os.path.exists(os.path.join(folder, type(curriculum).FILE)):
        trainer.curriculum.load(folder)
    if trainer.cfg.kl_teacher:  # none saved (PPO had not started): the teacher is the policy as PPO starts
        trainer.teacher = TeacherKL.load(trainer.policy, folder, trainer.cfg.kl_teacher, trainer.cfg.kl_teacher_until)
    return meta


def read_records(trainer, folder: str):
    """The env records of the checkpoint in ``folder``, their layout and values checked for ``trainer``'s env."""
    records = read_npy(
        os.path.join(folder, "records.npy"),
        trainer.env.env_cls.record_dtype,
        (trainer.env.num_envs,),
        "env state records",
        REMEDY,
    )
    validate_states(
        trainer.env.env_cls, trainer.env.config, records, os.path.join(folder, "records.npy"), lambda i: f"env {i}"
    )  # a crafted file passes its checksums: the values are checked too
    return records


def restore_opponent(trainer, folder: str, meta: dict, extra: dict) -> None:
    """The opponent's state (self-play pool, league) from meta.json and the ``opponent.*`` tensors in ``extra``."""
    if trainer.opponent is not None and meta["opponent_state"] is not None:
        with reading(folder, "opponent state (meta.json's opponent_state, state.safetensors' opponent.*)", REMEDY):
            trainer.opponent.load_state(
                {
                    "json": meta["opponent_state"],
                    "tensors": {k[len("opponent.") :]: v for k, v in extra.items() if k.startswith("opponent.")},
                }
            )


def _rollout_tensors(file: str, trainer, recurrent_count: int) -> dict:
    """The tensors of state.safetensors, checked against the trainer's rollout (names, shapes, finite values)."""
    extra = read_tensors(file, "rollout state")
    want = {"just_done": tuple(trainer.rollout.just_done.shape)}
    want.update({f"recurrent.{i}": tuple(s.shape) for i, s in enumerate(trainer.rollout.state)})
    if recurrent_count != len(trainer.rollout.state):
        raise DamagedFile(
            os.path.join(os.path.dirname(file), "meta.json"),
            f"'recurrent_count' is "
            f"{recurrent_count}, but this policy has {len(trainer.rollout.state)} recurrent states",
            REMEDY,
        )
    for name, shape in want.items():
        if name not in extra:
            raise DamagedFile(file, f"lacks the tensor {name!r} of every checkpoint", REMEDY)
        if tuple(extra[name].shape) != shape or not bool(torch.isfinite(extra[name].float()).all()):
            raise DamagedFile(
                file,
                f"tensor {name!r} has shape {tuple(extra[name].shape)} or non-finite values; "
                f"this run needs {shape}, finite",
                REMEDY,
            )
    return extra
