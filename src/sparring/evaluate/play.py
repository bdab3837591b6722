"""``sparring eval`` and ``sparring watch``: a checkpoint against an opponent, in numbers or on screen."""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np
import torch

from sparring.evaluate.chart import write_failure_chart
from sparring.evaluate.episodes import metric_rate, play_episodes, summarize
from sparring.evaluate.failures import PhaseTracker, summarize_failures
from sparring.evaluate.outputs import output_folder, write_worst
from sparring.evaluate.scripted import ScriptedPlayer
from sparring.kit import BatchedEnv, registry
from sparring.record import Recorder
from sparring.train.checkpoint import load_policy, read_meta
from sparring.train.config import make_train_config
from sparring.train.opponents import SELF_PLAY, make_opponent


def _setup(env_name: str, checkpoint: str, opponent: str | None, env_overrides: dict, num_envs: int, seed: int,
           autoreset: bool = True):
    meta = read_meta(checkpoint)
    env_cls = registry.get(env_name)
    config = {**meta["env_config"], **env_overrides} if meta["env"] == env_name else dict(env_overrides)
    cfg = make_train_config(None, {k: v for k, v in meta["train_config"].items() if k in ("seed", "pool_size")})
    config, factory = make_opponent(env_cls, opponent if opponent is not None else meta.get("opponent"), config, cfg)
    env = BatchedEnv(env_cls, num_envs=num_envs, seed=seed, autoreset=autoreset, **config)
    policy, meta = load_policy(checkpoint, env_name, env)
    policy.eval()
    opp, rows = factory(env, policy, torch.device("cpu"))
    return env, policy, opp, rows, meta


def evaluate_checkpoint(env_name: str, checkpoint: str, opponent: str | None = None, episodes: int = 1000,
                        seed: int = 12345, num_envs: int = 256, greedy: bool = False,
                        env_overrides: dict | None = None, record: str | None = None, worst: int = 0,
                        window: int = 20, chart: bool = False, metric: str | None = None) -> dict:
    """Win/loss/draw with Wilson intervals, per-phase table, means and failure analysis for ``episodes`` episodes.

    ``seed`` defaults to one no training run uses by default, so eval episodes are fresh.
    ``record`` keeps the episodes as a Parquet recording; ``worst`` writes HTML replays of
    that many lowest-return episodes next to it (into the run folder without ``record``), and
    ``chart`` a PNG of the losses by phase and last transition (``window``: see
    :func:`~sparring.evaluate.failures.summarize_failures`). ``metric`` adds the rate of that
    yes/no env metric per learner seat (:func:`~sparring.evaluate.episodes.metric_rate`).
    Paths written are in the report.
    """
    _check_counts(episodes, worst, window)
    env, policy, opp, rows, meta = _setup(env_name, checkpoint, opponent, env_overrides or {},
                                          min(num_envs, episodes), seed,
                                          autoreset=False)
    name = f"checkpoint:{os.path.abspath(checkpoint)}@step{meta['step']}" + (":greedy" if greedy else "")
    folder = output_folder(checkpoint, record)
    stem = os.path.splitext(os.path.basename(record))[0] if record else f"eval-step{meta['step']}"
    report = _evaluate(env, policy, opp, rows, name, episodes, greedy, record, worst, window, metric, folder, stem)
    report.update({"env": env_name, "checkpoint_step": meta["step"], "opponent": opponent or meta.get("opponent"),
                   "greedy": greedy, "seed": seed})
    if chart:
        report["chart"] = write_failure_chart(report["failures"], f"{env_name} step {meta['step']}",
                                              os.path.join(folder, f"{stem}-failures.png"))
    return report


def evaluate_scripted(env_name: str, script: str, opponent: str | None = None, episodes: int = 1000,
                      seed: int = 12345, num_envs: int = 256, env_overrides: dict | None = None,
                      record: str | None = None, worst: int = 0, window: int = 20,
                      metric: str | None = None) -> dict:
    """As :func:`evaluate_checkpoint`, with the env's scripted policy ``script`` as the player (no checkpoint).

    Files are written only when asked for: ``record`` (and ``worst`` replays and the failure chart beside it).
    """
    _check_counts(episodes, worst, window)
    if worst and not record:
        raise ValueError("--worst needs --record FILE when the player is a scripted policy (no run folder to "
                         "write the replays into)")
    env_cls = registry.get(env_name)
    if opponent == SELF_PLAY:
        raise ValueError(f"opponent {SELF_PLAY!r} is a pool of a trained policy's past weights; a scripted player "
                         f"needs another opponent: {[*env_cls.scripted]} or the env's opponent knob")
    config, factory = make_opponent(env_cls, opponent, dict(env_overrides or {}), make_train_config(None, {}))
    env = BatchedEnv(env_cls, num_envs=min(num_envs, episodes), seed=seed, autoreset=False, **config)
    opp, rows = factory(env, None, torch.device("cpu"))
    player = ScriptedPlayer(env, script, rows)
    folder = os.path.dirname(os.path.abspath(record)) if record else ""
    stem = os.path.splitext(os.path.basename(record))[0] if record else ""
    report = _evaluate(env, player, opp, rows, f"scripted:{script}", episodes, False, record, worst, window, metric,
                       folder, stem)
    report.update({"env": env_name, "policy": f"scripted:{script}", "opponent": opponent, "seed": seed})
    if record:
        report["chart"] = write_failure_chart(report["failures"], f"{env_name} scripted:{script}",
                                              os.path.join(folder, f"{stem}-failures.png"))
    return report


def _check_counts(episodes: int, worst: int, window: int) -> None:
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    if worst < 0 or window < 0:
        raise ValueError(f"worst and window must be >= 0, got worst={worst}, window={window}")


def _evaluate(env, policy, opp, rows, name: str, episodes: int, greedy: bool, record: str | None, worst: int,
              window: int, metric: str | None, folder: str, stem: str) -> dict:
    """Play and summarise: outcomes, phases, means, failures, the metric's rate, the recording and worst replays."""
    if metric is not None:
        metric_rate(env.env_cls, np.zeros((0, 3 + len(env.env_cls.metrics))), metric, 1)  # an unknown name fails now
    tracker = PhaseTracker(env)
    with tempfile.TemporaryDirectory() as tmp:
        path = record or (os.path.join(tmp, "eval.parquet") if worst else None)
        recorder = Recorder(env, path, policy=name) if path else None
        try:
            data = play_episodes(env, policy, episodes, rows, opp, greedy=greedy, tracker=tracker,
                                 recorder=recorder)
        finally:
            if recorder is not None:
                recorder.close()
        report = summarize(env.env_cls, data)
        report["failures"] = summarize_failures(env.env_cls, data, tracker.table(), tracker.watermarks, window)
        if metric is not None:
            report["metric"] = metric_rate(env.env_cls, data, metric, len(rows) // env.num_envs)
        if record:
            report["record"] = record
        if worst:
            report["worst"] = write_worst(path, data, worst, folder, stem)
    return report


def watch(env_name: str, checkpoint: str, opponent: str | None = None, episodes: int = 3, fps: float = 8.0,
          seed: int = 0, greedy: bool = False, env_overrides: dict | None = None, stream=None) -> None:
    """Play ``episodes`` episodes of one env live in the terminal with the env's ANSI renderer."""
    stream = stream or sys.stdout
    env, policy, opp, rows, _ = _setup(env_name, checkpoint, opponent, env_overrides or {}, 1, seed)
    if not hasattr(env.env_cls, "render_ansi"):
        raise ValueError(f"env {env_name!r} has no render_ansi; watch needs one")
    rows_t = torch.from_numpy(np.asarray(rows, np.int64))
    actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    state, total, finished = policy.initial_state(len(rows)), 0.0, 0
    while finished < episodes:
        stream.write("\x1b[H\x1b[2J" + env.render_ansi(0) + f"\nepisode {finished + 1}/{episodes}  return {total:+.2f}\n")
        stream.flush()
        with torch.inference_mode():
            act, _, _, state = policy.act(torch.from_numpy(env.obs)[rows_t], torch.from_numpy(env.mask)[rows_t],
                                          state, greedy=greedy)
        actions[rows] = act.numpy()
        if opp is not None:
            opp.fill(actions)
        env.step(actions)
        if opp is not None:
            opp.after_step(env.rewards, env.done)
        total += float(env.rewards[rows].mean())
        if env.done[0]:
            finished += 1
            stream.write(f"episode {finished} ended: return {total:+.2f}\n")
            stream.flush()
            state, total = policy.initial_state(len(rows)), 0.0
            time.sleep(min(1.0, 4 / fps))
        time.sleep(1.0 / fps)
