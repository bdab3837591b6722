"""`duel` mechanics, tick by tick, from hand-built states."""

import numpy as np
import pytest

from sparring.envs.duel import world as W
from sparring.envs.duel.env import Duel
from sparring.envs.duel.legal import delay, legal
from sparring.kit.batch import BatchedEnv


@pytest.fixture(scope="module")
def env():
    return BatchedEnv(Duel, num_envs=1, seed=3, autoreset=False, opponent="learner")


def place(env, **fields):
    """Restore a fresh record with ``fields`` (name -> value, per fighter except rng) overwritten."""
    env.reset(3)
    rec = env.records[0].copy()
    rec["gear"] = (W.MELEE, W.MELEE)
    rec["row"], rec["col"] = (5, 5), (5, 9)
    for name, value in fields.items():
        rec[name] = value
    env.restore(0, rec)
    return rec


def act(**heads):
    """Actions [2, heads]: ``heads`` maps a head name to (seat 0 value, seat 1 value)."""
    out = np.zeros((2, W.HEADS), np.int32)
    for name, (a, b) in heads.items():
        out[:, Duel.actions.names.index(name)] = (a, b)
    return out


def mask_of(env, seat, head):
    off = Duel.actions.offsets[Duel.actions.names.index(head)]
    return env.mask[seat, off : off + Duel.actions.sizes[Duel.actions.names.index(head)]]


def test_learner_seats_follow_the_opponent_knob():
    assert BatchedEnv(Duel, num_envs=2, opponent="robot").learner_rows.tolist() == [True, False, True, False]
    assert BatchedEnv(Duel, num_envs=1, opponent="learner").learner_rows.tolist() == [True, True]


def test_record_is_compact_and_unpadded():
    assert 100 <= Duel.record_dtype.itemsize <= 300
    fields = Duel.record_dtype.fields
    assert sum(fields[n][0].itemsize for n in Duel.record_dtype.names) == Duel.record_dtype.itemsize


def test_prayer_cuts_damage_to_two_fifths_not_zero(env):
    dealt = {True: [], False: []}
    for seed in range(120):
        prayed = seed % 2 == 0
        place(env, col=(5, 6), prayer=(0, W.MELEE + 1 if prayed else 0), rng=seed + 1)
        env.step(act(style=(1 + W.MELEE, 0)))
        dealt[prayed].append(int(env.records[0]["p_dmg"][0]))
    assert max(dealt[True]) <= W.MAX_HIT[W.MELEE] * 2 // 5 < max(dealt[False])
    assert max(dealt[True]) > 0


def test_melee_lands_next_tick_and_magic_later_by_distance(env):
    place(env, col=(5, 6), rng=7)
    env.step(act(style=(1 + W.MELEE, 0)))
    assert env.records[0]["p_left"][0] == 1
    place(env, col=(5, 14 - 4))  # distance 5
    env.step(act(style=(1 + W.MAGIC, 0)))
    assert env.records[0]["p_left"][0] == delay(W.MAGIC, 5) == 3
    assert env.records[0]["gear"][0] == W.MAGIC


def test_attack_masks_follow_timer_and_range(env):
    place(env, col=(5, 9), atk=(0, 2))
    assert mask_of(env, 0, "style").tolist() == [True, False, True, True]  # melee out of reach
    assert mask_of(env, 1, "style").tolist() == [True, False, False, False]  # weapon cooling down


def test_freeze_roots_then_immunity(env):
    place(env, col=(5, 7), p_left=(1, 0), p_style=(W.MAGIC, 0), p_freeze=(1, 0), p_dmg=(5, 0))
    env.step(act(move=(0, W.EAST)))
    rec = env.records[0]
    assert rec["col"][1] == 7 and rec["frozen"][1] == W.FREEZE_TICKS - 1 and rec["hp"][1] == W.MAX_HP - 5
    assert mask_of(env, 1, "move").tolist() == [True, False, False, False, False]
    for _ in range(W.FREEZE_TICKS - 1):
        env.step(act())
    assert env.records[0]["frozen"][1] == 0 and env.records[0]["immune"][1] == W.IMMUNE_TICKS


def test_eating_heals_and_delays_the_attack(env):
    place(env, hp=(50, 99))
    env.step(act(food=(W.EAT_BOTH, 0), style=(1 + W.RANGED, 0)))
    rec = env.records[0]
    assert rec["hp"][0] == 50 + W.FOOD_HEAL + W.COMBO_HEAL
    assert rec["p_left"][0] == 0, "eating on the ready tick blocks the attack"
    assert rec["atk"][0] == W.EAT_DELAY - 1 and rec["eat"][0] == W.EAT_TICKS - 1
    assert mask_of(env, 0, "food").tolist() == [True, False, False, False, True]


def test_knockout_rewards_and_ends(env):
    place(env, hp=(99, 3), p_left=(1, 0), p_dmg=(10, 0))
    _, rew, term, trunc, _, _ = env.step(act())
    assert rew.tolist() == [1.0, -1.0] and term.all() and env.done[0]


def test_tick_limit_is_a_loss_for_both_seats():
    env = BatchedEnv(Duel, num_envs=4, seed=0, autoreset=False, opponent="learner", max_ticks=5)
    for _ in range(5):
        _, rew, term, trunc, _, info = env.step(np.zeros((8, W.HEADS), np.int32))
    assert term.all() and not trunc.any() and (rew == -1.0).all() and info["episode_return"] == -1.0
    assert info["timed_out"] == 1.0 and info["win"] == 0.0 and info["draw"] == 0.0
    metrics, returns = env.records["metrics"], env.records["ep_return"]
    for seat in range(2):  # by the env's own outcome rule, each seat lost
        assert (Duel.outcome(seat, returns[:, seat], metrics) == 1).all()


def test_foresight_one_prays_against_the_attack_it_sees():
    env = BatchedEnv(Duel, num_envs=1, seed=0, autoreset=False, opponent="robot", foresight=1.0)
    place(env, gear=(W.MELEE, W.RANGED), atk=(0, 3))
    env.step(act(style=(1 + W.MAGIC, 0)))
    assert env.records[0]["prayer"][1] == W.MAGIC + 1


def test_unknown_opponent_names_the_valid_ones():
    with pytest.raises(ValueError, match="robot"):
        BatchedEnv(Duel, opponent="boss")


def test_mask_rows_agree_with_legal():
    env = BatchedEnv(Duel, num_envs=16, seed=5, opponent="learner")
    sizes = Duel.actions.sizes
    for _ in range(60):
        env.step(env.scripted_actions("random"))
        for i in range(env.num_envs):
            for a in range(2):
                want = [legal(env.records[i : i + 1][0], a, h, v) for h in range(W.HEADS) for v in range(sizes[h])]
                assert env.mask[2 * i + a].tolist() == want


def test_shaping_pays_damage_dealt_and_charges_damage_taken():
    shaped = BatchedEnv(Duel, num_envs=64, seed=5, autoreset=False, reward_damage=0.5, reward_taken=0.25)
    acts = np.zeros((shaped.rows, W.HEADS), np.int32)
    shaped.reset(5)
    while not shaped.done.all():
        shaped.step(shaped.scripted_actions("tribrid", out=acts))
    m = {name: shaped.records["metrics"][:, k] for k, name in enumerate(Duel.metrics)}
    outcome = np.where(m["win"] == 1, 1.0, np.where(m["draw"] == 1, 0.0, -1.0))  # a time-out is -1 too
    expected = outcome + (0.5 * m["damage_dealt"] - 0.25 * m["damage_taken"]) / W.MAX_HP
    assert np.allclose(shaped.records["ep_return"][:, 0], expected)
    assert np.allclose(m["shaping_taken"], -0.25 * m["damage_taken"] / W.MAX_HP) and (m["damage_taken"] > 0).all()
