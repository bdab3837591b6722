"""The trust boundary for states: records read from a file are checked before any kernel sees them.

Numba does not check array indices. A record whose position, slot, type or phase lies outside
its range makes a kernel read or write outside its arrays: the process dies (SIGSEGV) or, worse,
carries on with corrupted memory. A generator state of 0 never changes (xorshift), so a kernel's
draw-until-it-fits loop would never end. Checksums do not help against a crafted file (whoever
edits it recomputes them), so every state that comes from a file (a checkpoint's records, a
recording, a Go-Explore archive, a state set, GRPO's start states) goes through
:func:`validate_states` first. The rules, in order:

- layout: the records have the env's record dtype;
- the kit's fields: ``rng`` is not 0, ``tick`` >= 0, ``phase`` in ``range(len(phases))``,
  ``ep_return`` and ``metrics`` finite, the padding bytes (``_pad*``) zero;
- the env's fields: each within the inclusive range its env declares in ``Env.bounds`` (a
  dict ``{field: (low, high)}``, or a function of the config returning one; a bound may be an
  array broadcast over the field's shape, None for the dtype's limit); a float field must be
  finite unless its bounds allow infinities, and is never NaN; a bool field holds 0 or 1;
- the env's invariants: ``Env.invariants(s, cfg)`` returns no message for any record (called only
  once every value is in range; one that raises counts as broken).

A refusal is a :class:`BadState`, a ValueError whose one-line message names the file (the
``source``), the record (``where``: an episode and tick, a cell, an env), the field, its value
and its valid range; the CLI prints it and exits with 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sparring.kit.config import make_config

_LONGEST = 400  # characters of a message


class BadState(ValueError):
    """A state from a file that no kernel may run: a value out of range, a broken invariant, another layout.

    Attributes: ``source`` (the file), ``index`` (the record's index in what was checked, -1 for the
    layout), ``field`` (the field, with its element for array fields; "" for an invariant).
    """

    def __init__(self, source: str, where: str, problem: str, index: int = -1, field: str = ""):
        self.source, self.index, self.field = str(source), int(index), field
        text = " ".join(f"{self.source}: {where + ': ' if where else ''}{problem}".split())
        super().__init__(text if len(text) <= _LONGEST else text[: _LONGEST - 3] + "...")


def declared_bounds(env_cls: type, config: Any = None) -> dict[str, tuple]:
    """The env's own ``bounds`` for ``config`` (a Config, a dict of overrides, or None for the defaults)."""
    bounds = env_cls.bounds
    if callable(bounds):
        bounds = bounds(_config(env_cls, config))
    if not isinstance(bounds, dict):
        raise TypeError(
            f"env {env_cls.name!r}: bounds must be a dict {{field: (low, high)}} or a function of the "
            f"config returning one, got {type(bounds).__name__}"
        )
    unknown = sorted(set(bounds) - set(env_cls.state))
    if unknown:
        raise TypeError(
            f"env {env_cls.name!r}: bounds name {unknown}, which are not fields of its state {sorted(env_cls.state)}"
        )
    for name, pair in bounds.items():
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError(f"env {env_cls.name!r}: bounds of {name!r} must be a (low, high) pair, got {pair!r}")
    return bounds


def field_bounds(env_cls: type, config: Any = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Inclusive (low, high) arrays of the field's shape for every bounded field, the kit's included."""
    dtype = env_cls.record_dtype
    out = {"tick": (0, None), "phase": (0, len(env_cls.phases) - 1)}
    out.update(declared_bounds(env_cls, config))
    return {name: _as_arrays(dtype.fields[name][0], pair) for name, pair in out.items()}


def unbounded_fields(env_cls: type, config: Any = None) -> list[str]:
    """The env's integer state fields without declared bounds: a file could hold any value there."""
    declared = declared_bounds(env_cls, config)
    dtype = env_cls.record_dtype
    return [name for name in env_cls.state if name not in declared and dtype.fields[name][0].base.kind in "iu"]


def validate_states(
    env_cls: type,
    config: Any,
    records: np.ndarray,
    source: str,
    where: Callable[[int], str] | None = None,
    invariants: bool = True,
) -> None:
    """Refuse ``records`` of ``env_cls`` (read from ``source``) unless a kernel may run every one of them.

    ``config`` is the env config the records will run under (a Config, a dict of overrides, or None
    for the defaults): some ranges depend on it. ``where(i)`` names record ``i`` in a message (an
    episode and tick, a cell; default ``record i``). ``invariants=False`` skips the env's
    invariants (plain Python, one call per record). Raises :class:`BadState` for the first bad
    record (see the module docstring for the rules).
    """
    name_of = where or (lambda i: f"record {i}")
    records = np.asarray(records)
    if records.dtype != env_cls.record_dtype:
        raise BadState(
            source,
            "",
            f"holds records of another layout than env {env_cls.name!r}'s (dtype "
            f"{_short(records.dtype)}); the env's state changed since it was written, or "
            "the file belongs to another env",
        )
    records = records.reshape(-1)
    if not len(records):
        return
    cfg = _config(env_cls, config)
    bad = _first_out_of_range(env_cls, cfg, records)
    if bad is not None:
        index, field, problem = bad
        raise BadState(
            source,
            name_of(index),
            f"{env_cls.name} state field {field} {problem}; the state is "
            "refused (no kernel runs a value outside its range: a damaged or "
            "edited file?)",
            index,
            field,
        )
    if invariants and env_cls.invariants is not _no_invariants():
        for i in range(len(records)):
            try:
                broken = list(env_cls.invariants(records[i], cfg))
            except Exception as exc:  # a slow path that trips on a state is a broken invariant too
                broken = [f"its invariants raised {type(exc).__name__}: {exc}"]
            if broken:
                raise BadState(
                    source,
                    name_of(i),
                    f"{env_cls.name} state breaks its invariants: {'; '.join(map(str, broken))}; the state is refused",
                    i,
                )


def _no_invariants():
    from sparring.kit.spec import Env

    return Env.invariants


def _config(env_cls: type, config: Any) -> Any:
    if config is None or isinstance(config, dict):
        return make_config(env_cls, config)
    if not isinstance(config, env_cls.Config):
        raise TypeError(
            f"config for env {env_cls.name!r} must be its Config, a dict or None, got {type(config).__name__}"
        )
    return config


def _as_arrays(field_dtype: np.dtype, pair: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) broadcast to the field's shape, as float64 (exact for the int32 and smaller fields of a record);
    None becomes the limit of the field's type."""
    base, shape = field_dtype.base, field_dtype.shape
    if base.kind in "iu":
        limits = (np.iinfo(base).min, np.iinfo(base).max)
    else:
        limits = (-np.inf, np.inf)
    arrays = []
    for value, limit in zip(pair, limits):
        value = limit if value is None else value
        arrays.append(np.broadcast_to(np.asarray(value, np.float64), shape).copy())
    return arrays[0], arrays[1]


def _first_out_of_range(env_cls: type, cfg: Any, records: np.ndarray) -> tuple[int, str, str] | None:
    """(record index, field with element, what is wrong) of the first bad value: lowest record, then field order."""
    dtype = env_cls.record_dtype
    bounds = field_bounds(env_cls, cfg)
    best: tuple[int, str, str] | None = None
    for name in dtype.names:
        values = records[name]
        base = dtype.fields[name][0].base
        if name == "rng":
            bad = values == 0
        elif name.startswith("_pad"):
            bad = values != 0
        elif base.kind == "b":
            bad = values.view(np.uint8) > 1
        elif name in bounds:
            low, high = bounds[name]
            bad = (values < low) | (values > high)
            if base.kind == "f":
                bad |= np.isnan(values)
        elif base.kind == "f":
            bad = ~np.isfinite(values)
        else:
            continue
        flat = bad.reshape(len(records), -1)
        hit = flat.any(axis=1)
        if not hit.any():
            continue
        i = int(np.argmax(hit))
        if best is not None and i >= best[0]:
            continue
        k = int(np.argmax(flat[i]))
        element = (
            ""
            if flat.shape[1] == 1 and not dtype.fields[name][0].shape
            else "[" + ", ".join(map(str, np.unravel_index(k, dtype.fields[name][0].shape))) + "]"
        )
        value = records[name][i].reshape(-1)[k]
        best = (i, name + element, _problem(name, base, value, bounds.get(name), k))
    return best


def _problem(name: str, base: np.dtype, value, bounds, k: int) -> str:
    if name == "rng":
        return "is 0, which the xorshift generator never leaves (valid: any other value)"
    if name.startswith("_pad"):
        return f"is {int(value)}; padding bytes are always 0"
    if base.kind == "b":
        return f"holds the byte {int(np.asarray(value).view(np.uint8))}; valid: 0 or 1"
    if bounds is None:
        return f"is {value}; valid: a finite number"
    low, high = (float(b.reshape(-1)[k]) for b in bounds)
    top = np.iinfo(base).max if base.kind in "iu" else np.inf
    valid = f">= {_number(low)}" if high >= top else f"{_number(low)}..{_number(high)}"
    return f"is {_number(value)}; valid: {valid}"


def _number(value) -> str:
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:g}"


def _short(dtype: np.dtype) -> str:
    return f"[{', '.join(dtype.names[:4])}{', ...' if len(dtype.names) > 4 else ''}]" if dtype.names else str(dtype)


__all__ = ["BadState", "declared_bounds", "field_bounds", "unbounded_fields", "validate_states"]
