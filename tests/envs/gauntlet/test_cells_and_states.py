"""`gauntlet`'s Go-Explore cell keys and its state sets (worn, scripted, every wave's arrivals), loaded through the
kit's reset pool, and the arrival state set that ``benchmarks/gauntlet_states.py`` writes."""

import sys

import gauntlet_states
import numpy as np
import pytest

from sparring.envs.gauntlet import world as W
from sparring.envs.gauntlet.env import Gauntlet
from sparring.envs.gauntlet.states import arrival_states, scripted_states, worn_states
from sparring.explore.cells import cell_fields, decode, keys_of
from sparring.kit.batch import BatchedEnv
from sparring.kit.state_set import load_state_set


def test_cell_keys_pack_the_declared_fields_wave_first():
    recs = np.concatenate([worn_states(20, 16, seed=1), worn_states(5, 16, seed=2)])
    keys = keys_of(Gauntlet, recs)
    fields = decode(keys, len(cell_fields(Gauntlet)))
    assert [tuple(row) for row in fields.tolist()] == [Gauntlet.cell(r, None) for r in recs]
    assert fields[:16, 0].tolist() == [20] * 16 and fields[16:, 0].tolist() == [5] * 16
    assert keys[:16].min() > keys[16:].max()  # deeper waves sort after shallower ones


def test_cell_stage_field_follows_the_final_boss():
    rec = worn_states(W.FINAL_WAVE, 1)
    assert Gauntlet.cell(rec[0], None)[:2] == (W.FINAL_WAVE, 0)
    rec["phase"] = Gauntlet.phases.index("final/healers")
    assert Gauntlet.cell(rec[0], None)[1] == W.HEALING


def test_worn_states_start_at_the_wave_with_spent_supplies():
    recs = worn_states(25, 64)
    assert (recs["wave"] == 25).all() and (recs["phase"] == 24).all()
    assert recs["heals"].mean() < W.HEALS and recs["hp"].min() >= 1
    assert (recs["m_state"] == W.ALIVE).sum(axis=1).min() >= 1


def test_scripted_states_reload_through_the_reset_pool():
    states = scripted_states(3, 6, num_envs=8)
    assert len(states) == 6 and (states["wave"] == 3).all() and (states["gap"] == W.WAVE_GAP).all()
    env = BatchedEnv(Gauntlet, num_envs=4, seed=0, max_ticks=2)
    env.set_reset_pool(states, 1.0)
    for _ in range(2):
        env.step(np.zeros((4, W.HEADS), np.int32))
    assert (env.records["wave"] == 3).all() and env.done.all()


def test_state_sets_reject_a_wave_outside_the_run():
    with pytest.raises(ValueError, match=r"wave must be an int in 1\.\.30"):
        worn_states(0, 4)


def test_arrival_states_hold_every_wave_on_the_tick_it_begins():
    recs = arrival_states(2, runs=6, seed=1)
    waves = recs["wave"]
    assert np.unique(waves).tolist() == list(range(1, W.WAVES + 1)) and (np.diff(waves) >= 0).all()
    assert np.bincount(waves, minlength=W.WAVES + 1)[1:].max() == 2
    assert (recs["tick"][waves == 1] == 0).all() and (recs["hp"] > 0).all()
    later = recs[waves > 1]
    assert (later["gap"] == W.WAVE_GAP).all() and not (later["m_state"] == W.ALIVE).any()


def test_arrival_states_take_a_player_function_as_a_scripted_name():
    def expert(env, acts):
        env.scripted_actions("expert", out=acts)

    assert arrival_states(1, expert, seed=2, runs=3).tobytes() == arrival_states(1, "expert", seed=2, runs=3).tobytes()


def test_gauntlet_states_writes_a_state_set_grouped_by_wave(tmp_path, monkeypatch, capsys):
    path = tmp_path / "arrivals.npz"
    monkeypatch.setattr(sys, "argv", ["gauntlet_states.py", "--out", str(path), "--per-wave", "2", "--runs", "4"])
    gauntlet_states.main()
    saved = load_state_set(path, Gauntlet)
    assert saved.group_key == "wave" and (saved.groups == saved.records["wave"]).all()
    assert set(saved.groups.tolist()) == set(range(1, W.WAVES + 1))
    assert saved.extra["player"] == "expert" and saved.env_config["start_wave"] == 1
    assert f"{len(saved.records)} expert arrival states" in capsys.readouterr().out
    env = BatchedEnv(Gauntlet, num_envs=4, seed=0, autoreset=False)
    env.restore(None, saved.records[saved.groups == W.FINAL_WAVE][:1].repeat(4))
    for _ in range(W.WAVE_GAP + 1):
        env.step(env.scripted_actions("expert"))
    assert (env.records["m_state"][:, 0] == W.ALIVE).all()  # the final boss came
