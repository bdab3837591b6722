"""The round robin of a two-seat env: each pair plays both seats, the cross-play matrix adds up, ratings order
a clearly stronger brain first."""

import pytest

from sparring.evaluate.round_robin import round_robin
from sparring.kit import registry
from tests.evaluate.ctrl_c import stop_at_call

BRAINS = ["random", "scripted:reactive", "scripted:robot"]


@pytest.fixture(scope="module")
def duel():
    return round_robin(registry.get("duel"), {"opponent": "learner"}, BRAINS, episodes=24, seed=5)


def test_the_strongest_scripted_brain_rates_above_random(duel):
    ranks = {row["brain"]: row["rank"] for row in duel["ratings"]}
    assert ranks["scripted:robot"] < ranks["random"] and ranks["scripted:reactive"] < ranks["random"]
    ordinal = {row["brain"]: row["ordinal"] for row in duel["ratings"]}
    assert ordinal["scripted:robot"] > ordinal["random"] + 10  # far apart, not a coin flip over 48 games


def test_wins_both_ways_and_no_winner_add_up_to_every_game(duel):
    m, index = duel["matrix"], {name: k for k, name in enumerate(BRAINS)}
    assert all(m[k][k] is None for k in range(len(BRAINS)))
    for pair in duel["pairs"]:
        i, j, n = index[pair["a"]], index[pair["b"]], pair["games"]
        assert n == 24 and pair["a_wins"] + pair["b_wins"] + pair["draws"] + pair["both_lost"] == n
        no_winner = (pair["draws"] + pair["both_lost"]) / n
        assert m[i][j]["rate"] + m[j][i]["rate"] + no_winner == pytest.approx(1.0)
        assert m[i][j]["ci95"][0] <= m[i][j]["rate"] <= m[i][j]["ci95"][1]
        assert pair["a_in_seat0"] == n // 2  # each brain played half of the games in each seat


def test_ratings_count_every_game_of_each_brain(duel):
    assert all(row["games"] == 2 * 24 for row in duel["ratings"])


@pytest.mark.parametrize(
    "brains, episodes, message",
    [(["random"], 10, "at least two brains"), (["random", "scripted:robot"], 1, "episodes per pair must be >= 2")],
)
def test_too_few_brains_or_games_are_refused(brains, episodes, message):
    with pytest.raises(ValueError, match=message):
        round_robin(registry.get("duel"), {"opponent": "learner"}, brains, episodes)


def test_ctrl_c_reports_the_pairs_finished(monkeypatch):
    import sparring.evaluate.round_robin as module
    from sparring.evaluate.judge_tables import format_judge

    stop_at_call(monkeypatch, module, 2)
    report = round_robin(registry.get("duel"), {"opponent": "learner"}, BRAINS, episodes=4, seed=5)
    assert report["interrupted"] and [(p["a"], p["b"]) for p in report["pairs"]] == [(BRAINS[0], BRAINS[1])]
    assert report["matrix"][0][1]["games"] == 4 and report["matrix"][0][2] is None
    assert all(row["games"] == (0 if row["brain"] == BRAINS[2] else 4) for row in report["ratings"])
    assert format_judge(report).startswith("interrupted: only the 1 finished pairs below were played")


def test_ctrl_c_before_a_pair_finished_stops_the_judge(monkeypatch):
    import sparring.evaluate.round_robin as module

    stop_at_call(monkeypatch, module, 1)
    with pytest.raises(KeyboardInterrupt):
        round_robin(registry.get("duel"), {"opponent": "learner"}, BRAINS, episodes=4, seed=5)
