"""The local sweep backend: Optuna (TPE, median pruning) with its study in SQLite, so a rerun resumes."""

from __future__ import annotations

import os

import optuna

from sparring.kit.progress import silent
from sparring.sweep.objective import train_and_score
from sparring.sweep.settings import SweepSettings
from sparring.sweep.space import suggest

STUDY = "sweep"
FINISHED = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)


def storage_url(folder: str) -> str:
    """The SQLite URL of a sweep folder's study."""
    return f"sqlite:///{os.path.abspath(os.path.join(folder, 'study.db'))}"


def load_study(folder: str, seed: int = 0) -> optuna.Study:
    """The folder's study (created if new); trials left running by an interrupted sweep are marked failed."""
    storage = optuna.storages.RDBStorage(storage_url(folder))
    probe = optuna.create_study(storage=storage, study_name=STUDY, direction="maximize", load_if_exists=True)
    for trial in probe.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        storage.set_trial_state_values(trial._trial_id, optuna.trial.TrialState.FAIL)
    # a resumed sampler must not replay the suggestions of the first run: offset its seed by the trials so far
    sampler = optuna.samplers.TPESampler(seed=seed + len(probe.trials), n_startup_trials=5)
    pruner = optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=0)
    return optuna.load_study(study_name=STUDY, storage=storage, sampler=sampler, pruner=pruner)


def finished_trials(study: optuna.Study) -> int:
    """Completed plus pruned trials."""
    return len(study.get_trials(deepcopy=False, states=FINISHED))


def run_local(settings: SweepSettings, on_trial=None, progress=None) -> optuna.Study:
    """Run as many trials as the study lacks of ``settings.trials`` finished ones; returns the study.

    A trial that raises is recorded as failed and not retried. ``on_trial(study, trial)`` is
    called after each trial. ``progress`` (a :class:`~sparring.kit.progress.Progress`) counts the
    finished trials, the running one by its part of the budget, with the best score so far.
    """
    progress = progress or silent()
    study = load_study(settings.folder, settings.seed)
    finished = finished_trials(study)

    def objective(trial: optuna.Trial) -> float:
        train, env = settings.trial_configs(suggest(trial, settings.space))

        def report(value: float, rung: int) -> None:
            trial.report(value, rung)
            if rung < settings.rungs and trial.should_prune():
                raise optuna.TrialPruned(f"{settings.metric}={value:.4g} at rung {rung}")

        progress.status(f"trial {trial.number}")
        return train_and_score(
            settings.env,
            train,
            env,
            settings.opponent,
            settings.metric,
            settings.episodes,
            settings.rungs,
            report,
            on_iteration=lambda fraction: progress.update(finished + fraction),
        )

    def after_trial(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        nonlocal finished
        finished = finished_trials(study)
        complete = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        figures = {f"best_{settings.metric}": max(t.value for t in complete)} if complete else {}
        figures["pruned"] = finished - len(complete)
        progress.update(finished, figures)
        if on_trial is not None:
            on_trial(study, trial)

    remaining = settings.trials - finished
    progress.start(settings.trials, unit="trial", done=finished)
    if remaining > 0:
        callbacks = [after_trial]
        # failed trials (e.g. a diverged config raising) are recorded and do not stop the sweep
        study.optimize(objective, n_trials=remaining, callbacks=callbacks, catch=(RuntimeError, ValueError))
    return study
