"""`gauntlet`'s slow paths: the terminal picture, the description, viewer shapes and invariants."""

from sparring.envs.gauntlet import world as W
from sparring.envs.gauntlet.env import Gauntlet
from tests.envs.gauntlet.helpers import arena, make, monster


def test_picture_shows_pillars_monsters_player_and_the_shield():
    env = make()
    rec = arena(env, wave=W.FINAL_WAVE, shield_c=14, target=1)
    monster(rec, 0, W.ZUK, W.ZUK_R, W.ZUK_C)
    monster(rec, 1, W.MAGE, 3, 3)
    env.restore(0, rec)
    text = env.render_ansi(0)
    lines = text.splitlines()
    assert lines[W.START_R][W.START_C] == "@" and lines[3][3] == W.TYPE_LETTERS[W.MAGE]
    assert lines[W.SHIELD_ROW][12:17] == "=====" and lines[W.PILLAR_R[0]][W.PILLAR_C[0]] == "#"
    assert "wave 30/30 (before-summon)" in text and "* 1 mage" in text and "final boss hp 700/700" in text
    assert "Wave 30 of 30" in env.describe(0)
    kinds = {shape["type"] for shape in Gauntlet.draw(env.records[0], env.config)}
    assert {"rect", "circle", "text", "bar"} <= kinds


def test_invariants_catch_a_player_inside_a_pillar():
    env = make()
    rec = arena(env)
    assert Gauntlet.invariants(rec, env.config) == []
    rec["row"], rec["col"] = W.PILLAR_R[1] + 1, W.PILLAR_C[1] + 1
    assert any("inside standing pillar 1" in m for m in Gauntlet.invariants(rec, env.config))
