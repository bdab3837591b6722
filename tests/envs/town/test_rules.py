"""`town` rules on hand-built states: masks, trades, goals, fainting, work, the clock."""

import numpy as np
import pytest

import sparring
from sparring.envs.town.env import TownConfig
from sparring.envs.town.legal import legal
from sparring.envs.town.observe import PLACE, SELF, SLOT
from sparring.envs.town.text import describe, legal_actions_text
from sparring.envs.town.world import (
    ACCEPT,
    BUILD,
    DAY,
    FARM,
    FIRST,
    GATHER,
    GATHER_OTHERS,
    GOAL_COINS,
    HOME_COL,
    HOME_ROW,
    HOUSE,
    HOUSE_COINS,
    HOUSE_WOOD,
    OFFER_TTL,
    PLACES,
    REJECT,
    SKILL_GAIN,
    SLOTS,
    TAVERN,
    THIRST,
    WHEAT,
    WOOD,
    WORK,
    offer_id,
)
from sparring.kit.check.play import allowed_actions
from tests.envs.town.towns import noop, place, quiet_town, refresh

INBOX = SELF + PLACES * PLACE + SLOTS * SLOT


def test_mask_agrees_with_the_rule_on_every_action():
    env = quiet_town(num_envs=4, seed=3)
    env.reset(3)
    rng = np.random.default_rng(0)
    for t in range(120):
        if t % 30 == 29:
            for row in range(env.rows):
                i, a = divmod(row, env.num_agents)
                rule = [legal(env.records[i], a, k, int(env.records[i]["tick"])) for k in range(env.heads.total)]
                assert env.mask[row].tolist() == rule, (t, row)
        env.step(allowed_actions(env.mask, env.heads.sizes, rng.random((env.rows, 1))))


def _act(env, moves: dict) -> np.ndarray:
    acts = noop(env)
    for agent, action in moves.items():
        acts[agent, 0] = action
    env.step(acts)
    return env.rewards.copy()


def test_offer_reaches_the_addressee_and_accepting_trades():
    env = quiet_town()
    env.records[0]["goods"][0, WOOD] = 2
    refresh(env)
    slot_of_1 = list(env.records[0]["slots"][0]).index(1)
    _act(env, {0: offer_id(slot_of_1, WOOD, 3)})
    rec = env.records[0]
    assert rec["inbox"][1] == 0 and rec["out_to"][0] == 1
    assert env.obs[1, INBOX] == 1.0 and env.obs[1, INBOX + 1 + WOOD] == 1.0
    assert "Ada offers you 1 wood for 3 coins" in describe(rec, env.config, 1)
    assert "accept Ada's offer" in legal_actions_text(rec, env.config, 1)
    assert not env.mask[2, FIRST[ACCEPT]]  # only the addressee can answer
    _act(env, {1: FIRST[ACCEPT]})
    assert rec["goods"][1, WOOD] == 1 and rec["goods"][0, WOOD] == 1
    assert (rec["coins"][0], rec["coins"][1]) == (13, 7) and rec["inbox"][1] == -1 and rec["out_to"][0] == -1


def test_rejected_and_unanswered_offers_close():
    env = quiet_town()
    env.records[0]["goods"][0, WOOD] = 2
    refresh(env)
    _act(env, {0: offer_id(0, WOOD, 5)})
    other = env.records[0]["out_to"][0]
    _act(env, {other: FIRST[REJECT]})
    assert env.records[0]["inbox"][other] == -1 and env.records[0]["goods"][other, WOOD] == 0
    _act(env, {0: offer_id(0, WOOD, 5)})
    for _ in range(OFFER_TTL):
        assert env.records[0]["out_to"][0] >= 0
        _act(env, {})
    assert env.records[0]["out_to"][0] == -1 and (env.records[0]["inbox"] == -1).all()


def test_goal_pays_once():
    env = quiet_town()
    env.records[0]["coins"][0] = GOAL_COINS
    refresh(env)
    assert _act(env, {})[0] == 1.0 and env.records[0]["goal_done"][0] == 1
    assert _act(env, {})[0] == 0.0


def test_team_term_shares_others_goals_and_its_knob_defaults_to_off():
    env = quiet_town(reward_team=0.7)
    env.records[0]["coins"][[0, 1]] = GOAL_COINS
    refresh(env)
    rew = _act(env, {})
    others = env.num_agents - 1
    assert rew[0] == pytest.approx(1.0 + 0.7 / others) and rew[2] == pytest.approx(0.7 * 2 / others)
    assert env.records[0]["metrics"][list(env.env_cls.metrics).index("shaping_team")] > 0
    assert (_act(env, {}) == 0.0).all()
    assert TownConfig().reward_team == 0.0  # opt-in: off in the env's defaults too; training asks for it
    assert sparring.make("town", num_envs=1).config.reward_team == 0.0
    plain = quiet_town()
    plain.records[0]["coins"][0] = GOAL_COINS
    refresh(plain)
    assert _act(plain, {})[1:].tolist() == [0.0] * others


def test_house_and_gathering_goals():
    env = quiet_town()
    rec = env.records[0]
    rec["goal"][0], rec["goal"][1] = HOUSE, GATHER
    rec["goods"][0, WOOD], rec["coins"][0] = HOUSE_WOOD, HOUSE_COINS
    rec["row"][0], rec["col"][0] = HOME_ROW[0], HOME_COL[0]
    for a in range(1, 2 + GATHER_OTHERS):
        place(env, a, TAVERN)
    rew = _act(env, {0: FIRST[BUILD]})
    assert rec["built"][0] == 1 and rec["goods"][0, WOOD] == 0 and rec["coins"][0] == 0
    assert rew[0] == 1.0 and rew[1] == 1.0


def test_work_produces_and_practice_improves_skill():
    env = quiet_town()
    place(env, 0, FARM)
    skill = float(env.records[0]["skill"][0, 0])
    _act(env, {0: FIRST[WORK]})
    rec = env.records[0]
    assert rec["goods"][0, WHEAT] in (1, 2) and rec["worked"][0, 0] == 1
    assert np.isclose(rec["skill"][0, 0], skill + SKILL_GAIN)


def test_a_fainted_character_stays_a_masked_row():
    env = quiet_town(days=1)
    env.records[0]["needs"][3, THIRST] = 0.01
    refresh(env)
    rew = _act(env, {})
    assert rew[3] == -1.0 and env.terminals[3] and env.records[0]["alive"][3] == 0
    assert env.mask[3].tolist() == [True] + [False] * (env.heads.total - 1) and not env.obs[3].any()
    acts = np.full((env.rows, 1), 5, np.int32)  # go to the market: the fainted one's is ignored
    while not env.done[0]:
        env.step(acts)
        assert env.terminals[3] and not env.truncations[3] and env.rewards[3] == 0.0
        assert env.records[0]["alive"][3] == 0
    assert env.records[0]["tick"] == DAY and env.terminals.all() and not env.truncations.any()  # the days are the game
