"""The recording format: Parquet columns, file metadata, and the checks made when reading.

One row per agent per tick. A row at tick ``t`` holds the state record *before*
the step of tick ``t`` (so restoring it and applying the row's action reproduces
the next row), the observation and mask the agent acted on, its action, and the
reward and end flags that action produced. Each episode ends with one ``final``
row per agent holding the last state; its action, reward and flags are null.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pyarrow as pa

import sparring
from sparring.kit import registry
from sparring.kit.config import make_config

SCHEMA_VERSION = 1
PREFIX = "sparring."


class RecordingError(ValueError):
    """A file that is not a readable sparring recording for the requested env."""


_META_TYPES = {
    "env": str,
    "config": dict,
    "record_dtype": str,
    "num_agents": int,
    "heads": dict,
    "phases": list,
    "metrics": list,
    "policy": str,
    "package_version": str,
    "forked_from": (dict, type(None)),
}
_KIND_NAMES = {str: "a string", dict: "a JSON object", int: "an integer", list: "a list"}


def dtype_to_json(dtype: np.dtype) -> str:
    """A canonical JSON text of a structured dtype: names, formats with shapes, offsets, itemsize."""
    formats = []
    for name in dtype.names:
        field = dtype.fields[name][0]
        if field.subdtype is not None:
            base, shape = field.subdtype
            formats.append([base.str, list(shape)])
        else:
            formats.append(field.str)
    offsets = [dtype.fields[name][1] for name in dtype.names]
    return json.dumps(
        {"names": list(dtype.names), "formats": formats, "offsets": offsets, "itemsize": dtype.itemsize},
        separators=(",", ":"),
    )


@dataclasses.dataclass(frozen=True)
class Meta:
    """What a recording says about itself (its Parquet key-value metadata)."""

    schema_version: int
    env: str
    config: dict
    record_dtype: str
    num_agents: int
    heads: dict
    phases: list
    metrics: list
    policy: str
    package_version: str
    forked_from: dict | None = None

    def to_arrow(self) -> dict[bytes, bytes]:
        """The metadata as Parquet key-value pairs (every value JSON text)."""
        return {(PREFIX + k).encode(): json.dumps(v).encode() for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_arrow(cls, kv: dict | None, where: str) -> "Meta":
        """Parse and version-check the metadata of ``where``; raise RecordingError if it is not ours."""
        try:
            kv = {k.decode(): json.loads(v.decode()) for k, v in (kv or {}).items() if k.startswith(PREFIX.encode())}
        except ValueError as exc:  # bytes that are not UTF-8 JSON
            raise RecordingError(f"{where}: its recording metadata is garbled ({exc}); record it again") from None
        if PREFIX + "schema_version" not in kv:
            raise RecordingError(
                f"{where} is not a sparring recording (its Parquet metadata has no {PREFIX}schema_version key)"
            )
        version = kv[PREFIX + "schema_version"]
        if version != SCHEMA_VERSION:
            raise RecordingError(
                f"{where} uses recording schema version {version}; this sparring "
                f"{sparring.__version__} reads version {SCHEMA_VERSION} only"
            )
        values = {f.name: kv[PREFIX + f.name] for f in dataclasses.fields(cls) if PREFIX + f.name in kv}
        missing = [f.name for f in dataclasses.fields(cls) if f.name not in values and f.default is dataclasses.MISSING]
        if missing:
            raise RecordingError(f"{where} lacks recording metadata {missing}")
        for name, kind in _META_TYPES.items():
            if not isinstance(values.get(name), kind) or isinstance(values.get(name), bool) and kind is int:
                valid = _KIND_NAMES.get(kind, "a JSON object or null")
                raise RecordingError(
                    f"{where}: recording metadata {PREFIX}{name} is {values.get(name)!r:.60}, not "
                    f"{valid} as in every recording; record it again"
                )
        return cls(**values)

    def check_env(self, env: str | None, where: str) -> None:
        """Fail clearly when the caller expects another env than the one recorded."""
        if env is not None and env != self.env:
            raise RecordingError(f"{where} records env {self.env!r}, not {env!r}")

    def env_class(self, where: str) -> type:
        """The registered env class, after checking its state layout still matches the recording."""
        try:
            env_cls = registry.get(self.env)
        except LookupError as exc:
            raise RecordingError(f"{where} records env {self.env!r}, which is not registered: {exc}") from None
        now = dtype_to_json(env_cls.record_dtype)
        if now != self.record_dtype:
            raise RecordingError(
                f"{where}: env {self.env!r} has changed its state record since the recording "
                f"was made ({_layout_change(self.record_dtype, now)}); its states cannot be "
                f"restored by this version of the env"
            )
        return env_cls

    def env_config(self, env_cls: type):
        """The recorded config as the env's Config dataclass."""
        return make_config(env_cls, self.config)


def _layout_change(old: str, new: str) -> str:
    """The first few differences between two :func:`dtype_to_json` layouts, in words."""
    try:
        a, b = json.loads(old), json.loads(new)
        a["names"], a["formats"], a["itemsize"]
    except (ValueError, TypeError, KeyError):
        return "the recorded layout is unreadable"
    fa, fb = dict(zip(a["names"], a["formats"])), dict(zip(b["names"], b["formats"]))
    diffs = [f"{n} removed" for n in fa if n not in fb] + [f"{n} added" for n in fb if n not in fa]
    diffs += [f"{n} {fa[n]} -> {fb[n]}" for n in fa if n in fb and fa[n] != fb[n]]
    if a["itemsize"] != b["itemsize"]:
        diffs.append(f"record size {a['itemsize']} -> {b['itemsize']} bytes")
    if not diffs:
        diffs.append("field order or offsets changed")
    return "; ".join(diffs[:4] + (["..."] if len(diffs) > 4 else []))


def meta_for(env, policy: str, forked_from: dict | None = None) -> Meta:
    """The metadata of a recording of BatchedEnv ``env`` played by ``policy``."""
    cls = env.env_cls
    return Meta(
        schema_version=SCHEMA_VERSION,
        env=cls.name,
        config=dataclasses.asdict(env.config),
        record_dtype=dtype_to_json(cls.record_dtype),
        num_agents=int(cls.num_agents),
        heads=dict(zip(cls.actions.names, cls.actions.sizes.tolist())),
        phases=list(cls.phases),
        metrics=list(cls.metrics),
        policy=policy,
        package_version=sparring.__version__,
        forked_from=forked_from,
    )


def arrow_schema(env, meta: Meta, text: bool) -> pa.Schema:
    """The column layout of a recording of BatchedEnv ``env`` (text columns when ``text``)."""
    return pa.schema(_fields(env.env_cls, env.obs_spec, text), metadata=meta.to_arrow())


def check_columns(schema: pa.Schema, env_cls: type, config, where: str) -> None:
    """Fail clearly when a recording's columns are not those of ``env_cls`` with ``config`` (names and types)."""
    text = "obs_text" in schema.names
    for field in _fields(env_cls, env_cls.obs_spec(config), text):
        if field.name not in schema.names:
            raise RecordingError(
                f"{where} lacks the column {field.name!r} of every {env_cls.name} recording; "
                "it is damaged or not a recording: record it again"
            )
        if not schema.field(field.name).type.equals(field.type):
            raise RecordingError(
                f"{where}: column {field.name!r} is {schema.field(field.name).type}, not the "
                f"{field.type} of a {env_cls.name} recording with its config; record it again"
            )


def _fields(cls: type, obs, text: bool) -> list[pa.Field]:
    n_heads = len(cls.actions.names)
    fields = [
        pa.field("env", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("episode", pa.int64(), nullable=False),
        pa.field("tick", pa.int32(), nullable=False),
        pa.field("agent", pa.int16(), nullable=False),
        pa.field("final", pa.bool_(), nullable=False),
        pa.field("learner", pa.bool_(), nullable=False),
        pa.field("phase", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("obs", pa.list_(pa.from_numpy_dtype(obs.dtype), obs.size), nullable=False),
        pa.field("mask", pa.list_(pa.bool_(), cls.actions.total), nullable=False),
        pa.field("action", pa.list_(pa.int32(), n_heads)),
        pa.field("reward", pa.float32()),
        pa.field("terminal", pa.bool_()),
        pa.field("truncated", pa.bool_()),
        pa.field("logp", pa.float32()),
        pa.field("value", pa.float32()),
        pa.field("episode_return", pa.float32(), nullable=False),
        pa.field("episode_length", pa.int32(), nullable=False),
        *[pa.field(f"metric_{m}", pa.float32(), nullable=False) for m in cls.metrics],
        pa.field("state", pa.binary(cls.record_dtype.itemsize), nullable=False),
    ]
    if text:
        fields += [pa.field("obs_text", pa.string(), nullable=False), pa.field("action_text", pa.string())]
    return fields


def action_text(names, action) -> str:
    """An action as text, one ``head=value`` per head: ``"move=4 style=1"``."""
    return " ".join(f"{n}={int(v)}" for n, v in zip(names, action))
