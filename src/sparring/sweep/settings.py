"""What a sweep is (env, space, budget, metric...) and its folder, which holds everything it writes."""

from __future__ import annotations

import dataclasses
import json
import os

from sparring.kit import registry
from sparring.kit.atomic import atomic_file
from sparring.kit.config import make_config
from sparring.players.opponents import resolve_opponent
from sparring.sweep.objective import check_metric
from sparring.sweep.space import Param, split
from sparring.train.config import make_train_config


@dataclasses.dataclass
class SweepSettings:
    """A sweep: ``trials`` in total over ``space``, each trained with ``train`` (the budget among them).

    Every trial trains with seed ``seed`` and is scored by ``metric`` over ``episodes`` fresh
    episodes ``rungs`` times (at equal fractions of its budget; the scores before the last
    drive pruning). ``folder`` holds the study, the table and the plots.
    """

    env: str
    space: list[Param]
    folder: str
    trials: int = 20
    train: dict = dataclasses.field(default_factory=dict)
    env_config: dict = dataclasses.field(default_factory=dict)
    opponent: str | None = None
    metric: str = "win_rate"
    episodes: int = 256
    rungs: int = 4
    seed: int = 0

    def trial_configs(self, values: dict) -> tuple[dict, dict]:
        """(train overrides, env config) of the trial with knob ``values``."""
        train, env = split(values)
        return {**self.train, **train, "seed": self.seed}, {**self.env_config, **env}

    def identity(self) -> dict:
        """What must not change when a sweep resumes (the trial count may grow)."""
        data = dataclasses.asdict(self)
        data.pop("trials"), data.pop("folder")
        data["space"] = [dataclasses.asdict(p) | {"choices": list(p.choices)} for p in self.space]
        return json.loads(json.dumps(data))


def prepare(settings: SweepSettings) -> None:
    """Validate the settings, create the folder and record them; a resumed sweep must match its record."""
    env_cls = registry.get(settings.env)
    check_metric(env_cls, settings.metric)
    if settings.trials < 1 or settings.rungs < 1 or settings.episodes < 1:
        raise ValueError(
            f"trials, rungs and episodes must be >= 1, got {settings.trials}, {settings.rungs}, {settings.episodes}"
        )
    train, env = settings.trial_configs({p.key: p.low if p.kind != "choices" else p.choices[0] for p in settings.space})
    cfg = make_train_config(env_cls, train)
    make_config(env_cls, resolve_opponent(env_cls, settings.opponent, env)[0])  # an unknown opponent fails here
    if cfg.steps <= 0 and cfg.minutes <= 0:
        raise ValueError("give each trial a budget: --steps S or --minutes M (or --train.steps / --train.minutes)")
    os.makedirs(settings.folder, exist_ok=True)
    path = os.path.join(settings.folder, "sweep.json")
    if os.path.exists(path):
        with open(path) as fh:
            recorded = json.load(fh)
        if recorded != settings.identity():
            changed = sorted(k for k in recorded if recorded.get(k) != settings.identity().get(k))
            raise ValueError(
                f"{settings.folder!r} holds a sweep with other settings ({', '.join(changed)} differ); "
                f"rerun it with the same settings to resume, or give another --name"
            )
        return
    with atomic_file(path) as fh:
        json.dump(settings.identity(), fh, indent=1)
