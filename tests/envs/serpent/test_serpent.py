"""`serpent` as a whole: the doctor, the scripted players, the slow paths."""

import numpy as np
from ladders import serpent_fights

import sparring
from sparring.envs.serpent.env import Serpent
from sparring.envs.serpent.observe import OBS_SIZE
from sparring.kit.check import check
from sparring.record.viewer import check_shapes


def test_make_gives_bounded_obs_and_a_mask_per_head():
    env = sparring.make("serpent", num_envs=8, seed=1)
    assert env.obs.shape == (8, OBS_SIZE) and env.mask.shape == (8, Serpent.actions.total)
    for _ in range(100):
        env.step(env.scripted_actions("reactive"))
        assert np.isfinite(env.obs).all() and (np.abs(env.obs) <= 1).all()


def test_doctor_passes_without_warnings():
    report = check("serpent", steps=300, audit_episodes=40)
    assert report.ok, report.text()
    assert not [f for f in report.findings if f.status == "warn"], report.text()


def test_knowing_the_rotations_pays():
    reference = serpent_fights("reference", episodes=300, seed=5)
    reactive = serpent_fights("reactive", episodes=300, seed=5)
    assert reference["kills"] >= 0.9 * 300, reference
    assert reactive["kills"] <= reference["kills"] - 0.3 * 300, reactive
    # the difference is the ambushes the reactive player does not see coming
    taken = lambda r: r["metrics"]["taken_ranged"] + r["metrics"]["taken_magic"]  # noqa: E731
    assert taken(reactive) > 2 * taken(reference)
    assert sum(reactive["death_phases"].values()) == reactive["deaths"]


def test_slow_paths_show_the_fight():
    env = sparring.make("serpent", num_envs=1, seed=2)
    for _ in range(30):
        env.step(env.scripted_actions("reference"))
    text = env.render_ansi(0)
    assert "@" in text and "boss" in text and "phase" in text
    words = env.describe(0)
    assert "prayer points" in words and "Seen so far" in words
    assert Serpent.invariants(env.records[0], env.config) == []
    assert len(Serpent.cell(env.records[0], env.config)) == 4
    shapes = check_shapes(Serpent.draw(env.records[0], env.config), "serpent", 30)
    assert [s["label"] for s in shapes if s["type"] == "bar"] == ["boss", "hp", "prayer"]
