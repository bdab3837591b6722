"""Env configs: dataclass defaults, the TOML file beside the env, user overrides."""

from __future__ import annotations

import dataclasses
import inspect
import math
import os
import tomllib
from typing import Any

import numpy as np


def toml_defaults(env_cls: type, table: str = "env") -> dict:
    """The ``[table]`` of ``defaults.toml`` beside the env's module, if any."""
    try:
        path = os.path.join(os.path.dirname(inspect.getfile(env_cls)), "defaults.toml")
    except (TypeError, OSError):
        return {}
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as fh:
        return tomllib.load(fh).get(table, {})


def make_config(env_cls: type, overrides: dict | None = None) -> Any:
    """Build ``env_cls.Config`` from defaults, the TOML file and ``overrides``.

    Unknown keys, wrong types and values outside a choice list raise ValueError
    naming the key and what would be valid.
    """
    values = {**toml_defaults(env_cls), **(overrides or {})}
    fields = {f.name: f for f in dataclasses.fields(env_cls.Config)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        valid = ", ".join(sorted(fields)) or "(none: this env has no config)"
        raise ValueError(f"unknown config key(s) {unknown} for env {env_cls.name!r}; valid keys: {valid}")
    clean = {
        k: coerce(f"config key {k!r} of env {env_cls.name!r} (--env.{k})", fields[k], v) for k, v in values.items()
    }
    return env_cls.Config(**clean)


def coerce(where: str, f: dataclasses.Field, value: Any) -> Any:
    """``value`` (possibly a CLI string) as the type of dataclass field ``f``, or a ValueError naming ``where``."""
    if "choices" in f.metadata:
        if value not in f.metadata["choices"]:
            raise ValueError(f"{where} is {value!r}; valid values: {list(f.metadata['choices'])}")
        return value
    kind = {"bool": bool, "int": int, "float": float, "str": str}.get(f.type, f.type)
    if kind is bool:
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            return value.lower() in ("true", "1")
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise ValueError(f"{where} must be true or false, got {value!r}")
    try:
        if kind is int:
            number = float(value) if isinstance(value, str) else value  # "1e6" is a fine step count
            if float(number) != int(float(number)):
                raise ValueError
            value = int(float(number))
        else:
            value = kind(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{where} must be {kind.__name__}, got {value!r}") from None
    if kind in (int, float):
        check_range(where, f, value)
    return value


def check_range(where: str, f: dataclasses.Field, value: float) -> None:
    """Check that the number ``value`` of the dataclass field ``f`` is finite and within the field's ``range``
    metadata (``(low, high)``, either None for no bound; see ``knob``); else a ValueError naming ``where`` (the
    setting and its flag), what is valid, and the field's ``doc`` metadata when it has one."""
    low, high = f.metadata.get("range", (None, None))
    inside = math.isfinite(value) and (low is None or value >= low) and (high is None or value <= high)
    if not inside:
        kind = "an integer" if isinstance(value, int) else "a finite number"
        valid = (
            f"{kind} in [{low:g}, {high:g}]"
            if low is not None and high is not None
            else f"{kind} >= {low:g}"
            if low is not None
            else f"{kind} <= {high:g}"
            if high is not None
            else kind
        )
        raise ValueError(
            f"{where} is {value!r}; valid: {valid}" + (f" ({f.metadata['doc']})" if "doc" in f.metadata else "")
        )


def config_record(env_cls: type, config: Any) -> np.ndarray:
    """The config as a one-element structured array (kernels get element 0)."""
    rec = np.zeros(1, env_cls.cfg_dtype)
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if "choices" in f.metadata:
            value = f.metadata["choices"].index(value)
        rec[f.name] = value
    return rec
