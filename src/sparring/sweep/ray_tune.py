"""The Ray Tune sweep backend: the same trials through Ray Tune, searched by OptunaSearch, pruned by ASHA.

Runs on a local Ray instance, or unchanged on the cluster at ``address`` (whose nodes need this
package). Tune's own records go to ``<sweep folder>/ray``; a rerun of an interrupted sweep (with the
same ``--trials``: a Tune experiment's trial count is fixed) restores them and runs the trials
that did not finish. The results come back as an in-memory
Optuna study, so both backends share one report.
"""

from __future__ import annotations

import datetime
import json
import os

import optuna

from sparring.kit.atomic import atomic_file
from sparring.sweep.objective import train_and_score
from sparring.sweep.settings import SweepSettings
from sparring.sweep.space import suggest
from sparring.train.ray_cluster import check_ray_address, init_ray

METRIC = "score"


class _DefineByRun:
    """OptunaSearch's define-by-run space: the local backend's suggestions (a class, so Tune can pickle it)."""

    def __init__(self, space: list):
        self.space = space

    def __call__(self, trial: optuna.Trial) -> None:
        suggest(trial, self.space)


def _trainable(settings: SweepSettings):
    """The Tune function trainable of ``settings``: train, reporting the score after every rung."""

    def trainable(config: dict) -> None:
        from ray import tune

        train, env = settings.trial_configs(config)
        train.setdefault("threads", 1)  # each trial holds one CPU of the cluster

        def report(value: float, rung: int) -> None:
            tune.report({METRIC: value, "rung": rung})

        train_and_score(
            settings.env, train, env, settings.opponent, settings.metric, settings.episodes, settings.rungs, report
        )

    return trainable


def run_ray(settings: SweepSettings, address: str = "") -> optuna.Study:
    """Run the sweep through Ray Tune (OptunaSearch with TPE, ASHA over rungs); returns the trials as a study."""
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler
    from ray.tune.search.optuna import OptunaSearch

    check_ray_address(address)
    init_ray(address)
    path = os.path.abspath(os.path.join(settings.folder, "ray"))
    trainable = tune.with_resources(_trainable(settings), {"cpu": 1})
    count = os.path.join(path, "trials.json")
    if tune.Tuner.can_restore(os.path.join(path, "tune")):
        with open(count) as fh:
            trials = json.load(fh)
        if trials != settings.trials:
            raise ValueError(
                f"the Ray sweep in {settings.folder!r} was started with --trials {trials}; a Ray Tune "
                f"experiment cannot change its trial count: rerun with --trials {trials} to resume, or "
                f"give another --name"
            )
        tuner = tune.Tuner.restore(os.path.join(path, "tune"), trainable, resume_unfinished=True, resume_errored=True)
    else:
        os.makedirs(path, exist_ok=True)
        with atomic_file(count) as fh:
            json.dump(settings.trials, fh)
        search = OptunaSearch(
            space=_DefineByRun(settings.space),
            metric=METRIC,
            mode="max",
            sampler=optuna.samplers.TPESampler(seed=settings.seed, n_startup_trials=5),
        )
        scheduler = ASHAScheduler(
            time_attr="rung", metric=METRIC, mode="max", max_t=settings.rungs, grace_period=1, reduction_factor=2
        )
        tuner = tune.Tuner(
            trainable,
            tune_config=tune.TuneConfig(
                search_alg=search, scheduler=scheduler, num_samples=settings.trials, reuse_actors=True
            ),  # import torch once per worker
            run_config=tune.RunConfig(name="tune", storage_path=path, verbose=0),
        )
    return results_study(tuner.fit(), settings)


def results_study(results, settings: SweepSettings) -> optuna.Study:
    """Tune's results as an in-memory Optuna study: complete when the last rung was scored, pruned when ASHA
    stopped it earlier, failed on an error."""
    distributions = {p.key: p.distribution() for p in settings.space}
    study = optuna.create_study(direction="maximize", study_name="sweep-ray")
    ordered = sorted(results, key=lambda r: r.metrics.get("trial_id", "") if r.metrics else "")
    for result in ordered:
        params = {k: v for k, v in (result.config or {}).items() if k in distributions}
        frame = result.metrics_dataframe
        steps = {} if frame is None or METRIC not in frame else dict(zip(frame["rung"].astype(int), frame[METRIC]))
        if result.error is not None or not steps or len(params) != len(distributions):
            state, value = optuna.trial.TrialState.FAIL, None
        elif max(steps) == settings.rungs:
            state, value = optuna.trial.TrialState.COMPLETE, float(steps[settings.rungs])
        else:
            state, value = optuna.trial.TrialState.PRUNED, None
        trial = optuna.trial.create_trial(
            params=params,
            distributions=distributions,
            value=value,
            intermediate_values={int(k): float(v) for k, v in steps.items()},
            state=state,
        )
        if frame is not None and len(frame) and "timestamp" in frame:
            trial.datetime_complete = datetime.datetime.fromtimestamp(float(frame["timestamp"].iloc[-1]))
            spent = datetime.timedelta(seconds=float(frame["time_total_s"].iloc[-1]))
            trial.datetime_start = trial.datetime_complete - spent
        study.add_trial(trial)
    return study
