"""Episode tallies: exact episode counts per env, outcomes per seat from win/success metrics or the seat's own
return."""

import numpy as np
import pytest

from sparring.evaluate.episodes import format_report, metric_rate, outcomes, play_episodes, seat_outcomes, summarize
from sparring.kit import BatchedEnv, registry
from sparring.players.network import NetworkPlayer
from sparring.players.policy import Policy
from tests.train import toys


def test_play_exactly_the_asked_episodes_and_count_them():
    env = BatchedEnv(toys.MaskedPick, num_envs=7, seed=3, autoreset=False)
    policy = Policy(4, env.heads.sizes, hidden=8)
    data = play_episodes(env, [(NetworkPlayer(policy, "net"), np.arange(env.rows))], 30)
    assert data.shape[0] == 30 and (data[:, 1] == 5).all()  # each episode lasts 5 ticks
    assert data[:, 3].sum() == 0  # no forbidden action got through


def _rows(env_cls, returns, metrics, seat=0):
    """play_episodes rows: [seat's return, length, phase, metrics..., every seat's return..., seat]."""
    returns, metrics = np.atleast_2d(returns).astype(np.float64), np.atleast_2d(metrics).astype(np.float64)
    n = len(returns)
    head = np.stack([returns[:, seat], np.full(n, 5.0), np.zeros(n)], 1)
    return np.concatenate([head, metrics, returns, np.full((n, 1), seat)], 1)


def test_outcomes_are_per_seat_never_a_mean_across_seats():
    match = registry.get("toy_match")  # seat 0 reads its win metric; seat 1 goes by its own return
    rows = _rows(match, [[1.0, -1.0], [-1.0, 1.0]], [[1.0], [0.0]], seat=1)
    assert outcomes(match, rows).tolist() == [1, 0]
    assert seat_outcomes(match, rows, 0).tolist() == [0, 1]
    zero_sum = _rows(match, [[1.0, -1.0]] * 3, [[1.0]] * 3, seat=1)  # the mean return is 0, yet nobody drew
    report = summarize(match, zero_sum, {"seat0": "scripted:a", "seat1": "random"})
    assert report["seat"] == "seat1" and report["loss"]["count"] == 3 and report["draw"]["count"] == 0
    assert report["seats"]["seat0"]["win"]["count"] == 3 and report["seats"]["seat0"]["player"] == "scripted:a"
    squared = registry.get("squared")
    assert outcomes(squared, _rows(squared, [[1.0], [-1.0]], [[1.0], [0.0]])).tolist() == [0, 1]
    pick = registry.get("toy_masked_pick")  # its only metric is neither win nor success: the return decides
    assert outcomes(pick, _rows(pick, [[2.0], [0.0], [-1.0]], np.zeros((3, 1)))).tolist() == [0, 2, 1]


def test_summary_table():
    squared = registry.get("squared")
    rows = _rows(squared, [[1], [-1], [1], [1]], [[1], [0], [1], [1]])
    rows[:, 1] = [5, 9, 4, 3]
    report = summarize(squared, rows)
    assert report["win"]["count"] == 3 and report["loss"]["count"] == 1
    assert report["phases"]["play"] == {"episodes": 4, "win": 3, "loss": 1, "draw": 0}
    assert report["means"]["episode_length"] == 5.25
    assert "seat player" in format_report("squared", report)


def test_phase_table_lists_only_the_phases_episodes_ended_in():
    serpent = registry.get("serpent")  # 40 phases
    rows = _rows(serpent, [[1.0], [-1.0], [1.0]], np.zeros((3, len(serpent.metrics))))
    rows[:, 2] = [serpent.phases.index("C/6"), serpent.phases.index("C/6"), serpent.phases.index("D/7")]
    rows[:, 3 + serpent.metrics.index("win")] = [1, 0, 1]
    text = format_report("serpent", summarize(serpent, rows))
    table = [line.split() for line in text.splitlines() if line.startswith(("  C/", "  D/", "  A/", "  B/"))]
    assert table == [["C/6", "2", "1", "1", "0"], ["D/7", "1", "1", "0", "0"]]
    assert "  ... 38 phases in which no episode ended" in text.splitlines()
    assert max(map(len, text.splitlines())) <= 120 and len(serpent.metrics) + 2 == text.count("=")  # means wrapped
    squared = registry.get("squared")  # every phase reached: no count line
    assert "no episode ended" not in format_report("squared", summarize(squared, _rows(squared, [[1.0]], [[1.0]])))


def test_metric_rate_counts_seat_episodes_with_a_wilson_interval():
    town = registry.get("town")
    rows = np.zeros((2, 3 + len(town.metrics)))
    col = 3 + list(town.metrics).index("goal_rate")
    rows[:, col] = [3 / 8, 1.0]
    rate = metric_rate(town, rows, "goal_rate", 8)
    assert (rate["successes"], rate["trials"]) == (11, 16) and rate["rate"] == 11 / 16
    assert rate["ci95"][0] < 11 / 16 < rate["ci95"][1]
    rows[0, col] = 0.3  # not k/8: not a yes/no per character
    with pytest.raises(ValueError, match="k/8"):
        metric_rate(town, rows, "goal_rate", 8)
    with pytest.raises(ValueError, match="valid: "):
        metric_rate(town, rows, "goals", 8)
