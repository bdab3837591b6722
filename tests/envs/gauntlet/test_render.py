"""`gauntlet`'s slow paths: the terminal picture, the description, viewer shapes and invariants."""

from sparring.envs.gauntlet import rules as R
from sparring.envs.gauntlet.env import Gauntlet
from tests.envs.gauntlet.helpers import arena, make, monster


def test_picture_shows_pillars_monsters_player_and_the_shield():
    env = make()
    rec = arena(env, wave=R.FINAL_WAVE, shield_c=14, target=1)
    monster(rec, 0, R.ZUK, R.ZUK_R, R.ZUK_C)
    monster(rec, 1, R.MAGE, 3, 3)
    env.restore(0, rec)
    text = env.render_ansi(0)
    lines = text.splitlines()
    assert lines[R.START_R][R.START_C] == "@" and lines[3][3] == R.TYPE_LETTERS[R.MAGE]
    assert lines[R.SHIELD_ROW][12:17] == "=====" and lines[R.PILLAR_R[0]][R.PILLAR_C[0]] == "#"
    assert "wave 30/30 (before-summon)" in text and "* 1 mage" in text and "final boss hp 700/700" in text
    assert "Wave 30 of 30" in env.describe(0)
    kinds = {shape["type"] for shape in Gauntlet.draw(env.records[0], env.config)}
    assert {"rect", "circle", "text", "bar"} <= kinds


def test_invariants_catch_a_player_inside_a_pillar():
    env = make()
    rec = arena(env)
    assert Gauntlet.invariants(rec, env.config) == []
    rec["row"], rec["col"] = R.PILLAR_R[1] + 1, R.PILLAR_C[1] + 1
    assert any("inside standing pillar 1" in m for m in Gauntlet.invariants(rec, env.config))
