"""`gauntlet` mechanics, tick by tick, from hand-built states."""

import pytest

from sparring.envs.gauntlet import world as W
from sparring.envs.gauntlet.env import Gauntlet
from tests.envs.gauntlet.helpers import act, arena, make, metric, monster


@pytest.fixture(scope="module")
def env():
    return make()


def test_pillar_blocks_sight_attacks_and_targeting(env):
    rec = arena(env, row=24, col=13)
    monster(rec, 1, W.RANGER, 16, 13, m_atk=1)  # pillar 2 (rows 19-21, cols 12-14) is in between
    monster(rec, 2, W.RANGER, 24, 3, m_atk=9)  # same row, nothing in between
    env.restore(0, rec)
    env.step(act())
    target = Gauntlet.actions.offsets[Gauntlet.actions.names.index("target")]
    assert env.records[0]["m_vis"][1] == 0 and not env.mask[0, target + 2]
    assert env.records[0]["m_vis"][2] == 1 and env.mask[0, target + 3]
    assert metric(env, "taken_ranged") == 0


def test_protection_prayer_blocks_its_style_only():
    env = make()
    for seed in range(40):
        rec = arena(env, seed, prayer=W.PROTECT_RANGED, pp=50)
        monster(rec, 1, W.RANGER, 24, 4, m_atk=1)
        env.restore(0, rec)
        env.step(act())
        assert metric(env, "taken_ranged") == 0
    hurt = 0
    for seed in range(40):
        rec = arena(env, seed, prayer=W.PROTECT_MAGIC, pp=50)
        monster(rec, 1, W.RANGER, 24, 4, m_atk=1)
        env.restore(0, rec)
        env.step(act())
        hurt += metric(env, "taken_ranged") > 0
    assert hurt > 5


def test_blob_reads_the_prayer_a_tick_ahead_so_a_flick_blocks_it(env):
    for seed in range(20):
        rec = arena(env, seed)
        monster(rec, 1, W.BLOB, 24, 8, m_atk=2)
        env.restore(0, rec)
        env.step(act(prayer=W.PROTECT_RANGED))
        assert env.records[0]["m_tele"][1] == W.MAGIC + 1 and env.records[0]["m_atk"][1] == 1
        env.step(act(prayer=W.PROTECT_MAGIC))
        assert env.records[0]["m_tele"][1] == 0 and metric(env, "taken_magic") == 0


def test_blob_splits_into_three_styles(env):
    for seed in range(40):
        rec = arena(env, seed, target=1, gear=0)
        monster(rec, 1, W.BLOB, 24, 10, m_hp=1, m_atk=9)
        env.restore(0, rec)
        env.step(act())
        if env.records[0]["m_state"][1] != W.ALIVE:
            break
    s = env.records[0]
    splits = [k for k in range(W.SLOTS) if s["m_state"][k] == W.ALIVE and s["m_type"][k] == W.SPLIT]
    assert len(splits) == 3 and sorted(int(s["m_style"][k]) for k in splits) == [W.MELEE, W.RANGED, W.MAGIC]


def test_meleer_burrows_and_resurfaces_beside_a_player_out_of_reach(env):
    rec = arena(env)
    monster(rec, 1, W.MELEER, 2, 14, m_idle=W.BURROW_AFTER - 1)
    env.restore(0, rec)
    env.step(act())
    assert env.records[0]["m_state"][1] == W.BURROWED
    for _ in range(W.BURROW_TICKS):
        env.step(act())
    s = env.records[0]
    assert s["m_state"][1] == W.ALIVE and max(abs(s["m_r"][1] - s["row"]), abs(s["m_c"][1] - s["col"])) == 1


def test_mage_raises_a_body_at_half_hp_once(env):
    for seed in range(60):
        rec = arena(env, seed)
        monster(rec, 1, W.MAGE, 24, 4, m_atk=1)
        monster(rec, 2, W.BAT, 3, 3, m_state=W.DEAD, m_hp=0)
        env.restore(0, rec)
        env.step(act())
        if env.records[0]["m_state"][2] == W.ALIVE:
            break
    s = env.records[0]
    assert s["m_state"][2] == W.ALIVE and s["m_hp"][2] == W.HP[W.BAT] // 2 and s["m_flag"][2] & W.RAISED


def test_healers_heal_their_boss_until_tagged(env):
    rec = arena(env, row=13, col=14, gear=0)
    monster(rec, 1, W.BOSS, 3, 14, m_hp=100, m_atk=30, m_flag=W.SUMMONED)
    monster(rec, 2, W.HEALER, 4, 14, m_atk=1, m_link=1)
    env.restore(0, rec)
    env.step(act())
    assert env.records[0]["m_hp"][1] == 100 + W.HEAL
    env.step(act(target=3))
    s = env.records[0]
    assert s["m_flag"][2] & W.TAGGED and metric(env, "healers_tagged") == 1
    for _ in range(2 * W.HEAL_EVERY):
        env.step(act())
    assert env.records[0]["m_hp"][1] == 100 + W.HEAL


def test_boss_calls_healers_at_half_hp(env):
    rec = arena(env)
    monster(rec, 1, W.BOSS, 3, 14, m_hp=W.HP[W.BOSS] // 2, m_atk=30)
    env.restore(0, rec)
    env.step(act())
    s = env.records[0]
    healers = [k for k in range(W.SLOTS) if s["m_state"][k] == W.ALIVE and s["m_type"][k] == W.HEALER]
    assert len(healers) == W.BOSS_HEALERS and all(s["m_link"][k] == 1 for k in healers)


def test_telegraphed_boss_attack_is_forecast_and_blocked_by_the_shown_prayer(env):
    rec = arena(env, col=20)
    monster(rec, 1, W.BOSS, 14, 20, m_atk=W.TELEGRAPH + 1)
    env.restore(0, rec)
    env.step(act())
    style = int(env.records[0]["m_tele"][1]) - 1
    assert style in (W.RANGED, W.MAGIC)
    assert env.obs[0, 30 + 4 * (W.TELEGRAPH - 1) + style] == pytest.approx(W.MAX_HIT[W.BOSS] / W.MAX_HP)
    for _ in range(W.TELEGRAPH):
        env.step(act(prayer=style + 1))
    assert env.records[0]["m_tele"][1] == 0 and metric(env, "taken_boss") == 0


def _falling_pillar(env, hp):
    rec = arena(env, row=22, col=13, hp=hp)
    rec["pil_hp"][2] = W.NIBBLE
    monster(rec, 1, W.NIBBLER, 18, 13, m_atk=1)
    env.restore(0, rec)


def test_a_falling_pillar_hurts_who_stands_next_to_it_and_never_kills_a_monster(env):
    _falling_pillar(env, W.MAX_HP)
    env.step(act())
    s = env.records[0]
    assert s["pil_hp"][2] == 0 and metric(env, "pillars_lost") == 1
    assert metric(env, "taken_pillar") == W.FALL_DAMAGE
    # the nibbler (10 hp) is wounded to 1 hp, not killed: a wave never clears itself while the player stands by
    assert s["m_state"][1] == W.ALIVE and s["m_hp"][1] == 1


def _walk_until_adjacent(env, rec, ticks):
    """Step a noop player until the tagged healer in slot 1 (it walks to the player and bites at range 1) is
    next to it; the tick it got there, or None."""
    env.restore(0, rec)
    for t in range(ticks):
        env.step(act())
        s = env.records[0]
        if max(abs(int(s["m_r"][1]) - int(s["row"])), abs(int(s["m_c"][1]) - int(s["col"]))) <= 1:
            return t + 1
    return None


def test_a_monster_walks_round_the_pillar_between_it_and_a_player_who_never_moves(env):
    # straight north of pillar 2 (rows 19-21, cols 12-14), the player straight south: the greedy step is blocked
    # and the pull back to the face's middle used to hold it there for good
    for col in (12, 13, 14):
        rec = arena(env, row=24, col=col, hp=W.MAX_HP)
        monster(rec, 1, W.HEALER, 16, 13, m_flag=W.TAGGED)
        assert _walk_until_adjacent(env, rec, 30) is not None, col
        rec = arena(env, row=15, col=col, hp=W.MAX_HP)  # and the other way round
        monster(rec, 1, W.HEALER, 24, 13, m_flag=W.TAGGED)
        assert _walk_until_adjacent(env, rec, 30) is not None, col


def test_no_tile_lets_a_player_who_never_moves_hide_from_a_walking_monster():
    env = make()
    open_tiles = [
        (r, c)
        for r in range(W.ROWS)
        for c in range(W.COLS)
        if not any(
            W.PILLAR_R[p] <= r < W.PILLAR_R[p] + W.PILLAR and W.PILLAR_C[p] <= c < W.PILLAR_C[p] + W.PILLAR
            for p in range(W.PILLARS)
        )
    ]
    rng = __import__("numpy").random.default_rng(0)
    for k in rng.choice(len(open_tiles), size=(150, 2)):
        (pr, pc), (mr, mc) = open_tiles[k[0]], open_tiles[k[1]]
        if (pr, pc) == (mr, mc):
            continue
        rec = arena(env, row=pr, col=pc, hp=W.MAX_HP)
        monster(rec, 1, W.HEALER, mr, mc, m_flag=W.TAGGED)
        assert _walk_until_adjacent(env, rec, 80) is not None, ((pr, pc), (mr, mc))


@pytest.mark.parametrize("death, expect", [("progress", -(1 - 10 / W.WAVES)), ("flat", -1.0), ("zero", 0.0)])
def test_death_penalty_follows_the_config(death, expect):
    env = make(death=death)
    rec = arena(env, row=22, col=13, hp=1, wave=11)
    rec["pil_hp"][2] = W.NIBBLE
    monster(rec, 1, W.NIBBLER, 18, 13, m_atk=1)
    monster(rec, 2, W.RANGER, 2, 2, m_atk=30)  # the wave goes on
    env.restore(0, rec)
    env.step(act())
    assert env.terminals[0] and env.rewards[0] == pytest.approx(expect)
    assert metric(env, "killed_by_pillar") == 1 and metric(env, "lowest_hp") == 0


def test_hp_shaping_charges_a_hit_and_pays_a_heal():
    env = make(reward_hp=0.5)
    rec = arena(env, row=22, col=13)
    rec["pil_hp"][2] = W.NIBBLE
    monster(rec, 1, W.NIBBLER, 18, 13, m_atk=1)
    monster(rec, 2, W.RANGER, 2, 2, m_atk=30)  # the wave goes on
    env.restore(0, rec)
    env.step(act())
    hit = 0.5 * W.FALL_DAMAGE / W.MAX_HP
    assert env.rewards[0] == pytest.approx(-hit) and metric(env, "shaping_hp") == pytest.approx(-hit)
    env.step(act(supply=W.DRINK_HEAL))
    heal = 0.5 * min(W.HEAL_HP, W.FALL_DAMAGE) / W.MAX_HP
    assert env.rewards[0] == pytest.approx(heal) and metric(env, "shaping_hp") == pytest.approx(heal - hit, abs=1e-6)


@pytest.mark.parametrize("knob", [0.0, 2.0])
def test_waste_shaping_charges_the_part_of_a_dose_above_the_maximum(knob):
    env = make(reward_waste=knob)
    rec = arena(env, row=22, col=13)
    monster(rec, 2, W.RANGER, 2, 2, m_atk=30)  # out of reach: nothing else happens this tick
    rec["hp"], rec["pp"] = W.MAX_HP - W.HEAL_HP, 80  # a heal fits exactly; a restore spills 11 points
    env.restore(0, rec)
    env.step(act(supply=W.DRINK_HEAL))
    assert env.rewards[0] == 0 and metric(env, "supplies_wasted") == 0
    env.step(act(supply=W.DRINK_RESTORE))
    spill = 80 + W.RESTORE_PP - W.PRAY_MAX
    assert metric(env, "supplies_wasted") == spill  # counted whatever the knob
    assert env.rewards[0] == pytest.approx(-knob * spill / W.MAX_HP)
    rec["hp"] = W.MAX_HP - 1  # (at full hp a heal is refused by the mask) all but one point of the dose is lost
    env.restore(0, rec)
    env.step(act(supply=W.DRINK_HEAL))
    assert metric(env, "supplies_wasted") == W.HEAL_HP - 1
    assert metric(env, "shaping_waste") == pytest.approx(-knob * (W.HEAL_HP - 1) / W.MAX_HP)


def test_cleared_wave_pays_the_knob_and_the_next_spawns_after_the_gap():
    env = make(reward_wave=0.25)
    env.restore(0, arena(env, wave=3))
    env.step(act())
    assert env.records[0]["wave"] == 4 and env.rewards[0] == pytest.approx(0.25)
    for _ in range(W.WAVE_GAP):
        env.step(act())
    alive = int((env.records[0]["m_state"] == W.ALIVE).sum())
    assert alive == int((W.WAVE_TABLE[4] >= 0).sum()) + W.NIBBLERS
    assert Gauntlet.phases[env.records[0]["phase"]] == "wave 4" and metric(env, "wave") == 4


def _final(env, seed=3, **fields):
    rec = arena(env, seed, wave=W.FINAL_WAVE, shield_c=14, shield_dir=1, spawn_t=500, **fields)
    monster(rec, 0, W.ZUK, W.ZUK_R, W.ZUK_C, m_atk=1)
    return rec


def test_final_boss_big_hit_spares_only_the_covered(env):
    env.restore(0, _final(env))
    env.step(act())
    assert metric(env, "taken_final_boss") == 0 and env.records[0]["hp"] == W.MAX_HP
    env.restore(0, _final(env, col=2))
    env.step(act())
    assert env.terminals[0] and metric(env, "killed_by_final_boss") == 1
    assert env.rewards[0] == pytest.approx(-(1 - (W.FINAL_WAVE - 1) / W.WAVES))


def test_final_boss_stages_summon_healers_and_enrage(env):
    def stage_after(hp, atk=9, **fields):
        rec = _final(env, **fields)
        rec["m_hp"][0], rec["m_atk"][0] = hp, atk
        env.restore(0, rec)
        env.step(act())
        return Gauntlet.phases[env.records[0]["phase"]]

    top = W.HP[W.ZUK]
    assert stage_after(top) == "final/before-summon"
    assert stage_after(int(top * W.SUMMON_AT)) == "final/summon"
    assert (env.records[0]["m_type"][env.records[0]["m_state"] == W.ALIVE] == W.BOSS).sum() == 1
    assert stage_after(int(top * W.HEALERS_AT), zuk_flags=W.BOSS_CALLED) == "final/healers"
    assert (env.records[0]["m_type"][env.records[0]["m_state"] == W.ALIVE] == W.HEALER).sum() == W.ZUK_HEALERS
    assert stage_after(int(top * W.HEALERS_AT), zuk_flags=W.BOSS_CALLED | W.HEALERS_CALLED) == "final/post-healers"
    assert stage_after(int(top * W.ENRAGE_AT), atk=1, zuk_flags=W.BOSS_CALLED | W.HEALERS_CALLED) == "final/enrage"
    assert env.records[0]["m_atk"][0] == W.ZUK_ENRAGED and env.records[0]["hp"] == W.MAX_HP  # struck, shielded


def test_killing_the_final_boss_clears_the_run(env):
    for seed in range(40):
        rec = _final(env, seed, target=0, gear=0)
        rec["m_hp"][0], rec["m_atk"][0] = 1, 9
        env.restore(0, rec)
        env.step(act())
        if env.terminals[0]:
            break
    assert env.terminals[0] and env.rewards[0] == 1.0 and metric(env, "win") == 1


def test_tick_limit_ends_the_run_like_a_death_so_stalling_does_not_pay():
    env = make(max_ticks=3)
    env.restore(0, arena(env, wave=2, gap=50))
    for _ in range(3):
        env.step(act())
    assert env.terminals[0] and env.rewards[0] == pytest.approx(-(1 - 1 / W.WAVES))
    assert metric(env, "timed_out") == 1


def test_bad_start_wave_names_the_valid_range():
    with pytest.raises(ValueError, match=r"start_wave must be in 1\.\.30"):
        make(start_wave=31)
