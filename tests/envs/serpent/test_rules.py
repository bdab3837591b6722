"""`serpent` mechanics, tick by tick, from hand-built states."""

import numpy as np
import pytest

from sparring.envs.serpent import world as W
from sparring.envs.serpent.env import Serpent
from sparring.envs.serpent.legal import shadowed
from sparring.envs.serpent.world import METRICS
from sparring.kit.batch import BatchedEnv


def make(**config):
    return BatchedEnv(Serpent, num_envs=1, seed=3, autoreset=False, **config)


@pytest.fixture(scope="module")
def env():
    return make()


def place(env, seed=3, **fields):
    """Restore a fresh fight with ``fields`` overwritten (rotation A unless given)."""
    env.reset(seed)
    rec = env.records[0].copy()
    rec["rotation"], rec["phase"] = 0, 0
    for name, value in fields.items():
        rec[name] = value
    env.restore(0, rec)
    return rec


def act(**heads):
    out = np.zeros((1, W.HEADS), np.int32)
    for name, value in heads.items():
        out[0, Serpent.actions.names.index(name)] = value
    return out


def metric(env, name):
    return float(env.records[0]["metrics"][METRICS.index(name)])


def surfacing(env, seed=3, **fields):
    """Rotation A, the tick before phase 1 (ranged form, north) surfaces."""
    return place(env, seed, timer=1, **fields)


def test_rotations_share_their_start_and_then_differ():
    starts = {(tuple(W.ROT_FORM[r, : W.SHARED]), tuple(W.ROT_POS[r, : W.SHARED])) for r in range(W.ROTATIONS)}
    assert len(starts) == 1
    shown = {(W.ROT_FORM[r, W.SHARED], W.ROT_POS[r, W.SHARED]) for r in range(W.ROTATIONS)}
    assert len(shown) == W.ROTATIONS
    assert Serpent.phases[0] == "A/1" and Serpent.phases[-1] == f"D/{W.PHASES}"


def test_ambush_is_blocked_only_by_the_right_prayer(env):
    surfacing(env, prayer=W.PROTECT_RANGED, pp=10)
    env.step(act())
    assert env.records[0]["surfaced"] == 1 and env.records[0]["form"] == W.RANGED_FORM
    assert metric(env, "taken_ranged") == 0
    surfacing(env, prayer=W.PROTECT_MAGIC, pp=10)
    env.step(act())
    assert W.AMBUSH_MIN <= metric(env, "taken_ranged") <= W.AMBUSH_MAX


def test_safespot_blocks_ranged_without_prayer(env):
    r, c = 3, 2  # south of the pillar at (2, 2): shadowed from the north position
    assert shadowed.py_func(W.NORTH, r, c) and not shadowed.py_func(W.NORTH, 5, 5)
    surfacing(env, row=r, col=c)
    for _ in range(12):
        env.step(act())
    assert metric(env, "taken_ranged") == 0 and env.records[0]["hp"] == W.MAX_HP


def test_smash_hits_the_stared_plus_and_misses_two_steps_away(env):
    # rotation A phase 2 is the melee form: it stares at the tile it surfaces on, smashes two ticks later
    place(env, stage=1, phase=1, timer=1)
    env.step(act())
    rec = env.records[0]
    assert rec["form"] == W.MELEE_FORM and rec["stare"] == W.STARE_TICKS
    env.step(act(move=W.GO_SOUTH))
    env.step(act())
    assert metric(env, "taken_smash") >= W.SMASH_MIN
    place(env, stage=1, phase=1, timer=1)
    env.step(act())
    env.step(act(move=W.GO_SOUTH))
    env.step(act(move=W.GO_EAST))
    assert env.records[0]["stare"] == 0 and metric(env, "taken_smash") == 0


def test_venom_rises_until_antivenom(env):
    place(env, venom=W.VENOM_START, venom_t=1, timer=50)
    env.step(act())
    assert metric(env, "taken_venom") == W.VENOM_START
    assert env.records[0]["venom"] == W.VENOM_START + W.VENOM_STEP
    env.step(act(supply=W.ANTIVENOM))
    rec = env.records[0]
    assert rec["venom"] == 0 and rec["antivenom"] == W.ANTIVENOM_DOSES - 1 and rec["venom_immune"] > 0
    assert metric(env, "antivenom_doses") == 1


def test_eating_heals_replaces_the_attack_and_is_masked_at_full_hp(env):
    place(env, hp=W.MAX_HP, timer=50)
    eat = Serpent.actions.offsets[Serpent.actions.names.index("supply")] + W.EAT
    assert not env.mask[0, eat]
    place(env, hp=30, timer=50)
    env.step(act(supply=W.EAT))
    rec = env.records[0]
    assert rec["hp"] == 30 + W.FOOD_HEAL and rec["food"] == Serpent.Config().food - 1
    assert rec["atk"] == W.EAT_DELAY - 1 and metric(env, "food_eaten") == 1


def test_prayer_drains_and_switches_off(env):
    place(env, prayer=W.PROTECT_MAGIC, pp=1, timer=50)
    for _ in range(W.DRAIN_EVERY):
        env.step(act())
    rec = env.records[0]
    assert rec["pp"] == 0 and rec["prayer"] == 0
    off = Serpent.actions.offsets[Serpent.actions.names.index("prayer")]
    assert env.mask[0, off : off + 4].tolist() == [True, False, False, True]


def test_kill_gives_plus_one():
    env = make()
    for seed in range(40):  # a hit can roll 0 or miss
        # rotation A phase 1: ranged form at north, weak to magic; (4, 5) is in range
        place(
            env, seed, boss_hp=1, surfaced=1, form=W.RANGED_FORM, pos=W.NORTH, timer=10, row=4, col=5, gear=W.MAGIC_GEAR
        )
        env.step(act(attack=W.ATTACK_BOSS))
        if env.terminals[0]:
            break
    assert env.terminals[0] and env.rewards[0] == 1.0
    assert metric(env, "win") == 1 and metric(env, "kill_time") == env.records[0]["tick"]


@pytest.mark.parametrize("death, expect", [("minus_one", -1.0), ("zero", 0.0), ("progress", -0.75)])
def test_death_penalty_follows_the_config(death, expect):
    env = make(death=death, boss_hp=400)
    place(env, hp=1, venom=W.VENOM_START, venom_t=1, timer=50)
    env.records[0]["metrics"][METRICS.index("damage_dealt")] = 100
    env.step(act())
    assert env.terminals[0] and env.rewards[0] == pytest.approx(expect)


@pytest.mark.parametrize("death, expect", [("minus_one", -1.0), ("zero", 0.0), ("progress", -0.75)])
def test_tick_limit_pays_like_a_death_with_the_same_damage_dealt(death, expect):
    env = make(max_ticks=3, death=death, boss_hp=400)
    place(env, row=3, col=2, timer=50)
    env.records[0]["metrics"][METRICS.index("damage_dealt")] = 100
    for _ in range(2):
        env.step(act())
        assert not env.terminals[0] and not env.truncations[0]
    env.step(act())
    assert env.terminals[0] and not env.truncations[0] and env.rewards[0] == pytest.approx(expect)
    assert metric(env, "timed_out") == 1 and metric(env, "win") == 0
    assert Serpent.outcome(0, np.array([expect]), env.records["metrics"])[0] == 1  # a loss, not a draw


def test_clouds_burn_after_the_dive_only_if_the_player_stays(env):
    place(env, surfaced=1, form=W.RANGED_FORM, pos=W.NORTH, timer=1, row=3, col=2, boss_atk=3)
    env.step(act())  # dives: a cloud on the player's tile
    assert env.records[0]["surfaced"] == 0 and metric(env, "taken_clouds") == 0
    env.step(act())
    assert metric(env, "taken_clouds") == W.CLOUD_DAMAGE
    place(env, surfaced=1, form=W.RANGED_FORM, pos=W.NORTH, timer=1, row=3, col=2, boss_atk=3)
    env.step(act())
    env.step(act(move=W.GO_SOUTH))
    assert metric(env, "taken_clouds") in (0, W.CLOUD_DAMAGE)  # a random cloud may land on (4, 2)
