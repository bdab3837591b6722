"""`town` in words: descriptions, legal action lines, parsing free-text answers, goals and progress."""

import numpy as np
import pytest

from sparring.envs.town.env import Town
from sparring.envs.town.text import TownText, describe, legal_actions, legal_actions_text, progress
from sparring.envs.town.world import FIRST, GO_PLACE, MARKET, TALK, WELL
from tests.envs.town.towns import place, quiet_town, refresh


def test_legal_lines_are_the_mask():
    env = quiet_town()
    place(env, 0, WELL)
    lines = legal_actions_text(env.records[0], env.config, 0).splitlines()
    ids = [int(line.split(":")[0]) for line in lines]
    assert ids == np.flatnonzero(env.mask[0]).tolist() == legal_actions(env.records[0], env.config, 0)
    assert f"{FIRST[GO_PLACE] + MARKET}: go to the market" in lines and "drink" in " ".join(lines)
    assert Town.legal_actions_text(env.records[0], env.config, 0) == "\n".join(lines)


def test_describe_tells_what_the_character_knows():
    env = quiet_town()
    words = describe(env.records[0], env.config, 0)
    assert words.startswith("You are Ada. Day 1 of 3, 06:00.")
    assert "Needs: fullness 90% (good)" in words and "10 coins" in words and "Your goal (rich): hold 30" in words
    assert "Ben is next to you" in words
    env.records[0]["alive"][0] = 0
    refresh(env)
    assert "fainted" in describe(env.records[0], env.config, 0)
    with pytest.raises(ValueError, match=r"agent must be a character index in \[0, 8\)"):
        describe(env.records[0], env.config, 8)


@pytest.mark.parametrize(
    "answer, how",
    [
        ("go to the market", "exact"),
        ("5: go to the market", "exact"),
        ("  Go to the MARKET. ", "exact"),
        ("5", "id"),
        ("action 5", "id"),
        ("I think I will go to the market now.", "contained"),
        ("go to teh markett", "fuzzy"),
    ],
)
def test_parse_maps_answers_to_the_market_move(answer, how):
    env = quiet_town()
    parsed = TownText.parse(answer, env.records[0], env.config, 0)
    assert (parsed.action, parsed.how) == ((FIRST[GO_PLACE] + MARKET,), how), parsed


@pytest.mark.parametrize(
    "answer, why",
    [
        ("fly to the moon", "matches no legal action"),
        ("113", "not legal now"),
        ("talk to Ben or talk to Cora", "names 2 legal actions"),
        (None, "must be text"),
    ],
)
def test_parse_reports_what_it_cannot_map(answer, why):
    env = quiet_town()
    assert env.mask[0, FIRST[TALK]] and env.mask[0, FIRST[TALK] + 1]
    parsed = TownText.parse(answer, env.records[0], env.config, 0)
    assert parsed.action is None and parsed.how == "unparseable" and why in parsed.detail


def test_gathering_progress_rewards_the_tavern_and_company():
    from sparring.envs.town.world import PLACE_COL, PLACE_ROW, TAVERN
    from sparring.lm.learners import learners_env

    s = learners_env(1, 3, [0], goal="gathering", days=1).records[0].copy()
    assert progress(s, 0) == 0.0  # at home
    s["row"][:3], s["col"][:3] = PLACE_ROW[TAVERN], PLACE_COL[TAVERN]
    assert progress(s, 0) == pytest.approx(0.3 + 0.6 * 2 / 3)
    s["goal_done"][0] = 1
    assert progress(s, 0) == 1.0


def _at_the_market():
    env = quiet_town()
    for a in range(8):
        place(env, a, MARKET)
    return env


def test_brief_tells_the_same_facts_in_fewer_words():
    env = _at_the_market()
    rec, cfg = env.records[0], env.config
    words = TownText.brief(rec, cfg, 0)
    assert words.startswith("Ada, day 1 of 3, 06:00, at the market. Needs: fullness good, hydration good")
    assert "Carry: 10 coins." in words and "Goal (rich): hold 30 coins by the end of day 3." in words
    assert "Ben (next to you, rich)" in words and "market 0" in words
    assert len(words) < 0.8 * len(describe(rec, cfg, 0))
    rec["goods"][0][0] = 2
    rec["alive"][1] = 0
    refresh(env)
    assert "Carry: 10 coins, 2 wheat." in TownText.brief(env.records[0], cfg, 0)
    assert "fainted" in TownText.brief(env.records[0], cfg, 1)


def test_a_walk_on_the_road_goes_on_until_something_changes():
    env = _at_the_market()
    go_well = (FIRST[GO_PLACE] + WELL,)
    assert not TownText.continues(env.records[0], env.config, 0, go_well)  # at the market: a place, decide
    env.step(np.array([[go_well[0]]] + [[0]] * 7, np.int32))
    rec = env.records[0]
    assert "on the road" in describe(rec, env.config, 0)
    assert TownText.continues(rec, env.config, 0, go_well)
    assert not TownText.continues(rec, env.config, 0, (0,))  # waiting is decided every turn
    rec["needs"][0][1] = 0.1  # thirst turns critical
    assert not TownText.continues(rec, env.config, 0, go_well)
    rec["needs"][0][1] = 0.9
    rec["inbox"][0] = 1  # an offer waits
    assert not TownText.continues(rec, env.config, 0, go_well)
