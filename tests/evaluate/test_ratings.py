"""Ratings from game outcomes: the stronger brain ranks first, draws pull ratings together, bad games refused."""

import numpy as np
import pytest

from sparring.evaluate.ratings import format_ratings, rate


def _games(n: int, p_first_wins: float, seed: int = 0):
    won = np.random.default_rng(seed).random(n) < p_first_wins
    return np.zeros(n, int), np.ones(n, int), won.astype(float)


def test_the_brain_that_wins_more_ranks_first_and_more_games_narrow_sigma():
    few = rate(["strong", "weak"], *_games(40, 0.8))
    many = rate(["strong", "weak"], *_games(400, 0.8))
    for table in (few, many):
        assert [row["brain"] for row in table] == ["strong", "weak"] and [row["rank"] for row in table] == [1, 2]
        assert all(row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"]) for row in table)
    assert many[0]["sigma"] < few[0]["sigma"] / 2
    assert many[0]["games"] == many[1]["games"] == 400


def test_draws_leave_equal_brains_equal():
    table = rate(["a", "b"], np.zeros(50, int), np.ones(50, int), np.full(50, 0.5))
    assert table[0]["mu"] == pytest.approx(table[1]["mu"]) == pytest.approx(25.0)


def test_a_brain_without_games_keeps_the_prior():
    table = rate(["a", "b", "idle"], *_games(30, 0.9))
    idle = next(row for row in table if row["brain"] == "idle")
    assert idle["games"] == 0 and idle["mu"] == pytest.approx(25.0) and idle["sigma"] == pytest.approx(25 / 3)
    assert "idle" in format_ratings(table)


@pytest.mark.parametrize(
    "a, b, score, message",
    [
        ([0], [0], [1.0], "two different brains"),
        ([0], [5], [1.0], "two different brains"),
        ([0], [1], [0.7], "scores must be 1"),
        ([0, 1], [1], [1.0], "as many scores as games"),
    ],
)
def test_bad_games_are_refused(a, b, score, message):
    with pytest.raises(ValueError, match=message):
        rate(["a", "b"], a, b, score)
