"""The scripted players of `gauntlet`: flicks, the shield, and the ladder order."""

import numpy as np
from ladders import gauntlet_runs, wave_table

from sparring.envs.gauntlet import world as W
from tests.envs.gauntlet.helpers import HEAD, arena, make, metric, monster


def test_competent_flicks_against_a_telegraphed_attack_and_a_blob():
    env = make()
    rec = arena(env, col=20)
    monster(rec, 1, W.BOSS, 14, 20, m_atk=W.TELEGRAPH + 1)
    monster(rec, 2, W.BLOB, 24, 26, m_atk=3, m_hp=W.HP[W.BLOB])
    env.restore(0, rec)
    for _ in range(12):
        env.step(env.scripted_actions("competent"))
    assert metric(env, "taken_boss") == 0 and metric(env, "taken_magic") + metric(env, "taken_ranged") == 0


def test_competent_keeps_under_the_shield_and_targets_the_final_boss():
    env = make()
    rec = arena(env, wave=W.FINAL_WAVE, row=W.SHIELD_ROW + 2, shield_c=14, shield_dir=1, spawn_t=500)
    monster(rec, 0, W.ZUK, W.ZUK_R, W.ZUK_C, m_atk=5)
    env.restore(0, rec)
    for _ in range(6 * W.ZUK_SPEED):
        acts = env.scripted_actions("competent")
        env.step(acts)
    assert metric(env, "taken_final_boss") == 0 and acts[0, HEAD["target"]] == 1
    assert env.records[0]["m_hp"][0] < W.HP[W.ZUK]


def test_competent_reaches_deeper_than_steady():
    deep = {p: gauntlet_runs(p, 32, seed=5, start_wave=12)["waves"] for p in ("competent", "steady")}
    assert deep["competent"].mean() > deep["steady"].mean() + 1


def test_wave_table_counts_runs_and_reach():
    table = wave_table(np.array([3, 3, 5]), 6)
    assert table == [(3, 2, 1.0), (4, 0, 1 / 3), (5, 1, 1 / 3), (6, 0, 0.0)]


def test_competent_walks_around_a_pillar_to_a_hidden_monster():
    env = make()
    rec = arena(env, row=23, col=13)
    monster(rec, 1, W.NIBBLER, 17, 13, m_vis=0)  # behind pillar 2 (rows 19-21, cols 12-14), eating it
    env.restore(0, rec)
    for _ in range(15):
        env.step(env.scripted_actions("competent"))
    assert env.records[0]["m_vis"][1] == 1 or env.records[0]["m_state"][1] != W.ALIVE
