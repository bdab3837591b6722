"""Checkpoints of several policies (``--train.policies``): each policy's weights and optimizer in files of its own.

A population's checkpoint folder holds ``policy-<i>.safetensors`` and ``optimizer-<i>.pt`` per
policy ``i``, ``state.safetensors`` (each rollout's episode ends ``just_done.<i>`` and memory
``recurrent.<i>.<k>``, and the league's ``opponent.*``), ``records.npy`` and ``rng.pt`` (torch's
generator). meta.json is the single policy's plus ``policies``: ``count`` and ``seats``, the
policy number of every seat (-1 where none trains), which :mod:`sparring.players.load` reads to
play each seat with its policy. Everything is checked as for one policy before the trainer changes.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import torch
from safetensors.torch import save_file

from sparring.kit.files import DamagedFile, reading
from sparring.players.load import REMEDY, load_weights, read_tensors, verify_files
from sparring.train.checkpoint import read_records, restore_opponent, write_meta


def population_files(count: int) -> list[str]:
    """The checksummed files of a checkpoint of ``count`` policies."""
    per = [f"policy-{i}.safetensors" for i in range(count)] + [f"optimizer-{i}.pt" for i in range(count)]
    return per + ["state.safetensors", "records.npy", "rng.pt"]


def _tensors(named: dict) -> dict:
    return {k: v.detach().cpu().contiguous().clone() for k, v in named.items()}


def write_population(tmp: str, trainer) -> None:
    """The files of a checkpoint of ``trainer``'s population, written into the folder ``tmp``."""
    pop = trainer.population
    for i, (policy, optimizer) in enumerate(zip(pop.policies, pop.optimizers)):
        if not all(bool(torch.isfinite(p).all()) for p in policy.parameters()):
            warnings.warn(
                f"policy {i}'s weights are not finite (NaN or infinity) at step {trainer.global_step}: the training "
                "diverged; this checkpoint will not load (lower --train.lr)",
                RuntimeWarning,
                stacklevel=4,
            )
        save_file(_tensors(policy.state_dict()), os.path.join(tmp, f"policy-{i}.safetensors"))
        torch.save({"optimizer": optimizer.state_dict()}, os.path.join(tmp, f"optimizer-{i}.pt"))
    extra = {}
    for i, rollout in enumerate(pop.rollouts):
        extra[f"just_done.{i}"] = rollout.just_done.to(torch.uint8)
        extra.update({f"recurrent.{i}.{k}": s for k, s in enumerate(rollout.state)})
    opponent = trainer.opponent.state() if trainer.opponent is not None else {"json": None, "tensors": {}}
    extra.update({f"opponent.{k}": v for k, v in opponent["tensors"].items()})
    save_file(_tensors(extra), os.path.join(tmp, "state.safetensors"))
    np.save(os.path.join(tmp, "records.npy"), trainer.env.snapshot(), allow_pickle=False)
    torch.save({"torch_rng": torch.get_rng_state()}, os.path.join(tmp, "rng.pt"))
    policies = {"count": len(pop.policies), "seats": pop.seat_policy.tolist()}
    recurrent = len(pop.rollouts[0].state)
    write_meta(tmp, trainer, recurrent, opponent["json"], population_files(len(pop.policies)), policies=policies)


def restore_population(trainer, folder: str, meta: dict) -> None:
    """Load a population checkpoint (``meta`` already read and checked against the env) into ``trainer``."""
    pop, where = trainer.population, os.path.join(folder, "meta.json")
    saved = meta["policies"]
    if not isinstance(saved, dict) or saved.get("seats") != pop.seat_policy.tolist():
        raise ValueError(
            f"{where}: its policies {saved} do not match this run's, policy per seat {pop.seat_policy.tolist()}"
        )
    verify_files(folder, meta, population_files(len(pop.policies)))
    records = read_records(trainer, folder)
    extra = read_tensors(os.path.join(folder, "state.safetensors"), "rollout state")
    want = {}
    for i, rollout in enumerate(pop.rollouts):
        want[f"just_done.{i}"] = tuple(rollout.just_done.shape)
        want.update({f"recurrent.{i}.{k}": tuple(s.shape) for k, s in enumerate(rollout.state)})
    for name, shape in want.items():
        tensor = extra.get(name)
        if tensor is None or tuple(tensor.shape) != shape or not bool(torch.isfinite(tensor.float()).all()):
            raise DamagedFile(
                os.path.join(folder, "state.safetensors"), f"lacks tensor {name!r} of shape {shape}, finite", REMEDY
            )
    for i, (policy, optimizer) in enumerate(zip(pop.policies, pop.optimizers)):
        load_weights(policy, os.path.join(folder, f"policy-{i}.safetensors"))
        file = os.path.join(folder, f"optimizer-{i}.pt")
        with reading(file, f"optimizer state of policy {i} (torch)", REMEDY):
            optimizer.load_state_dict(torch.load(file, weights_only=True, map_location="cpu")["optimizer"])
    file = os.path.join(folder, "rng.pt")
    with reading(file, "RNG state (torch)", REMEDY):
        torch.set_rng_state(torch.load(file, weights_only=True, map_location="cpu")["torch_rng"])
    trainer.global_step, trainer.iteration, trainer.elapsed = meta["step"], meta["iteration"], meta["elapsed"]
    trainer.env.restore(None, records)
    for i, rollout in enumerate(pop.rollouts):
        rollout.just_done = extra[f"just_done.{i}"].to(torch.bool).to(rollout.device)
        rollout.state = tuple(extra[f"recurrent.{i}.{k}"].to(rollout.device) for k in range(len(rollout.state)))
    restore_opponent(trainer, folder, meta, extra)
