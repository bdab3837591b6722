"""`gauntlet`'s Go-Explore cell keys and its state sets (worn and scripted), loaded through the kit's reset pool."""

import numpy as np
import pytest

from sparring.envs.gauntlet import world as W
from sparring.envs.gauntlet.env import Gauntlet
from sparring.envs.gauntlet.states import scripted_states, worn_states
from sparring.explore.cells import cell_fields, decode, keys_of
from sparring.kit.batch import BatchedEnv


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
