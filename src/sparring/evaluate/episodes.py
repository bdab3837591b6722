"""Play a policy for a fixed number of episodes and tally outcomes, phases and episode metrics."""

from __future__ import annotations

import numpy as np

from sparring.evaluate.wilson import wilson_interval

OUTCOMES = ("win", "loss", "draw")


def outcomes(env_cls, returns: np.ndarray, metrics: np.ndarray) -> np.ndarray:
    """Per episode 0 (win), 1 (loss) or 2 (draw).

    From the env's ``win`` metric (and ``draw`` if declared) when it has one, else its
    ``success`` metric, else the sign of the learner seats' return.
    """
    names = list(env_cls.metrics)
    if "win" in names or "success" in names:
        won = metrics[:, names.index("win" if "win" in names else "success")] > 0.5
        drawn = metrics[:, names.index("draw")] > 0.5 if "draw" in names else np.zeros_like(won)
        return np.where(won, 0, np.where(drawn, 2, 1))
    return np.where(returns > 0, 0, np.where(returns < 0, 1, 2))


def _finished(env, done_envs: np.ndarray) -> np.ndarray:
    """Rows of [return, length, phase, metrics...] of the finished envs ``done_envs`` (before their reset)."""
    recs = env.records[done_envs]
    head = np.stack([env.ended_return[done_envs], recs["tick"], recs["phase"]], 1)
    return np.concatenate([head, recs["metrics"].astype(np.float64)], 1)


def play_episodes(env, seated, episodes: int, tracker=None, recorder=None) -> np.ndarray:
    """Rows of :func:`_finished` for exactly ``episodes`` episodes, spread evenly over the envs.

    ``seated`` is a list of ``(player, rows)``: each :class:`~sparring.players.Player` acts for
    its agent rows (seats the env plays itself need none). ``env`` must be built with
    ``autoreset=False``: a finished env waits, so its final phase and metrics can be read
    before ``reset_envs`` starts its next episode. Each env plays a fixed quota, so short
    episodes are not over-represented by stopping early.

    Optional: ``tracker``, a :class:`~sparring.evaluate.failures.PhaseTracker` of ``env``,
    follows phases and low-watermarks; ``recorder``, a :class:`~sparring.record.Recorder`
    of ``env``, records the episodes (its episode ``k`` is row ``k`` of the result).
    """
    if env.autoreset:
        raise ValueError("play_episodes needs a BatchedEnv built with autoreset=False")
    quota = np.full(env.num_envs, episodes // env.num_envs, np.int64)
    quota[: episodes % env.num_envs] += 1
    played = np.zeros(env.num_envs, np.int64)
    seated = [(player, np.asarray(rows, np.int64)) for player, rows in seated]
    actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    out = []
    step = env.step if recorder is None else recorder.step
    if tracker is not None:
        tracker.start(np.arange(env.num_envs))
    while (played < quota).any():
        for player, rows in seated:
            actions[rows] = player.act(env, rows)
        step(actions)
        if tracker is not None:
            tracker.observe()
        done = np.flatnonzero(env.done & (played < quota))
        if len(done):
            out.append(_finished(env, done))
            if tracker is not None:
                tracker.finish(done)
            played[done] += 1
            again = done[played[done] < quota[done]]
            env.reset_envs(again)
            if tracker is not None:
                tracker.start(again)
    return np.concatenate(out) if out else np.zeros((0, 3 + max(1, len(env.env_cls.metrics))))


def summarize(env_cls, episodes: np.ndarray) -> dict:
    """Win/loss/draw rates with 95% Wilson intervals, a per-phase outcome table, mean episode metrics."""
    n = len(episodes)
    n_metrics = len(env_cls.metrics)
    result = outcomes(env_cls, episodes[:, 0], episodes[:, 3:3 + n_metrics])
    report = {"episodes": n}
    for k, name in enumerate(OUTCOMES):
        count = int((result == k).sum())
        low, high = wilson_interval(count, n)
        report[name] = {"count": count, "rate": count / n if n else 0.0, "ci95": [low, high]}
    phases = {}
    for p, phase in enumerate(env_cls.phases):
        sel = episodes[:, 2] == p
        phases[phase] = {"episodes": int(sel.sum()), **{o: int((result[sel] == k).sum()) for k, o in enumerate(OUTCOMES)}}
    report["phases"] = phases
    means = {"episode_return": float(episodes[:, 0].mean()) if n else 0.0,
             "episode_length": float(episodes[:, 1].mean()) if n else 0.0}
    for m, name in enumerate(env_cls.metrics):
        means[name] = float(episodes[:, 3 + m].mean()) if n else 0.0
    report["means"] = means
    return report


def format_report(env_name: str, report: dict) -> str:
    """The report as a text table."""
    lines = [f"{env_name}: {report['episodes']} episodes"]
    for name in OUTCOMES:
        r = report[name]
        lines.append(f"  {name:<5} {r['count']:>6}  {r['rate']:.3f}  95% CI [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]")
    lines.append(f"  {'phase':<16} {'episodes':>8} {'win':>6} {'loss':>6} {'draw':>6}")
    for phase, row in report["phases"].items():
        lines.append(f"  {phase:<16} {row['episodes']:>8} {row['win']:>6} {row['loss']:>6} {row['draw']:>6}")
    lines.append("  means: " + ", ".join(f"{k}={v:.4g}" for k, v in report["means"].items()))
    return "\n".join(lines)


def metric_rate(env_cls, episodes: np.ndarray, name: str, seats: int) -> dict:
    """Rate of a yes/no env metric with its 95% Wilson interval, counted per learner seat-episode.

    The env metric ``name`` must be, per episode, the fraction of the ``seats`` learner seats
    with a yes (town's ``goal_rate``: characters who completed their goal), a plain yes/no
    when one seat learns (``win``, ``success``). 125 town episodes of 8 characters are 1000 trials.
    """
    names = list(env_cls.metrics)
    if name not in names:
        raise ValueError(f"unknown metric {name!r} for env {env_cls.name!r}; valid: {names}")
    if seats < 1:
        raise ValueError(f"metric {name!r} needs at least one learner seat, got {seats}")
    values = episodes[:, 3 + names.index(name)] * seats
    counts = np.round(values)
    if not np.allclose(values, counts, atol=1e-3) or (counts < 0).any() or (counts > seats).any():
        bad = values[~np.isclose(values, counts, atol=1e-3) | (counts < 0) | (counts > seats)][0] / seats
        raise ValueError(f"metric {name!r} of {env_cls.name!r} is not a yes/no outcome per learner seat: its values "
                         f"must be k/{seats} for k in 0..{seats}, got {bad:g}")
    successes, trials = int(counts.sum()), len(episodes) * seats
    low, high = wilson_interval(successes, trials)
    return {"name": name, "successes": successes, "trials": trials, "seats": seats,
            "rate": successes / trials if trials else 0.0, "ci95": [low, high]}


def format_metric(rate: dict) -> str:
    """One line: the metric's successes over seat-episodes, its rate and 95% Wilson interval."""
    return (f"  {rate['name']}: {rate['successes']}/{rate['trials']} seat-episodes ({rate['seats']} learner seats "
            f"per episode) = {rate['rate']:.3f}  95% CI [{rate['ci95'][0]:.3f}, {rate['ci95'][1]:.3f}]")
