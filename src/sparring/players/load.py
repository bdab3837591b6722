"""The read side of checkpoints: find one, read its meta, load its policy for an env.

``sparring train`` writes checkpoints (:mod:`sparring.train.checkpoint`); everything else
reads them through this module. Weights are safetensors and meta is JSON: nothing here
unpickles a file.
"""

from __future__ import annotations

import json
import os

from safetensors.torch import load_file

from sparring.players.policy import Policy


def resolve(path: str) -> str:
    """A checkpoint folder from a checkpoint folder, a run folder, or a run's ``checkpoints`` folder."""
    for candidate in (path, os.path.join(path, "checkpoints")):
        latest = os.path.join(candidate, "latest")
        if os.path.exists(latest):
            with open(latest) as fh:
                return os.path.join(candidate, fh.read().strip())
    if os.path.exists(os.path.join(path, "meta.json")):
        return path
    raise ValueError(f"no checkpoint at {path!r}: expected a run folder (runs/<env>-<time>), its checkpoints "
                     "folder, or a checkpoints/step-N folder with meta.json")


def read_meta(path: str) -> dict:
    """The meta.json of the checkpoint at ``path`` (see :func:`resolve`)."""
    with open(os.path.join(resolve(path), "meta.json")) as fh:
        return json.load(fh)


def checkpoint_env_config(path: str, env_name: str) -> dict:
    """The env config a checkpoint was trained with (empty if it was trained on another env)."""
    meta = read_meta(path)
    return dict(meta["env_config"]) if meta["env"] == env_name else {}


def check_compatible(meta: dict, env_name: str, env) -> None:
    """Raise ValueError naming the mismatch if the checkpoint cannot drive ``env``."""
    if meta["env"] != env_name:
        raise ValueError(f"checkpoint was trained on env {meta['env']!r}, not {env_name!r}; "
                         f"use it with `{meta['env']}` or pick a checkpoint of {env_name!r}")
    spec = meta["policy"]
    want = {"obs_size": env.obs_spec.size, "head_sizes": [int(s) for s in env.heads.sizes]}
    have = {"obs_size": spec["obs_size"], "head_sizes": spec["head_sizes"]}
    if want != have:
        raise ValueError(f"checkpoint policy expects {have} but env {env_name!r} with this config has {want}; "
                         f"train-time env config was {meta['env_config']}")


def load_policy(path: str, env_name: str | None = None, env=None, device="cpu") -> tuple[Policy, dict]:
    """The trained policy and meta of a checkpoint; checked against ``env`` when given."""
    folder = resolve(path)
    meta = read_meta(folder)
    if env is not None:
        check_compatible(meta, env_name, env)
    policy = Policy(**meta["policy"]).to(device)
    policy.heads.to(device)
    load_weights(policy, os.path.join(folder, "policy.safetensors"))
    return policy, meta


def load_weights(policy: Policy, file: str) -> None:
    """Load safetensors weights; a shape or key mismatch names the offending tensors."""
    weights = load_file(file)
    try:
        policy.load_state_dict(weights)
    except RuntimeError as exc:
        raise ValueError(f"weights in {file} do not fit this policy ({policy.spec}): {exc}") from None
