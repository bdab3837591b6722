"""The scripted players of `gauntlet`: flicks, dodges, the shield, the ladder order, and the expert's clears."""

import numpy as np
import pytest
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


def test_expert_prays_only_on_the_tick_a_hit_lands():
    env = make()
    rec = arena(env, row=24, col=14)
    monster(rec, 1, W.RANGER, 24, 26, m_atk=3, m_hp=W.HP[W.RANGER])  # in its reach, out of the player's (cheb 12)
    env.restore(0, rec)
    prayers = []
    for _ in range(3):
        acts = env.scripted_actions("expert")
        prayers.append(int(acts[0, HEAD["prayer"]]))
        env.step(acts)
    assert prayers[:2] == [W.KEEP, W.KEEP] and prayers[2] == W.PROTECT_RANGED


def test_expert_steps_out_of_a_meleers_reach_when_two_styles_land_together():
    env = make()
    for seed in range(10):
        rec = arena(env, seed, row=24, col=14)
        monster(rec, 1, W.MELEER, 24, 15, m_atk=1)
        monster(rec, 2, W.RANGER, 24, 3, m_atk=1)
        env.restore(0, rec)
        acts = env.scripted_actions("expert")
        env.step(acts)
        assert acts[0, HEAD["prayer"]] == W.PROTECT_RANGED and acts[0, HEAD["move"]] in (3, 5, 7)  # west
        assert metric(env, "taken_melee") + metric(env, "taken_ranged") == 0


def test_expert_clears_from_wave_1_where_competent_and_steady_never_do():
    runs = {p: gauntlet_runs(p, 16, seed=11) for p in ("expert", "competent", "steady")}
    assert runs["expert"]["clears"] >= 10  # about 89% of 500 runs (benchmarks/gauntlet_scripted.py)
    assert runs["competent"]["clears"] == runs["steady"]["clears"] == 0  # 0 of 500 each
    expert = runs["expert"]
    assert expert["heals"] > 16 and expert["overheals"] == 0  # it drinks only when a whole dose fits
    assert expert["time"].sum() == pytest.approx(1) and expert["time"][W.WAVES] > expert["time"][1]  # the last is long
