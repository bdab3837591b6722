"""`town` as a whole: the doctor, PettingZoo with fainting, planner vs random, sizes, metrics, slow paths."""

import numpy as np
import pytest

import sparring
from sparring.envs.town.env import Town, town_class
from sparring.envs.town.metrics import gini, work_entropy
from sparring.kit.check import check
from sparring.kit.check.play import allowed_actions
from sparring.kit.pz_adapter import PettingZooEnv
from tests.envs.town.towns import quiet_town


def test_doctor_passes():
    report = check("town", steps=200, audit_episodes=32)
    assert report.ok, report.text()
    assert report.failed("pettingzoo adapter") is False


def test_pettingzoo_characters_faint_and_leave_one_by_one():
    env = PettingZooEnv("town")
    obs, infos = env.reset(seed=4)
    rng = np.random.default_rng(4)
    left_at, t = {}, 0
    while env.agents:
        t += 1
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        obs, rew, term, trunc, infos = env.step(actions)
        left_at.update({a: (t, term[a]) for a in term if term[a] or trunc[a]})
    fainted = [a for a, (_, by_term) in left_at.items() if by_term]
    assert len(fainted) >= 2 and len({left_at[a][0] for a in fainted}) >= 2, left_at


def _goal_rate(spec: str, towns: int = 16) -> float:
    env = sparring.make("town", num_envs=towns, seed=7, autoreset=False)
    rng = np.random.default_rng(7)
    while not env.done.all():
        if spec == "planner":
            env.step(env.scripted_actions("planner"))
        else:
            env.step(allowed_actions(env.mask, env.heads.sizes, rng.random((env.rows, 1))))
    return float(env.records["goal_done"].mean())


def test_planner_reaches_goals_random_does_not():
    assert _goal_rate("planner") >= 0.5
    assert _goal_rate("random") <= 0.05


def test_background_characters_are_played_inside_the_env():
    a = sparring.make("town", num_envs=2, seed=1, background=6)
    b = sparring.make("town", num_envs=2, seed=1, background=6)
    assert a.learner_rows.reshape(2, 8).sum(1).tolist() == [2, 2]
    for t in range(40):
        acts = a.scripted_actions("planner")
        junk = acts.copy()
        junk[~a.learner_rows] = 3  # actions given for background seats are ignored
        a.step(acts)
        b.step(junk)
    assert a.records.tobytes() == b.records.tobytes()
    with pytest.raises(ValueError, match=r"background must be in \[0, 7\]"):
        sparring.make("town", background=8)


def test_bigger_towns():
    cls = town_class(16)
    assert cls is sparring.kit.get("town16") and cls.num_agents == 16 and town_class(8) is Town
    env = sparring.make("town64", num_envs=2, seed=0)
    assert env.obs.shape == (128, Town.obs_spec(env.config).size)
    env.step(env.scripted_actions("planner"))
    with pytest.raises(ValueError, match=r"characters must be an int in \[2, 64\]"):
        town_class(65)


def test_inequality_and_specialisation_measures():
    env = quiet_town()
    rec = env.records[0]
    rec["coins"][:] = 0
    rec["coins"][0] = 80
    assert gini(rec) == pytest.approx(7 / 8)
    rec["coins"][:] = 5
    assert gini(rec) == 0.0
    rec["worked"][0] = (3, 0, 0)
    rec["worked"][1] = (2, 2, 2)
    rec["worked"][2] = (0, 0, 0)
    assert work_entropy(rec, 0) == 0.0 and work_entropy(rec, 1) == pytest.approx(1.0) and work_entropy(rec, 2) == -1


def test_metrics_and_slow_paths_after_an_episode():
    env = sparring.make("town", num_envs=4, seed=2, days=1)
    info = {}
    while not info:
        *_, info = env.step(env.scripted_actions("planner"))
    assert info["episodes"] == 4 and 0 < info["goal_rate"] <= 1 and info["survival"] > 0.5
    assert info["trades"] >= 0 and 0 <= info["coin_gini"] < 1 and 0 <= info["spec_entropy"] <= 1
    for _ in range(20):
        env.step(env.scripted_actions("planner"))
    rec = env.records[0]
    assert Town.invariants(rec, env.config) == []
    text = env.render_ansi(0)
    assert "Ada" in text and "day 1 of 1" in text
    assert any(shape["type"] == "circle" for shape in Town.draw(rec, env.config))
