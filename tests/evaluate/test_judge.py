"""The judge's entry: which judge an env gets, the env's own players switched off, bad brains refused up front."""

import pytest

from sparring.evaluate.judge import judge
from tests.train import toys  # noqa: F401  (registers the toy envs)


def test_a_two_seat_env_gets_a_round_robin_with_both_seats_from_outside():
    report = judge("toy_match", ["scripted:always_zero", "random"], episodes=40, num_envs=8)
    assert report["kind"] == "round_robin" and [p["games"] for p in report["pairs"]] == [40]
    # seat 0 wins by matching seat 1's bit: always_zero against uniform bits wins about half, in either seat
    assert 0.25 < report["matrix"][0][1]["rate"] < 0.75


def test_town_gets_focal_and_background_characters():
    report = judge("town", ["random"], ["scripted:planner"], episodes=8, num_envs=8, env_overrides={"days": 1})
    assert report["kind"] == "crowd" and report["focal"] == ["random"] and report["backgrounds"] == ["scripted:planner"]


@pytest.mark.parametrize(
    "env, brains, kwargs, message",
    [
        ("duel", ["random", "scripted:genius"], {}, r"--brain 'scripted:genius': unknown player .* known: \["),
        ("duel", ["random", "wizard"], {}, r"--brain 'wizard': unknown player 'wizard'; valid: random, checkpoint"),
        ("duel", ["random", "random"], {}, "--brain 'random' is given twice"),
        ("duel", [], {}, "give the brains to judge with --brain"),
        ("duel", ["random", "checkpoint:/no/such/run"], {}, "--brain 'checkpoint:/no/such/run': no checkpoint at"),
        ("duel", ["random", "scripted:robot"], {"backgrounds": ["random"]}, "two seats: the judge plays a round"),
        ("duel", ["random", "scripted:robot"], {"env_overrides": {"opponent": "robot"}}, "--env.opponent 'robot'"),
        ("town", ["random"], {"env_overrides": {"background": 2}}, "--env.background 2: the judge seats every"),
        ("town", ["random"], {"backgrounds": ["planner"]}, "--background 'planner': unknown player"),
        ("squared", ["random"], {}, "'squared' has 1 seat"),
    ],
)
def test_bad_brains_and_settings_are_refused_before_anything_plays(env, brains, kwargs, message):
    with pytest.raises(ValueError, match=message):
        judge(env, brains, **kwargs)
