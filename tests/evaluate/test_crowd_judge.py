"""The town judge end to end on small towns: pairings, per-character figures with intervals, the cross-play
matrix and ratings."""

import json

import pytest

from sparring.evaluate.judge_tables import format_judge
from sparring.evaluate.crowd_judge import focal_seats, judge_crowd
from sparring.kit import registry
from tests.evaluate.ctrl_c import stop_at_call

CONFIG = {"background": 0, "days": 2}
BRAINS = ["scripted:planner", "random"]


@pytest.fixture(scope="module")
def report():
    return judge_crowd(registry.get("town"), CONFIG, BRAINS, BRAINS, episodes=16, num_envs=16, seed=2)


def test_every_focal_brain_meets_every_background(report):
    assert [(p["focal_brain"], p["background_brain"]) for p in report["pairings"]] == [
        (f, b) for f in BRAINS for b in BRAINS
    ]
    for p in report["pairings"]:
        assert p["towns"] == 16 and p["focal"]["goal_rate"]["trials"] == p["background"]["goal_rate"]["trials"] == 64
        for group in ("focal", "background"):
            for name in ("goal_rate", "survival"):
                figure = p[group][name]
                assert figure["ci95"][0] <= figure["rate"] <= figure["ci95"][1]
            for name in ("trades_per_character", "gifts_per_character"):
                figure = p[group][name]
                assert figure["ci95"][0] <= figure["mean"] <= figure["ci95"][1]
    json.dumps(report)  # what --out writes


def test_the_planner_beats_random_in_the_matrix_and_the_ratings(report):
    matrix = [[cell["rate"] for cell in row] for row in report["matrix"]]
    assert min(matrix[0]) > max(matrix[1])  # the planner's characters reach more goals, whoever they live among
    assert [row["brain"] for row in report["ratings"]] == BRAINS
    planner, random = report["ratings"]
    assert planner["games"] == random["games"] == 2 * 16 * 4  # two mixed pairings, four paired games per town


def test_one_focal_character_among_seven(report):
    one = judge_crowd(registry.get("town"), CONFIG, ["random"], ["scripted:planner"], 8, focal_count=1, num_envs=8)
    (p,) = one["pairings"]
    assert p["focal"]["goal_rate"]["trials"] == 8 and p["background"]["goal_rate"]["trials"] == 56
    assert one["focal_characters"] == 1 and one["ratings"][0]["games"] == 8  # one paired game per town
    text = format_judge(one)
    assert "plays 1 of 8 characters" in text and "scripted:planner" in text


@pytest.mark.parametrize("focal", [0, 8])
def test_the_focal_count_must_leave_both_groups(focal):
    with pytest.raises(ValueError, match=r"--focal must be in \[1, 7\]"):
        judge_crowd(registry.get("town"), CONFIG, ["random"], ["random"], 4, focal_count=focal)


def test_the_focal_block_rotates_over_every_character():
    first = focal_seats(16, 8, 3)
    assert (first.sum(1) == 3).all() and (first.sum(0) == 6).all()  # 3 per town; every character 6 times of 16
    assert first[0].tolist() == [True] * 3 + [False] * 5 and first[7].tolist() == [True, True] + [False] * 5 + [True]


def test_ctrl_c_reports_the_pairings_finished(monkeypatch):
    import sparring.evaluate.crowd_judge as module

    stop_at_call(monkeypatch, module, 3)
    report = judge_crowd(registry.get("town"), CONFIG, BRAINS, BRAINS, episodes=4, num_envs=4, seed=2)
    assert report["interrupted"] and len(report["pairings"]) == 2
    assert report["matrix"][0][0]["trials"] > 0 and report["matrix"][0][1]["trials"] > 0
    assert report["matrix"][1] == [None, None]
    assert format_judge(report).startswith("interrupted: only the 2 finished pairs below were played")
