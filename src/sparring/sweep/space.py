"""Search spaces: the ``[sweep]`` table of an env's ``defaults.toml``, validated, turned into Optuna suggestions.

Each entry maps a dotted knob to one range::

    [sweep]
    "train.lr" = {log = [1e-4, 1e-1]}          # log-uniform
    "train.ent_coef" = {linear = [0.0, 0.05]}  # uniform; add step = 0.01 for a grid
    "train.update_epochs" = {linear = [1, 4]}  # integer knobs get integers
    "train.hidden" = {choices = [32, 64, 128]}

Knobs are ``train.NAME`` (a TrainConfig setting) or ``env.NAME`` (the env's config).
"""

from __future__ import annotations

import dataclasses
import tomllib

import optuna

from sparring.kit.config import coerce, toml_defaults
from sparring.kit.files import DamagedFile, read_text
from sparring.train.config import TrainConfig

KINDS = ("log", "linear", "choices")
SPACE_LIMIT = 1 << 20
"""Largest search space file in bytes."""


@dataclasses.dataclass(frozen=True)
class Param:
    """One knob's range: ``kind`` is log, linear or choices; ``integer`` follows the knob's type."""

    key: str
    kind: str
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple = ()
    integer: bool = False

    @property
    def group(self) -> str:
        """``train`` or ``env``."""
        return self.key.partition(".")[0]

    @property
    def name(self) -> str:
        """The setting's name within its group."""
        return self.key.partition(".")[2]

    def distribution(self) -> optuna.distributions.BaseDistribution:
        """The Optuna distribution of this range."""
        if self.kind == "choices":
            return optuna.distributions.CategoricalDistribution(self.choices)
        log = self.kind == "log"
        if self.integer:
            return optuna.distributions.IntDistribution(
                int(self.low), int(self.high), log=log, step=int(self.step or 1)
            )
        return optuna.distributions.FloatDistribution(self.low, self.high, log=log, step=self.step)


def _field(env_cls, group: str, name: str) -> dataclasses.Field | None:
    fields = dataclasses.fields(TrainConfig if group == "train" else env_cls.Config)
    return next((f for f in fields if f.name == name), None)


def parse_param(env_cls, key: str, spec) -> Param:
    """One ``[sweep]`` entry as a Param; a ValueError names the entry and what would be valid."""
    where = f"sweep entry {key!r}"
    group, dot, name = key.partition(".")
    if not dot or group not in ("train", "env"):
        raise ValueError(f'{where}: keys look like train.NAME or env.NAME (e.g. "train.lr")')
    field = _field(env_cls, group, name)
    if field is None:
        valid = sorted(f.name for f in dataclasses.fields(TrainConfig if group == "train" else env_cls.Config))
        raise ValueError(f"{where}: no {group} setting {name!r}; valid: {', '.join(valid)}")
    if not isinstance(spec, dict) or len(set(spec) & set(KINDS)) != 1 or set(spec) - {*KINDS, "step"}:
        raise ValueError(
            f"{where}: give exactly one of {{log = [LOW, HIGH]}}, {{linear = [LOW, HIGH]}} (optional "
            f"step = S) or {{choices = [A, B, ...]}}; got {spec!r}"
        )
    kind = next(k for k in KINDS if k in spec)
    if kind == "choices":
        values = spec["choices"]
        if not isinstance(values, list) or not values or "step" in spec:
            raise ValueError(f"{where}: choices must be a non-empty list (and take no step), got {spec!r}")
        return Param(key, kind, choices=tuple(coerce(where, field, v) for v in values))
    bounds = spec[kind]
    if (
        not isinstance(bounds, list)
        or len(bounds) != 2
        or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
    ):
        raise ValueError(f"{where}: {kind} takes [LOW, HIGH] as two numbers, got {bounds!r}")
    low, high = (float(b) for b in bounds)
    if not low < high or (kind == "log" and low <= 0):
        raise ValueError(f"{where}: need LOW < HIGH{' and LOW > 0 for log' if kind == 'log' else ''}, got {bounds}")
    step = spec.get("step")
    if step is not None and (not isinstance(step, (int, float)) or step <= 0 or kind == "log"):
        raise ValueError(f"{where}: step must be a positive number, and only with linear; got {step!r}")
    integer = field.type in (int, "int")
    if integer and not (low.is_integer() and high.is_integer() and (step is None or float(step).is_integer())):
        raise ValueError(f"{where}: {group}.{name} is an integer setting; bounds and step must be integers")
    if field.type not in (int, "int", float, "float"):
        raise ValueError(f"{where}: {group}.{name} is not numeric; sweep it with choices = [...]")
    coerce(where, field, low), coerce(where, field, high)
    return Param(key, kind, low, high, None if step is None else float(step), integer=integer)


def parse_space(env_cls, table: dict) -> list[Param]:
    """Every entry of a ``[sweep]`` table (at least one), validated."""
    if not isinstance(table, dict) or not table:
        raise ValueError(
            f"no search space: add a [sweep] table to the defaults.toml of {env_cls.name!r} or pass "
            f'--space FILE.toml, with entries like "train.lr" = {{log = [1e-4, 1e-2]}}'
        )
    return [parse_param(env_cls, key, spec) for key, spec in table.items()]


def load_space(env_cls, path: str | None = None) -> list[Param]:
    """The ``[sweep]`` table of ``path`` (a TOML file), or else of the env's ``defaults.toml``."""
    if path is None:
        return parse_space(env_cls, toml_defaults(env_cls, "sweep"))
    text = read_text(path, "search space file (TOML)", SPACE_LIMIT, "give a TOML file with a [sweep] table")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DamagedFile(path, f"not a readable search space file (TOML: {exc})", "fix its [sweep] table") from None
    table = data.get("sweep", {})
    if not isinstance(table, dict):
        raise DamagedFile(path, f"its 'sweep' is a {type(table).__name__}, not a table of knobs", "fix its [sweep]")
    return parse_space(env_cls, table)


def suggest(trial, space: list[Param]) -> dict[str, object]:
    """Ask ``trial`` (Optuna, define-by-run) for a value of every knob; returns key -> value."""
    values = {}
    for p in space:
        if p.kind == "choices":
            values[p.key] = trial.suggest_categorical(p.key, list(p.choices))
        elif p.integer:
            values[p.key] = trial.suggest_int(
                p.key, int(p.low), int(p.high), step=int(p.step or 1), log=p.kind == "log"
            )
        else:
            values[p.key] = trial.suggest_float(p.key, p.low, p.high, step=p.step, log=p.kind == "log")
    return values


def split(values: dict[str, object]) -> tuple[dict, dict]:
    """``{"train.lr": 0.01, "env.size": 9}`` -> ({"lr": 0.01}, {"size": 9}): train overrides and env config."""
    train, env = {}, {}
    for key, value in values.items():
        group, _, name = key.partition(".")
        (train if group == "train" else env)[name] = value
    return train, env
