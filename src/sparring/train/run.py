"""``sparring train``: a run folder, the training loop with dashboard and checkpoints, and plots."""

from __future__ import annotations

import dataclasses
import json
import os
import time

from sparring.kit import registry
from sparring.kit.atomic import new_folder
from sparring.kit.config import make_config
from sparring.kit.files import DamagedFile, read_json
from sparring.kit.progress import silent
from sparring.players.load import REMEDY, resolve
from sparring.train.checkpoint import read_resume_meta, restore_trainer, save_checkpoint
from sparring.train.config import TrainConfig, make_train_config
from sparring.train.dashboard import show
from sparring.train.footprint import check_training_memory
from sparring.train.imitate import check_imitation, imitate
from sparring.train.metrics import MetricsLog, metric_columns
from sparring.kit.remote import WorkerLost
from sparring.train.parallel import ParallelTrainer
from sparring.train.plots import plot_run
from sparring.train.trainer import Trainer


def make_trainer(env_name, cfg: TrainConfig, *args, **kwargs):
    """The run's trainer: data-parallel Ray workers for ``train.vec ray``, else one in-process :class:`Trainer`."""
    if cfg.vec == "ray":
        return ParallelTrainer(env_name, cfg, *args, **kwargs)
    return Trainer(env_name, cfg, *args, **kwargs)


def _resumed_config(meta: dict, overrides: dict, path: str) -> TrainConfig:
    """The run's config from the checkpoint's meta.json (a bad value there names the file), then ``overrides``."""
    try:
        make_train_config(None, meta["train_config"])
    except ValueError as exc:
        raise DamagedFile(
            os.path.join(resolve(path), "meta.json"), f"its train_config is not valid: {exc}", REMEDY
        ) from None
    return make_train_config(None, {**meta["train_config"], **overrides})


def train(
    env_name: str | None = None,
    overrides: dict | None = None,
    env_config: dict | None = None,
    opponent: str | None = None,
    resume: str | None = None,
    runs_dir: str = "runs",
    progress=None,
    seats: dict | None = None,
) -> str:
    """Train (or resume) a run: config, metrics, checkpoints and plots in its folder, which it returns.

    The final evaluation (``eval.json``) is the ``sparring train`` command's, run after this.

    ``overrides`` are ``--train.KEY`` values (strings allowed); on resume they may only
    extend the budget or change logging, the rest comes from the checkpoint. ``progress``
    (a :class:`~sparring.kit.progress.Progress`) shows the steps, steps/s, ETA, episode metrics and losses.
    """
    overrides = dict(overrides or {})
    progress = progress or silent()
    progress.status("building the envs and the policy (compiling the env's kernels on a first run)")
    if resume is not None:
        meta = read_resume_meta(resume)
        if env_name is not None and env_name != meta["env"]:
            raise ValueError(f"run {resume!r} trained env {meta['env']!r}, not {env_name!r}")
        env_name, run_dir = meta["env"], _run_folder_of(resume)
        check_resumed_env(registry.get(env_name), meta["env_config"], env_config or {}, resume)
        check_run_config(run_dir, env_name)
        cfg = _resumed_config(meta, overrides, resume)
        check_training_memory(registry.get(env_name), meta["env_config"], cfg)
        trainer = make_trainer(env_name, cfg, meta["env_config"], meta["opponent"], meta.get("seats"), warm=False)
        restore_trainer(trainer, resume)
    else:
        env_cls = registry.get(env_name)
        cfg = make_train_config(env_cls, overrides)
        _check_budget(cfg)
        check_training_memory(env_cls, env_config or {}, cfg)
        trainer = make_trainer(env_name, cfg, env_config, opponent, seats)
        try:
            check_imitation(cfg, trainer.env)
        except ValueError:
            trainer.close()
            raise
        run_dir = new_folder(runs_dir, env_name)
    _check_budget(cfg)
    with open(os.path.join(run_dir, "config.json"), "w") as fh:
        json.dump(
            {
                "env": env_name,
                "env_config": trainer.env_config,
                "opponent": trainer.opponent_name,
                "seats": trainer.seats,
                "train": dataclasses.asdict(cfg),
            },
            fh,
            indent=1,
        )
    log = MetricsLog(
        run_dir,
        metric_columns(trainer.env.env_cls),
        trainer.global_step if resume else None,
        tensorboard=cfg.tensorboard,
        wandb=cfg.wandb,
        wandb_config=dataclasses.asdict(cfg),
    )
    last_save = time.monotonic()
    progress.start(cfg.steps if cfg.steps > 0 else None, unit="step", done=trainer.global_step)
    try:
        if cfg.imitate and resume is None:
            progress.status(f"imitating {cfg.imitate} -> {run_dir}")
        for metrics in imitate(trainer) if cfg.imitate and resume is None else ():
            log.write(metrics)
            show(progress, metrics, trainer.progress())
        progress.status(f"training -> {run_dir}")
        if cfg.vec == "ray" and resume is None:
            save_checkpoint(run_dir, trainer, cfg.keep_checkpoints)  # where a lost worker's run starts again
        restarts = 0
        while not trainer.finished():
            try:
                metrics = trainer.iterate()
                log.write(metrics)
                show(progress, metrics, trainer.progress())
                if time.monotonic() - last_save >= cfg.checkpoint_s:
                    save_checkpoint(run_dir, trainer, cfg.keep_checkpoints)
                    last_save = time.monotonic()
            except WorkerLost as exc:
                if restarts >= cfg.worker_restarts:
                    raise WorkerLost(
                        f"{exc} (after {restarts} restarts, train.worker_restarts); the run's last checkpoint is "
                        f"intact: sparring train --resume {run_dir}"
                    ) from None
                restarts += 1
                log = _restart_from_checkpoint(trainer, run_dir, log, exc, restarts, progress)
        progress.status(f"saving the checkpoint and plots -> {run_dir}")
        save_checkpoint(run_dir, trainer, cfg.keep_checkpoints)
    finally:
        log.close()
        trainer.close()
    plot_run(run_dir)
    return run_dir


def _restart_from_checkpoint(trainer, run_dir: str, log: MetricsLog, lost: Exception, restarts: int, progress):
    """A data-parallel run lost a worker: start the workers anew and go on from the run's last checkpoint (the
    metrics logged after it are dropped, as on a resume); returns the reopened log."""
    progress.status(f"{lost}; restart {restarts}/{trainer.cfg.worker_restarts} from the last checkpoint")
    trainer.restart()
    restore_trainer(trainer, run_dir)
    log.close()
    return MetricsLog(
        run_dir,
        metric_columns(trainer.env.env_cls),
        trainer.global_step,
        tensorboard=trainer.cfg.tensorboard,
        wandb=trainer.cfg.wandb,
        wandb_config=dataclasses.asdict(trainer.cfg),
    )


def check_resumed_env(env_cls: type, trained: dict, given: dict, run: str) -> None:
    """A resume keeps the env config the run trained with: an ``--env.KEY`` that repeats its value is accepted,
    one that changes it is a ValueError naming the key (and saying when it changes the observation or action
    layout, which the policy's weights are shaped for)."""
    if not given:
        return
    before = make_config(env_cls, trained)
    after = make_config(env_cls, {**trained, **given})  # a bad value fails here, naming the key
    changed = [key for key in given if getattr(before, key) != getattr(after, key)]
    if not changed:
        return
    key = changed[0]
    old, new = env_cls.obs_spec(before), env_cls.obs_spec(after)
    if (old.size, str(old.dtype)) != (new.size, str(new.dtype)):
        why = (
            f"; {key}={getattr(after, key)!r} changes the observation layout its policy has ({old.size} -> {new.size})"
        )
    else:
        why = "; a resume goes on with the env config the run trained with"
    raise ValueError(
        f"--env.{key} {given[key]!r}: run {run!r} trained with {key}={getattr(before, key)!r}{why}; "
        f"drop --env.{key} (or repeat its value), or train anew"
    )


def check_run_config(run_dir: str, env_name: str) -> None:
    """The run's config.json, when there is one, is a JSON object of the run's env (it is rewritten on resume)."""
    path = os.path.join(run_dir, "config.json")
    if not os.path.lexists(path):
        return
    config = read_json(path, "run config", "remove it (a resume writes it anew) or resume another run")
    if config.get("env", env_name) != env_name:
        raise DamagedFile(
            path,
            f"names env {str(config.get('env'))[:40]!r}, but the run's checkpoint trained {env_name!r}",
            "remove it (a resume writes it anew) or resume another run",
        )


def _check_budget(cfg: TrainConfig) -> None:
    if cfg.steps <= 0 and cfg.minutes <= 0:
        raise ValueError("give a budget: --minutes M or --steps S (or --train.minutes / --train.steps)")


def _run_folder_of(path: str) -> str:
    """The run folder of a run, checkpoints or checkpoint path."""
    path = os.path.abspath(path)
    while path != os.path.dirname(path):
        if os.path.exists(os.path.join(path, "metrics.jsonl")) or os.path.exists(os.path.join(path, "config.json")):
            return path
        path = os.path.dirname(path)
    raise ValueError("could not find the run folder (with metrics.jsonl) above the checkpoint")
