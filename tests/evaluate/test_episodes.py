"""Episode tallies: exact episode counts per env, outcomes from win/success metrics or the return's sign."""

import numpy as np
import pytest

from sparring.evaluate.episodes import metric_rate, outcomes, play_episodes, summarize
from sparring.players.network import NetworkPlayer
from sparring.kit import BatchedEnv, registry
from sparring.players.policy import Policy
from tests.train import toys


def test_play_exactly_the_asked_episodes_and_count_them():
    env = BatchedEnv(toys.MaskedPick, num_envs=7, seed=3, autoreset=False)
    policy = Policy(4, env.heads.sizes, hidden=8)
    data = play_episodes(env, [(NetworkPlayer(policy, "net"), np.arange(env.rows))], 30)
    assert data.shape[0] == 30 and (data[:, 1] == 5).all()  # each episode lasts 5 ticks
    assert data[:, 3].sum() == 0  # no forbidden action got through


def test_outcomes_rules():
    match = registry.get("toy_match")
    assert outcomes(match, np.zeros(2), np.array([[1.0], [0.0]])).tolist() == [0, 1]
    squared = registry.get("squared")
    assert outcomes(squared, np.array([1.0, -1.0]), np.array([[1.0], [0.0]])).tolist() == [0, 1]
    pick = registry.get("toy_masked_pick")  # its only metric is neither win nor success: the return decides
    assert outcomes(pick, np.array([2.0, 0.0, -1.0]), np.zeros((3, 1))).tolist() == [0, 2, 1]


def test_summary_table():
    rows = np.array([[1, 5, 0, 1], [-1, 9, 0, 0], [1, 4, 0, 1], [1, 3, 0, 1]], np.float64)
    report = summarize(registry.get("squared"), rows)
    assert report["win"]["count"] == 3 and report["loss"]["count"] == 1
    assert report["phases"]["play"] == {"episodes": 4, "win": 3, "loss": 1, "draw": 0}
    assert report["means"]["episode_length"] == 5.25


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
