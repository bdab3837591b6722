"""Play players in their seats for a fixed number of episodes and tally outcomes per seat, phases and episode
metrics."""

from __future__ import annotations

import textwrap

import numpy as np

from sparring.kit.stats import wilson_interval
from sparring.kit.progress import silent

OUTCOMES = ("win", "loss", "draw")


def seat_outcomes(env_cls, episodes: np.ndarray, seat: int) -> np.ndarray:
    """Per episode 0 (win), 1 (loss) or 2 (draw) for ``seat``, by the env's rule (``Env.outcome``)."""
    n_metrics = max(1, len(env_cls.metrics))
    returns = episodes[:, 3 + n_metrics + seat]
    return env_cls.outcome(seat, returns, episodes[:, 3 : 3 + len(env_cls.metrics)])


def focus_seat(episodes: np.ndarray) -> int:
    """The seat of the evaluated player (the first seated player's first row) in :func:`play_episodes` rows."""
    return int(episodes[0, -1]) if len(episodes) else 0


def outcomes(env_cls, episodes: np.ndarray) -> np.ndarray:
    """Per episode 0 (win), 1 (loss) or 2 (draw) for the evaluated player's seat."""
    return seat_outcomes(env_cls, episodes, focus_seat(episodes))


def _finished(env, done_envs: np.ndarray, seat: int) -> np.ndarray:
    """Rows of [``seat``'s return, length, phase, metrics..., every seat's return..., ``seat``] of the finished
    envs ``done_envs`` (before their reset)."""
    recs = env.records[done_envs]
    returns = recs["ep_return"].astype(np.float64)
    head = np.stack([returns[:, seat], recs["tick"], recs["phase"]], 1)
    return np.concatenate([head, recs["metrics"].astype(np.float64), returns, np.full((len(recs), 1), seat)], 1)


def play_episodes(env, seated, episodes: int, tracker=None, recorder=None, progress=None) -> np.ndarray:
    """Rows of :func:`_finished` for exactly ``episodes`` episodes, spread evenly over the envs.

    ``seated`` is a list of ``(player, rows)``: each :class:`~sparring.players.Player` acts for
    its agent rows (seats the env plays itself need none). ``env`` must be built with
    ``autoreset=False``: a finished env waits, so its final phase and metrics can be read
    before ``reset_envs`` starts its next episode. Each env plays a fixed quota, so short
    episodes are not over-represented by stopping early.

    Optional: ``tracker``, a :class:`~sparring.evaluate.failures.PhaseTracker` of ``env``,
    follows phases and low-watermarks; ``recorder``, a :class:`~sparring.record.Recorder`
    of ``env``, records the episodes (its episode ``k`` is row ``k`` of the result); ``progress``, a
    :class:`~sparring.kit.progress.Progress`, counts the episodes with the win rate and mean return so far.
    """
    progress = progress or silent()
    if env.autoreset:
        raise ValueError("play_episodes needs a BatchedEnv built with autoreset=False")
    quota = np.full(env.num_envs, episodes // env.num_envs, np.int64)
    quota[: episodes % env.num_envs] += 1
    played = np.zeros(env.num_envs, np.int64)
    seated = [(player, np.asarray(rows, np.int64)) for player, rows in seated]
    seat = int(seated[0][1][0] % env.num_agents) if seated and len(seated[0][1]) else 0
    actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    out = []
    step = env.step if recorder is None else recorder.step
    if tracker is not None:
        tracker.start(np.arange(env.num_envs))
    progress.start(episodes, unit="episode")
    wins, returns = 0, 0.0
    while (played < quota).any():
        for player, rows in seated:
            actions[rows] = player.act(env, rows)
        step(actions)
        if tracker is not None:
            tracker.observe()
        done = np.flatnonzero(env.done & (played < quota))
        if len(done):
            out.append(_finished(env, done, seat))
            wins += int((seat_outcomes(env.env_cls, out[-1], seat) == 0).sum())
            returns += float(out[-1][:, 0].sum())
            n = int(played.sum()) + len(done)
            progress.update(n, {"win": wins / n, "return": returns / n})
            if tracker is not None:
                tracker.finish(done)
            played[done] += 1
            again = done[played[done] < quota[done]]
            env.reset_envs(again)
            if tracker is not None:
                tracker.start(again)
    return np.concatenate(out) if out else np.zeros((0, 4 + max(1, len(env.env_cls.metrics)) + env.num_agents))


def _tally(result: np.ndarray) -> dict:
    n = len(result)
    out = {}
    for k, name in enumerate(OUTCOMES):
        count = int((result == k).sum())
        low, high = wilson_interval(count, n)
        out[name] = {"count": count, "rate": count / n if n else 0.0, "ci95": [low, high]}
    return out


def summarize(env_cls, episodes: np.ndarray, players: dict[str, str] | None = None) -> dict:
    """Win/loss/draw rates with 95% Wilson intervals for the evaluated player's seat and for every seat, a per-phase
    outcome table, mean episode metrics. ``players`` names who played each seat (by seat name)."""
    n = len(episodes)
    result = outcomes(env_cls, episodes)
    report = {"episodes": n, "seat": env_cls.seats[focus_seat(episodes)], **_tally(result)}
    report["seats"] = {
        name: {"player": (players or {}).get(name, "?"), **_tally(seat_outcomes(env_cls, episodes, k))}
        for k, name in enumerate(env_cls.seats)
    }
    phases = {}
    for p, phase in enumerate(env_cls.phases):
        sel = episodes[:, 2] == p
        counts = {o: int((result[sel] == k).sum()) for k, o in enumerate(OUTCOMES)}
        phases[phase] = {"episodes": int(sel.sum()), **counts}
    report["phases"] = phases
    means = {
        "episode_return": float(episodes[:, 0].mean()) if n else 0.0,
        "episode_length": float(episodes[:, 1].mean()) if n else 0.0,
    }
    for m, name in enumerate(env_cls.metrics):
        means[name] = float(episodes[:, 3 + m].mean()) if n else 0.0
    report["means"] = means
    return report


def format_report(env_name: str, report: dict) -> str:
    """The report as text: outcomes with intervals, per seat when there are several, the phases episodes
    ended in (only those some episode ended in, with a count of the others), episode means."""
    lines = [f"{env_name}: {report['episodes']} episodes, seat {report['seat']}"]
    for name in OUTCOMES:
        r = report[name]
        lines.append(f"  {name:<5} {r['count']:>6}  {r['rate']:.3f}  95% CI [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]")
    if len(report["seats"]) > 1:
        lines.append(f"  {'seat':<12} {'win':>16} {'loss':>16} {'draw':>16}  player")
        for seat, row in report["seats"].items():
            cells = " ".join(
                f"{row[o]['rate']:.3f} [{row[o]['ci95'][0]:.2f},{row[o]['ci95'][1]:.2f}]" for o in OUTCOMES
            )
            lines.append(f"  {seat:<12} {cells}  {row['player']}")
    lines += _phase_table(report["phases"])
    means = ", ".join(f"{k}={v:.4g}" for k, v in report["means"].items())
    lines.append(
        textwrap.fill(
            means,
            110,
            initial_indent="  means: ",
            subsequent_indent=" " * 9,
            break_on_hyphens=False,
            break_long_words=False,
        )
    )
    return "\n".join(lines)


def _phase_table(phases: dict) -> list[str]:
    """Rows of the phases some episode ended in, then how many phases none ended in."""
    ended = {phase: row for phase, row in phases.items() if row["episodes"]}
    width = max([16, *map(len, ended)])
    lines = [f"  {'final phase':<{width}} {'episodes':>8} {'win':>6} {'loss':>6} {'draw':>6}"]
    lines += [
        f"  {phase:<{width}} {row['episodes']:>8} {row['win']:>6} {row['loss']:>6} {row['draw']:>6}"
        for phase, row in ended.items()
    ]
    if len(ended) < len(phases):
        left = len(phases) - len(ended)
        lines.append(f"  ... {left} phase{'' if left == 1 else 's'} in which no episode ended")
    return lines


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
        raise ValueError(
            f"metric {name!r} of {env_cls.name!r} is not a yes/no outcome per learner seat: its values "
            f"must be k/{seats} for k in 0..{seats}, got {bad:g}"
        )
    successes, trials = int(counts.sum()), len(episodes) * seats
    low, high = wilson_interval(successes, trials)
    return {
        "name": name,
        "successes": successes,
        "trials": trials,
        "seats": seats,
        "rate": successes / trials if trials else 0.0,
        "ci95": [low, high],
    }


def format_metric(rate: dict) -> str:
    """One line: the metric's successes over seat-episodes, its rate and 95% Wilson interval."""
    return (
        f"  {rate['name']}: {rate['successes']}/{rate['trials']} seat-episodes ({rate['seats']} learner seats "
        f"per episode) = {rate['rate']:.3f}  95% CI [{rate['ci95'][0]:.3f}, {rate['ci95'][1]:.3f}]"
    )
