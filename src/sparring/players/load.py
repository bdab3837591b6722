"""The read side of checkpoints: find one, read its meta, load its policy for an env.

``sparring train`` writes checkpoints (:mod:`sparring.train.checkpoint`); everything else
reads them through this module. Weights are safetensors and meta is JSON: nothing here
unpickles a file. Every file read is checked (its checksum in meta.json, its layout, finite
weights); a damaged one is a :class:`~sparring.kit.files.DamagedFile` naming it.
"""

from __future__ import annotations

import math
import os
import re

import torch
from safetensors.torch import load_file

from sparring.kit import registry
from sparring.kit.atomic import clean_stale
from sparring.kit.config import make_config
from sparring.kit.files import DamagedFile, check_keys, check_regular, read_json, reading, verify_checksums
from sparring.players.policy import Policy

FORMAT = 1
REMEDY = "use another checkpoint of the run (checkpoints/step-N) or train anew"
# what every checkpoint's meta.json holds (train/checkpoint.py writes more, read on resume)
META_KEYS = {"format": int, "env": str, "env_config": dict, "policy": dict, "step": int}
_STEP = re.compile(r"step-\d+")
INT_MAX = 2**63 - 1
# the ranges of meta.json's numbers (key: (low, high)); a value outside is a damaged or crafted file
STEP_RANGE = (0, INT_MAX)
POLICY_RANGES = {
    "obs_size": (1, 1 << 31),
    "hidden": (1, 1 << 16),
    "layers": (1, 64),
    "onehot": (0, 255),
    "scale": (0.0, 1e30, "above"),
}
HEADS_MAX = 64
HEAD_SIZE_MAX = 1 << 20


def resolve(path: str) -> str:
    """A checkpoint folder from a checkpoint folder, a run folder, or a run's ``checkpoints`` folder."""
    for candidate in (path, os.path.join(path, "checkpoints")):
        latest = os.path.join(candidate, "latest")
        if os.path.exists(latest):
            clean_stale(candidate)  # what a run killed while saving left behind
            return _latest(latest)
    if os.path.exists(os.path.join(path, "meta.json")):
        return path
    raise ValueError(
        f"no checkpoint at {path!r}: expected a run folder (runs/<env>-<time>), its checkpoints "
        "folder, or a checkpoints/step-N folder with meta.json"
    )


def _latest(latest: str) -> str:
    """The checkpoint folder the ``latest`` file names (a ``step-N`` folder beside it)."""
    check_regular(latest, "pointer to the newest checkpoint", REMEDY)
    with reading(latest, "pointer to the newest checkpoint", REMEDY):
        with open(latest, encoding="utf-8") as fh:
            name = fh.read(256).strip()
    if not _STEP.fullmatch(name):
        raise DamagedFile(latest, f"names {name[:40]!r}, not a checkpoint folder step-N beside it", REMEDY)
    folder = os.path.join(os.path.dirname(latest), name)
    if not os.path.isfile(os.path.join(folder, "meta.json")):
        raise DamagedFile(latest, f"names {name}, but there is no checkpoint {folder} (with meta.json)", REMEDY)
    return folder


def read_meta(path: str) -> dict:
    """The meta.json of the checkpoint at ``path`` (see :func:`resolve`), its keys checked."""
    file = os.path.join(resolve(path), "meta.json")
    meta = read_json(file, "checkpoint meta", REMEDY)
    check_keys(meta, META_KEYS, file, "checkpoint meta.json", REMEDY)
    if meta["format"] != FORMAT:
        raise DamagedFile(file, f"has checkpoint format {meta['format']}; this version reads format {FORMAT}", REMEDY)
    for key, kind in (("seats", dict), ("opponent_state", dict), ("opponent", str)):
        if meta.get(key) is not None:
            check_keys(meta, {key: kind}, file, "checkpoint meta.json", REMEDY)
    check_keys(meta["policy"], {"obs_size": int, "head_sizes": list}, file, "checkpoint meta.json's 'policy'", REMEDY)
    check_range(meta, "step", STEP_RANGE, file)
    _check_policy_spec(meta["policy"], file)
    if meta.get("policies") is not None:
        _check_policies(meta, file)
    if not all(isinstance(v, str) for v in (meta.get("seats") or {}).values()):
        raise DamagedFile(file, "'seats' must map seat names to player specs (strings)", REMEDY)
    try:
        make_config(registry.get(meta["env"]), meta["env_config"])
    except (LookupError, ValueError) as exc:
        raise DamagedFile(
            file, f"its env {meta['env']!r} with env_config {meta['env_config']} cannot be made ({exc})", REMEDY
        ) from None
    return meta


def check_range(data: dict, key: str, bounds: tuple, file: str, where: str = "") -> None:
    """``data[key]`` is in ``bounds``: ``(low, high)`` of integers for an integer, ``(low, high)`` of floats
    for a finite number in [low, high], ``(low, high, "above")`` for one in (low, high]; else a DamagedFile
    naming the key of ``file`` (in its part ``where``)."""
    low, high, *above = bounds
    value = data[key]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    whole = isinstance(low, int) and isinstance(high, int)
    if whole:
        ok = number and isinstance(value, int) and low <= value <= high
        valid = f"an integer in [{low}, {high}]"
    else:
        ok = number and math.isfinite(value) and (value > low if above else value >= low) and value <= high
        valid = f"a finite number in {'(' if above else '['}{low:g}, {high:g}]"
    if not ok:
        raise DamagedFile(file, f"{where}{key!r} is {repr(value)[:40]}; it must be {valid}", REMEDY)


def _check_policy_spec(spec: dict, file: str) -> None:
    """The ranges of meta.json's ``policy``: sizes, widths, depths, a finite positive observation scale."""
    for key, bounds in POLICY_RANGES.items():
        if key in spec:
            check_range(spec, key, bounds, file, "'policy' ")
    heads = spec["head_sizes"]
    if not (
        1 <= len(heads) <= HEADS_MAX
        and all(isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= HEAD_SIZE_MAX for h in heads)
    ):
        raise DamagedFile(
            file,
            f"'policy' 'head_sizes' is {repr(heads)[:40]}; it must be 1 to {HEADS_MAX} integers "
            f"in [1, {HEAD_SIZE_MAX}]",
            REMEDY,
        )


def _check_policies(meta: dict, file: str) -> None:
    """meta.json's ``policies`` of a checkpoint of several policies: a count and each seat's policy number."""
    policies = meta["policies"]
    ok = isinstance(policies, dict) and isinstance(policies.get("count"), int) and policies["count"] >= 1
    seats = policies.get("seats") if ok else None
    ok = ok and isinstance(seats, list) and all(isinstance(s, int) and -1 <= s < policies["count"] for s in seats)
    if not ok:
        raise DamagedFile(file, "'policies' must be {'count': P >= 1, 'seats': [a number in -1..P-1 per seat]}", REMEDY)


def checkpoint_env_config(path: str, env_name: str) -> dict:
    """The env config a checkpoint was trained with (empty if it was trained on another env)."""
    meta = read_meta(path)
    return dict(meta["env_config"]) if meta["env"] == env_name else {}


def check_compatible(meta: dict, env_name: str, env, where: str = "") -> None:
    """Raise ValueError naming the mismatch if the checkpoint (in the folder ``where``) cannot drive ``env``."""
    where = f"checkpoint {where}".strip()
    if meta["env"] != env_name:
        raise ValueError(
            f"{where} was trained on env {meta['env']!r}, not {env_name!r}; "
            f"use it with `{meta['env']}` or pick a checkpoint of {env_name!r}"
        )
    spec = meta["policy"]
    want = {"obs_size": env.obs_spec.size, "head_sizes": [int(s) for s in env.heads.sizes]}
    have = {"obs_size": spec.get("obs_size"), "head_sizes": spec.get("head_sizes")}
    if want != have:
        raise ValueError(
            f"{where}: its policy expects {have} but env {env_name!r} with this config has {want}; "
            f"train-time env config was {meta['env_config']}"
        )


def build_policy(meta: dict, folder: str) -> Policy:
    """The (untrained) policy meta.json of the checkpoint in ``folder`` describes."""
    with reading(os.path.join(folder, "meta.json"), "checkpoint meta: its 'policy' does not build a policy", REMEDY):
        return Policy(**meta["policy"])


def load_policy(path: str, env_name: str | None = None, env=None, device="cpu") -> tuple[Policy, dict]:
    """The trained policy and meta of a checkpoint; checked against ``env`` when given.

    A checkpoint of several policies (``--train.policies``) is refused: :func:`load_population` reads it.
    """
    folder = resolve(path)
    meta = read_meta(folder)
    if meta.get("policies") is not None:
        raise ValueError(
            f"checkpoint {folder} holds {meta['policies']['count']} policies, one per group of seats "
            f"(--train.policies {meta.get('train_config', {}).get('policies')!r}); play it as checkpoint:PATH, "
            "which seats each character with its policy"
        )
    if env is not None:
        check_compatible(meta, env_name, env, folder)
    policy = build_policy(meta, folder).to(device)
    policy.heads.to(device)
    verify_files(folder, meta, ["policy.safetensors"])
    load_weights(policy, os.path.join(folder, "policy.safetensors"))
    return policy, meta


def load_population(path: str, env_name: str | None = None, env=None, device="cpu") -> tuple[list, list[int], dict]:
    """The trained policies of a checkpoint of several policies, each seat's policy number (-1: none) and meta."""
    folder = resolve(path)
    meta = read_meta(folder)
    if meta.get("policies") is None:
        raise ValueError(f"checkpoint {folder} holds one policy for every seat; load it with load_policy")
    if env is not None:
        check_compatible(meta, env_name, env, folder)
    count = meta["policies"]["count"]
    files = [f"policy-{i}.safetensors" for i in range(count)]
    verify_files(folder, meta, files)
    policies = []
    for file in files:
        policy = build_policy(meta, folder).to(device)
        policy.heads.to(device)
        load_weights(policy, os.path.join(folder, file))
        policies.append(policy)
    return policies, list(meta["policies"]["seats"]), meta


def verify_files(folder: str, meta: dict, names: list[str]) -> None:
    """Check the files ``names`` of the checkpoint in ``folder`` against the checksums in its meta (if any)."""
    verify_checksums(folder, meta.get("checksums"), os.path.join(folder, "meta.json"), REMEDY, names)


def read_tensors(file: str, what: str) -> dict[str, torch.Tensor]:
    """The tensors of the safetensors file ``file`` (a ``what``); a damaged file is a DamagedFile."""
    check_regular(file, f"safetensors file of {what}", REMEDY)
    with reading(file, f"safetensors file of {what}", REMEDY):
        return load_file(file)


def load_weights(policy: Policy, file: str) -> None:
    """Load safetensors weights; a shape or key mismatch names the offending tensors, non-finite ones are refused."""
    weights = read_tensors(file, "policy weights")
    bad = [
        name
        for name, tensor in weights.items()
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all())
    ]
    if bad:
        raise DamagedFile(
            file,
            f"holds non-finite weights (NaN or infinity in {', '.join(bad[:3])}"
            f"{', ...' if len(bad) > 3 else ''}): the training diverged or the file is damaged",
            "use an earlier checkpoint (checkpoints/step-N), or train again with a lower --train.lr",
        )
    try:
        policy.load_state_dict(weights)
    except RuntimeError as exc:
        raise DamagedFile(
            file,
            f"its weights do not fit the policy meta.json describes ({policy.spec}): {' '.join(str(exc).split())}",
            REMEDY,
        ) from None
