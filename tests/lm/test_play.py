"""`sparring play ENV --brain ...`: a brain per seat, recorded, in town (HTTP brains included) and in duel."""

import os

import pytest

from sparring.lm.play import play_brains
from sparring.record import Recording


def test_play_town_with_brains_served_over_http(tmp_path, town_model):
    from sparring.lm.local import LocalModel
    from sparring.lm.server import BackgroundServer, make_app

    with BackgroundServer(make_app(LocalModel(town_model[0]), name="tiny")) as running:
        specs = [f"openai:{running.url}:tiny", f"local:{town_model[0]}", "scripted:planner:0.3", "scripted"]
        report = play_brains(specs, episodes=1, seed=5, record=str(tmp_path / "rec"), days=1)
    served = report.brains[f"openai:{running.url}:tiny"]
    assert served["turns"] >= 1 and served["failed"] == 0 and served["fallbacks"] <= served["turns"]
    assert report.brains[f"local:{os.path.abspath(town_model[0])}"]["fallbacks"] == 0
    assert [c.brain.split(":")[0] for c in report.seats] == ["openai", "local", "scripted"] + ["scripted"] * 5
    assert [c.name for c in report.seats[:2]] == ["Ada", "Ben"]
    assert all(c.episodes == 1 and 0 <= c.successes <= 1 and sum(c.goals.values()) == 1 for c in report.seats)
    rec = Recording(report.recording)
    assert rec.episode_ids() == [0] and "Ada=openai:" in rec.meta.policy
    assert "fallbacks" in report.text()


def test_play_town_counts_and_records_exactly_the_episodes_asked(tmp_path):
    report = play_brains(
        ["scripted:planner:0", "scripted"], episodes=3, seed=2, record=str(tmp_path), num_envs=2, days=1
    )
    assert [c.episodes for c in report.seats] == [3] * 8 and report.episodes == 3
    assert Recording(report.recording).episode_ids() == [0, 1, 2]
    assert report.brains["scripted:planner"]["turns"] > report.brains["scripted:planner:0"]["turns"] > 0
    with pytest.raises(ValueError, match="town.parquet exists"):
        play_brains(["scripted"], record=str(tmp_path), days=1)


def test_play_duel_with_a_local_model_against_the_robot(duel_model):
    report = play_brains([f"local:{duel_model}"], episodes=2, env="duel", max_ticks=30)
    player, opponent = report.seats
    assert player.episodes == 2 and player.brain.startswith("local:") and opponent.brain == "the env's own"
    assert report.brains[player.brain]["turns"] > 0 and report.brains[player.brain]["fallbacks"] == 0


def test_play_town_in_the_compact_prompt_and_bfloat16(town_model):
    report = play_brains([f"local:{town_model[0]}", "scripted"], episodes=1, prompt="compact", dtype="bfloat16", days=1)
    brain = report.brains[f"local:{town_model[0]}"]
    assert brain["turns"] > brain["kept"] > 0 and brain["fallbacks"] == 0
    assert report.seats[0].episodes == 1 and "went on undecided" in report.text()
