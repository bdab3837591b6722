"""The scripted players of `serpent`: what knowing the rotations changes, from hand-built states."""

import numpy as np
import pytest

from sparring.envs.serpent import world as W
from sparring.envs.serpent.env import Serpent
from sparring.kit.batch import BatchedEnv

HEAD = {name: k for k, name in enumerate(Serpent.actions.names)}


@pytest.fixture(scope="module")
def env():
    return BatchedEnv(Serpent, num_envs=1, seed=4, autoreset=False)


def before_phase_five(env, rotation):
    """Rotation ``rotation``, phases 1-4 seen, the boss one tick from surfacing in phase 5."""
    env.reset(4)
    rec = env.records[0].copy()
    rec["rotation"], rec["stage"], rec["timer"] = rotation, 4, 1
    rec["phase"] = rotation * W.PHASES + 4
    rec["seen_form"][:4], rec["seen_pos"][:4] = W.ROT_FORM[rotation, :4], W.ROT_POS[rotation, :4]
    env.restore(0, rec)


def expected_prayer(form):
    return {W.RANGED_FORM: W.PROTECT_RANGED, W.MAGIC_FORM: W.PROTECT_MAGIC}.get(int(form), 0)


@pytest.mark.parametrize("rotation", range(W.ROTATIONS))
def test_reference_prepares_for_the_next_phase_of_its_rotation(env, rotation):
    before_phase_five(env, rotation)
    acts = env.scripted_actions("reference")[0]
    form = W.ROT_FORM[rotation, 4]
    assert acts[HEAD["gear"]] == W.WEAKNESS[form] + 1
    assert acts[HEAD["prayer"]] == expected_prayer(form)


@pytest.mark.parametrize("rotation", range(W.ROTATIONS))
def test_reactive_expects_the_last_form_again(env, rotation):
    before_phase_five(env, rotation)
    acts = env.scripted_actions("reactive")[0]
    last = W.ROT_FORM[rotation, 3]
    assert acts[HEAD["gear"]] == W.WEAKNESS[last] + 1
    assert acts[HEAD["prayer"]] == expected_prayer(last)


def test_reference_walks_out_of_a_smash(env):
    env.reset(4)
    rec = env.records[0].copy()
    rec["surfaced"], rec["form"], rec["pos"], rec["timer"] = 1, W.MELEE_FORM, W.NORTH, 10
    rec["row"], rec["col"], rec["stare"], rec["stare_r"], rec["stare_c"] = 4, 5, 2, 4, 5
    env.restore(0, rec)
    for _ in range(2):
        env.step(env.scripted_actions("reference"))
    r, c = int(env.records[0]["row"]), int(env.records[0]["col"])
    assert abs(r - 4) + abs(c - 5) > 1
    assert env.records[0]["metrics"][list(Serpent.metrics).index("taken_smash")] == 0
    assert np.max(np.abs([r - W.BOSS_ROW[W.NORTH], c - W.BOSS_COL[W.NORTH]])) <= W.RANGE
