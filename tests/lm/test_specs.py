"""Town brains: specs, the noisy teacher, the line-choosing model, and `play town` with brains (HTTP included)."""

import os

import numpy as np
import pytest

import sparring
from sparring.lm.brains import Observations
from sparring.lm.town import ChoiceBrain, NoisyPlanner, make_brain, turn
from sparring.lm.town_play import play_town
from sparring.record import Recording


@pytest.fixture(scope="module")
def town():
    return sparring.make("town", num_envs=2, seed=3, days=1)


def test_turn_lists_every_legal_action_as_a_line(town):
    t = turn(town.records[1], town.config, 2)
    assert t.actions == np.flatnonzero(town.mask[1 * 8 + 2]).tolist()
    assert t.text.endswith("\n".join(t.lines)) and t.lines[0] == "0: wait"


def test_noisy_planner_leaves_the_plan_by_its_noise_only(town):
    rows = np.arange(town.rows)
    batch = Observations.from_env(town, rows, text=lambda e, i, a: "")
    plan = town.scripted_actions("planner")
    assert np.array_equal(NoisyPlanner(town, 0.0).act(town, rows), plan)
    noisy = np.concatenate([NoisyPlanner(town, 1.0, seed=s).act(town, rows) for s in range(20)])
    assert all(batch.allows(i % town.rows, a) for i, a in enumerate(noisy))
    assert (noisy != np.tile(plan, (20, 1))).mean() > 0.5  # a random legal action is seldom the plan


@pytest.mark.parametrize(
    "spec, error",
    [
        ("robot", "unknown brain 'robot'; valid: scripted"),
        ("scripted:planner_noisy:2", "probability in"),
        ("scripted:planner:0.1", "only planner_noisy takes"),
        ("openai:nohost", "openai:URL:MODEL"),
        ("local:/no/such/dir", "is not a folder"),
        ("scripted:genius", "no scripted policy 'genius'"),
    ],
)
def test_bad_brain_specs_say_what_is_valid(town, spec, error):
    with pytest.raises(ValueError, match=error):
        make_brain(spec, town)


def test_choice_brain_plays_legal_actions(town, town_model):
    brain = make_brain(f"local:{town_model[0]}", town)
    assert isinstance(brain, ChoiceBrain)
    batch = Observations.from_env(town, np.arange(town.rows))
    acts = brain.act(town, np.arange(town.rows))
    assert all(batch.allows(i, a) for i, a in enumerate(acts))
    assert brain.stats.turns == town.rows and brain.stats.parsed == town.rows


def test_play_town_with_brains_served_over_http(tmp_path, town_model):
    from sparring.lm.local import LocalModel
    from sparring.lm.server import BackgroundServer, make_app

    with BackgroundServer(make_app(LocalModel(town_model[0]), name="tiny")) as running:
        specs = [f"openai:{running.url}:tiny", f"local:{town_model[0]}", "scripted:planner_noisy", "scripted"]
        report = play_town(specs, episodes=1, seed=5, record=str(tmp_path / "rec"), days=1)
    served = report.brains[f"openai:{running.url}:tiny"]
    assert served["turns"] >= 1 and served["failed"] == 0 and served["fallbacks"] <= served["turns"]
    assert report.brains[f"local:{os.path.abspath(town_model[0])}"]["fallbacks"] == 0
    assert [c.brain.split(":")[0] for c in report.characters] == ["openai", "local", "scripted"] + ["scripted"] * 5
    assert all(c.episodes == 1 and 0 <= c.successes <= 1 for c in report.characters)
    rec = Recording(report.recording)
    assert rec.episode_ids() == [0] and "Ada=openai:" in rec.meta.policy
    assert "fallbacks" in report.text()


def test_play_town_counts_and_records_exactly_the_episodes_asked(tmp_path):
    report = play_town(
        ["scripted:planner_noisy:0", "scripted"], episodes=3, seed=2, record=str(tmp_path), num_envs=2, days=1
    )
    assert [c.episodes for c in report.characters] == [3] * 8
    assert Recording(report.recording).episode_ids() == [0, 1, 2]
    assert report.brains["scripted:planner"]["turns"] > report.brains["scripted:planner_noisy:0"]["turns"] > 0
    with pytest.raises(ValueError, match="town.parquet exists"):
        play_town(["scripted"], record=str(tmp_path), days=1)
