"""``sparring ablate``: one knob changed at a time from a base config, each value trained over K seeds, tested."""

from __future__ import annotations

import dataclasses
import json

from sparring.kit import registry
from sparring.kit.config import make_config
from sparring.kit.progress import silent
from sparring.players.opponents import resolve_opponent
from sparring.sweep.objective import check_metric, train_and_score
from sparring.sweep.stats import TESTS, Comparison, bootstrap_ci, compare_to_base
from sparring.train.config import TrainConfig, make_train_config


@dataclasses.dataclass
class Knob:
    """A dotted knob (``train.lr`` or ``env.size``) and the values to try, as given on the command line."""

    group: str
    name: str
    values: list[str]

    @property
    def key(self) -> str:
        """``group.name``."""
        return f"{self.group}.{self.name}"


def parse_knob(text: str, env_cls) -> Knob:
    """``train.lr=0,0.01`` -> Knob; a bare name is looked up among train settings, then the env's config."""
    key, eq, values = text.partition("=")
    items = [v.strip() for v in values.split(",") if v.strip()]
    if not eq or not key or len(items) < 2:
        raise ValueError(f"--knob {text!r}: expected KEY=A,B[,C...] with at least two values, e.g. train.lr=3e-4,1e-3")
    if len(set(items)) != len(items):
        raise ValueError(f"--knob {text!r} repeats a value")
    group, dot, name = key.partition(".")
    if not dot:
        group, name = ("train" if key in _train_fields() else "env"), key
    if group not in ("train", "env"):
        raise ValueError(f"--knob {text!r}: the key's group must be train or env, e.g. train.lr or env.size")
    knob = Knob(group, name, items)
    for value in items:  # fail before any training on a bad key or value
        _configs(env_cls, knob, value, {}, {})
    return knob


def _train_fields() -> set[str]:
    return {f.name for f in dataclasses.fields(TrainConfig)}


def _configs(env_cls, knob: Knob, value, train: dict, env: dict) -> tuple[dict, dict]:
    """(train overrides, env config) with ``knob`` set to ``value``, validated."""
    train, env = dict(train), dict(env)
    (train if knob.group == "train" else env)[knob.name] = value
    make_train_config(env_cls, train)
    make_config(env_cls, env)
    return train, env


def base_value(env_cls, knob: Knob, train: dict, env: dict) -> str:
    """The knob's value in the base config (defaults, the env's TOML, then the given overrides), as text."""
    config = make_train_config(env_cls, train) if knob.group == "train" else make_config(env_cls, env)
    value = getattr(config, knob.name)
    for item in knob.values:  # "1e-2" on the command line names the base value 0.01
        if _configs_value(env_cls, knob, item) == value:
            return item
    return str(value)


def _configs_value(env_cls, knob: Knob, item: str):
    train, env = _configs(env_cls, knob, item, {}, {})
    config = make_train_config(env_cls, train) if knob.group == "train" else make_config(env_cls, env)
    return getattr(config, knob.name)


@dataclasses.dataclass
class Ablation:
    """Per value the K scores; the base value's label; the comparisons against it."""

    knob: str
    metric: str
    test: str
    base: str
    scores: dict[str, list[float]]
    comparisons: list[Comparison]

    def table(self) -> str:
        """Value, mean, 95% bootstrap interval, raw and Holm-corrected p, verdict."""
        k = len(self.scores[self.base])
        lo, hi = bootstrap_ci(self.scores[self.base])
        base_mean = sum(self.scores[self.base]) / k
        lines = [
            f"ablation of {self.knob} ({self.metric}, {k} seeds per value, {self.test} test vs base, Holm-corrected)",
            f"  {'value':<14} {'mean':>8}  {'95% CI':<19} {'p':>7} {'p(Holm)':>8}  verdict",
            f"  {self.base + ' (base)':<14} {base_mean:>8.4g}  [{lo:.4g}, {hi:.4g}]",
        ]
        for c in self.comparisons:
            ci = f"[{c.ci95[0]:.4g}, {c.ci95[1]:.4g}]"
            lines.append(
                f"  {c.label:<14} {c.mean:>8.4g}  {ci:<19} {c.p_value:>7.3g} {c.p_adjusted:>8.3g}  {c.verdict}"
            )
        return "\n".join(lines)

    def to_json(self) -> str:
        """The whole result as JSON."""
        return json.dumps(dataclasses.asdict(self), indent=1)


def ablate(
    env_name: str,
    knob_text: str,
    seeds: int = 5,
    train: dict | None = None,
    env: dict | None = None,
    opponent: str | None = None,
    metric: str = "win_rate",
    test: str = "welch",
    episodes: int = 256,
    first_seed: int = 0,
    progress=None,
) -> Ablation:
    """Train every value of the knob (and the base value, if not listed) over seeds ``first_seed..+seeds-1``.

    ``train`` holds the base config's train overrides, the budget among them; each value is
    scored by ``metric`` on the same evaluation episodes. ``progress`` (a
    :class:`~sparring.kit.progress.Progress`) counts the trainings, the running one by its part of
    the budget, and gets a line per finished training (value, seed, score).
    """
    progress = progress or silent()
    env_cls = registry.get(env_name)
    check_metric(env_cls, metric)
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; valid: {', '.join(TESTS)}")
    if seeds < 2:
        raise ValueError(f"--seeds must be >= 2 for a significance test, got {seeds}")
    if not (isinstance(first_seed, int) and 0 <= first_seed <= 2**63 - 1 - seeds):
        raise ValueError(f"--first-seed must be an integer in [0, 2**63-1-seeds], got {first_seed!r}")
    train, env = dict(train or {}), dict(env or {})
    knob = parse_knob(knob_text, env_cls)
    if "seed" in train or knob.key == "train.seed":
        raise ValueError("ablate sets train.seed itself (--seeds K, --first-seed S); do not override it")
    resolve_opponent(env_cls, opponent, env)  # an unknown opponent fails before any training
    base = base_value(env_cls, knob, train, env)
    labels = knob.values if base in knob.values else [base, *knob.values]
    scores: dict[str, list[float]] = {label: [] for label in labels}
    progress.start(seeds * len(labels), unit="training")
    done = 0
    for seed in range(first_seed, first_seed + seeds):  # seed-major: a slow drift of the machine hits every value
        for label in labels:
            progress.status(f"{knob.key}={label} seed {seed}")
            overrides, config = _configs(env_cls, knob, label, {**train, "seed": seed}, env)
            value = train_and_score(
                env_name,
                overrides,
                config,
                opponent,
                metric,
                episodes,
                on_iteration=lambda part: progress.update(done + part),
            )
            scores[label].append(value)
            done += 1
            progress.update(done)
            progress.print(f"{knob.key}={label} seed {seed}: {metric}={value:.4g}")
    others = {label: scores[label] for label in labels if label != base}
    return Ablation(knob.key, metric, test, base, scores, compare_to_base(scores[base], others, test))
