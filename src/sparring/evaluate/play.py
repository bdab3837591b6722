"""``sparring eval`` and ``sparring watch``: a checkpoint against an opponent, in numbers or on screen."""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

from sparring.evaluate.chart import write_failure_chart
from sparring.evaluate.episodes import metric_rate, play_episodes, summarize
from sparring.evaluate.failures import PhaseTracker, summarize_failures
from sparring.evaluate.outputs import output_folder, write_worst
from sparring.kit import BatchedEnv, registry
from sparring.kit.progress import silent
from sparring.players import make_player
from sparring.players.load import read_meta
from sparring.players.network import checkpoint_player
from sparring.players.opponents import SELF_PLAY, opponent_choices, resolve_seats, seat_players, who_plays
from sparring.record import Recorder


def _setup(
    env_name: str,
    checkpoint: str,
    opponent: str | None,
    env_overrides: dict,
    num_envs: int,
    seed: int,
    greedy: bool,
    autoreset: bool = True,
    seats: dict | None = None,
):
    """The env and the seated players: the checkpoint in its seat, the ``--seat`` players in theirs, and its
    opponent where one plays from outside (by default the one it trained against)."""
    meta = read_meta(checkpoint)
    env_cls = registry.get(env_name)
    config = {**meta["env_config"], **env_overrides} if meta["env"] == env_name else dict(env_overrides)
    if not seats and meta["env"] == env_name:  # by default, the seats it trained with
        seats = meta.get("seats") or {}
    seats = seats or {}
    if opponent is None and not set(seats.values()) & set(opponent_choices(env_cls)):
        opponent = meta.get("opponent")
    config, other, assigned = resolve_seats(env_cls, seats, opponent, config, explicit=env_overrides)
    env = BatchedEnv(env_cls, num_envs=num_envs, seed=seed, autoreset=autoreset, **config)
    player = checkpoint_player(checkpoint, env, seed, greedy)
    # "self": the same weights, sampling, in the other seats
    mirror = checkpoint_player(checkpoint, env, seed) if other == SELF_PLAY else None
    return env, seat_players(env, player, other, mirror, assigned, seed), meta


def evaluate_checkpoint(
    env_name: str,
    checkpoint: str,
    opponent: str | None = None,
    episodes: int = 1000,
    seed: int = 12345,
    num_envs: int = 256,
    greedy: bool = False,
    env_overrides: dict | None = None,
    record: str | None = None,
    worst: int = 0,
    window: int = 20,
    chart: bool = False,
    metric: str | None = None,
    seats: dict | None = None,
    progress=None,
) -> dict:
    """Win/loss/draw with Wilson intervals, per-phase table, means and failure analysis for ``episodes`` episodes.

    ``seed`` defaults to one no training run uses by default, so eval episodes are fresh.
    ``record`` keeps the episodes as a Parquet recording; ``worst`` writes HTML replays of
    that many lowest-return episodes next to it (into the run folder without ``record``), and
    ``chart`` a PNG of the losses by phase and last transition (``window``: see
    :func:`~sparring.evaluate.failures.summarize_failures`). ``metric`` adds the rate of that
    yes/no env metric per learner seat (:func:`~sparring.evaluate.episodes.metric_rate`).
    Paths written are in the report. ``progress`` (a :class:`~sparring.kit.progress.Progress`)
    counts the episodes.
    """
    _check_counts(episodes, worst, window)
    progress = progress or silent()
    progress.status("building the envs and the players (compiling the env's kernels on a first run)")
    env, seated, meta = _setup(
        env_name,
        checkpoint,
        opponent,
        env_overrides or {},
        min(num_envs, episodes),
        seed,
        greedy,
        autoreset=False,
        seats=seats,
    )
    folder = output_folder(checkpoint, record)
    stem = os.path.splitext(os.path.basename(record))[0] if record else f"eval-step{meta['step']}"
    report = _evaluate(env, seated, episodes, record, worst, window, metric, folder, stem, progress)
    report.update(
        {
            "env": env_name,
            "checkpoint_step": meta["step"],
            "opponent": opponent or meta.get("opponent"),
            "greedy": greedy,
            "seed": seed,
        }
    )
    if chart:
        progress.status("writing the failure chart")
        report["chart"] = write_failure_chart(
            report["failures"], f"{env_name} step {meta['step']}", os.path.join(folder, f"{stem}-failures.png")
        )
    return report


def evaluate_scripted(
    env_name: str,
    policy: str,
    opponent: str | None = None,
    episodes: int = 1000,
    seed: int = 12345,
    num_envs: int = 256,
    env_overrides: dict | None = None,
    record: str | None = None,
    worst: int = 0,
    window: int = 20,
    metric: str | None = None,
    seats: dict | None = None,
    progress=None,
) -> dict:
    """As :func:`evaluate_checkpoint`, with a player that needs no checkpoint (``scripted:NAME`` or ``random``).

    Files are written only when asked for: ``record`` (and ``worst`` replays and the failure chart beside it).
    """
    if policy != "random" and not (policy.startswith("scripted:") and policy != "scripted:"):
        raise ValueError(
            f"--policy {policy!r}: expected scripted:NAME (one of the env's scripted policies) or "
            "random; evaluate a trained policy with --checkpoint instead"
        )
    _check_counts(episodes, worst, window)
    if worst and not record:
        raise ValueError(
            "--worst needs --record FILE when the player is a scripted policy (no run folder to write the replays into)"
        )
    progress = progress or silent()
    progress.status("building the envs and the players (compiling the env's kernels on a first run)")
    env_cls = registry.get(env_name)
    if opponent == SELF_PLAY:
        raise ValueError(
            f"opponent {SELF_PLAY!r} is a pool of a trained policy's past weights; a scripted player "
            f"needs another opponent: {[*env_cls.scripted]} or the env's opponent knob"
        )
    config, other, assigned = resolve_seats(env_cls, seats or {}, opponent, dict(env_overrides or {}))
    env = BatchedEnv(env_cls, num_envs=min(num_envs, episodes), seed=seed, autoreset=False, **config)
    seated = seat_players(env, make_player(policy, env, seed), other, assigned=assigned, seed=seed)
    folder = os.path.dirname(os.path.abspath(record)) if record else ""
    stem = os.path.splitext(os.path.basename(record))[0] if record else ""
    report = _evaluate(env, seated, episodes, record, worst, window, metric, folder, stem, progress)
    report.update({"env": env_name, "policy": policy, "opponent": opponent, "seed": seed})
    if record:
        report["chart"] = write_failure_chart(
            report["failures"], f"{env_name} {policy}", os.path.join(folder, f"{stem}-failures.png")
        )
    return report


def _check_counts(episodes: int, worst: int, window: int) -> None:
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    if worst < 0 or window < 0:
        raise ValueError(f"worst and window must be >= 0, got worst={worst}, window={window}")


def _evaluate(
    env,
    seated,
    episodes: int,
    record: str | None,
    worst: int,
    window: int,
    metric: str | None,
    folder: str,
    stem: str,
    progress,
) -> dict:
    """Play and summarise: outcomes, phases, means, failures, the metric's rate, the recording and worst replays."""
    if metric is not None:
        metric_rate(env.env_cls, np.zeros((0, 3 + len(env.env_cls.metrics))), metric, 1)  # an unknown name fails now
    tracker = PhaseTracker(env)
    with tempfile.TemporaryDirectory() as tmp:
        path = record or (os.path.join(tmp, "eval.parquet") if worst else None)
        recorder = Recorder(env, path, policy=seated[0][0].name) if path else None
        progress.status("playing")
        try:
            data = play_episodes(env, seated, episodes, tracker=tracker, recorder=recorder, progress=progress)
        finally:
            if recorder is not None:
                recorder.close()
        report = summarize(env.env_cls, data, who_plays(env, seated))
        report["failures"] = summarize_failures(env.env_cls, data, tracker.table(), tracker.watermarks, window)
        if metric is not None:
            report["metric"] = metric_rate(env.env_cls, data, metric, len(seated[0][1]) // env.num_envs)
        if record:
            report["record"] = record
        if worst:
            progress.status(f"writing the {worst} worst replays")
            report["worst"] = write_worst(path, data, worst, folder, stem)
    return report


def watch(
    env_name: str,
    checkpoint: str,
    opponent: str | None = None,
    episodes: int = 3,
    fps: float = 8.0,
    seed: int = 0,
    greedy: bool = False,
    env_overrides: dict | None = None,
    stream=None,
    seats: dict | None = None,
) -> None:
    """Play ``episodes`` episodes of one env live in the terminal with the env's ANSI renderer."""
    stream = stream or sys.stdout
    env, seated, _ = _setup(env_name, checkpoint, opponent, env_overrides or {}, 1, seed, greedy, seats=seats)
    if not hasattr(env.env_cls, "render_ansi"):
        raise ValueError(f"env {env_name!r} has no render_ansi; watch needs one")
    rows = seated[0][1]
    actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    total, finished = 0.0, 0
    while finished < episodes:
        stream.write(
            "\x1b[H\x1b[2J" + env.render_ansi(0) + f"\nepisode {finished + 1}/{episodes}  return {total:+.2f}\n"
        )
        stream.flush()
        for player, player_rows in seated:
            actions[player_rows] = player.act(env, player_rows)
        env.step(actions)
        total += float(env.rewards[rows].mean())
        if env.done[0]:
            finished += 1
            stream.write(f"episode {finished} ended: return {total:+.2f}\n")
            stream.flush()
            total = 0.0
            time.sleep(min(1.0, 4 / fps))
        time.sleep(1.0 / fps)
