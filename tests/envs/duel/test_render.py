"""`duel`'s viewer shapes: what ``draw`` puts where, and the HTML replay in a real headless Chromium.

``python -m tests.envs.duel.test_render PNG`` writes the screenshot of the replay that the browser test checks
(docs/img/duel_replay.png is one).
"""

import pathlib
import sys

import numpy as np
import pytest

import sparring
from sparring.envs.duel import world as W
from sparring.envs.duel.env import Duel
from sparring.envs.duel.render import ICE, STYLE_FILL, draw
from sparring.players import make_player
from sparring.record import Recording, record_episodes, write_html
from sparring.record.viewer import check_shapes
from tests.record.test_browser import open_page


@pytest.fixture(scope="module")
def fight():
    """A record of a fresh fight with the fighters apart, and its config."""
    env = sparring.make("duel", num_envs=1, seed=3, opponent="tribrid")
    rec = env.records[0].copy()
    rec["row"], rec["col"] = (2, 8), (3, 6)
    rec["gear"] = (W.RANGED, W.MAGIC)
    return rec, env.config


def circles_at(shapes, x, y):
    return [s for s in shapes if s["type"] == "circle" and (s["x"], s["y"]) == pytest.approx((x, y))]


def texts(shapes):
    return [s["text"] for s in shapes if s["type"] == "text"]


def test_fighters_in_their_gear_colour_with_hp_bars_and_overhead_prayers(fight):
    rec, cfg = fight
    rec = rec.copy()
    rec["hp"] = (80, 41)
    rec["prayer"] = (0, W.MELEE + 1)
    shapes = check_shapes(draw(rec, cfg), "duel", 0)
    (body_a,) = circles_at(shapes, 3.5, 2.55)
    (body_b,) = circles_at(shapes, 6.5, 8.55)
    assert body_a["fill"] == STYLE_FILL[W.RANGED] and body_b["fill"] == STYLE_FILL[W.MAGIC]
    tile_bars = [(s["value"], s["x"]) for s in shapes if s["type"] == "bar" and "label" not in s]
    assert tile_bars == [(80, pytest.approx(3.08)), (41, pytest.approx(6.08))]
    icons = [(s["x"], s["y"], s["stroke"]) for s in shapes if s["type"] == "circle" and s["r"] == 0.27]
    assert icons == [(6.5, pytest.approx(8 - 0.3), STYLE_FILL[W.MELEE])]  # above B's tile; A does not pray
    assert "Me" in texts(shapes) and "ranged gear, no prayer" in texts(shapes)
    assert "magic gear, protect melee" in texts(shapes)
    labelled = {(s["label"], s["value"]) for s in shapes if s.get("label")}
    assert {("hp", 80), ("hp", 41), ("prayer", W.PRAY_MAX), ("spec", W.SPEC_MAX)} <= labelled


def test_a_hit_in_flight_travels_and_lands_with_its_damage(fight):
    rec, cfg = fight
    rec = rec.copy()
    rec["p_left"], rec["p_style"], rec["p_dmg"], rec["p_freeze"] = (3, 0), (W.RANGED, 0), (17, 0), (0, 0)
    shapes = draw(rec, cfg)
    (x0, y0), (x1, y1) = (3.5, 2.55), (6.5, 8.55)  # A's and B's centres, 6 tiles apart: ranged lands in 3 ticks
    (shot,) = [s for s in shapes if s["type"] == "circle" and s["r"] == 0.13]
    along = ((shot["x"] - x0) * (x1 - x0) + (shot["y"] - y0) * (y1 - y0)) / ((x1 - x0) ** 2 + (y1 - y0) ** 2)
    assert shot["fill"] == STYLE_FILL[W.RANGED] and along == pytest.approx(1 / 3, abs=0.02)
    assert "3" in texts(shapes) and "17" not in texts(shapes)  # the ticks it has left; the damage only on landing
    rec["p_left"] = (1, 0)  # lands next tick: the projectile at the target, the damage in a red splat
    shapes = draw(rec, cfg)
    (shot,) = [s for s in shapes if s["type"] == "circle" and s["r"] == 0.13]
    assert (shot["x"], shot["y"]) == pytest.approx((x1, y1))
    (splat,) = circles_at(shapes, x1 + 0.34, y1 + 0.28)
    assert splat["fill"] == "#b3261e" and "17" in texts(shapes)
    rec["p_dmg"], rec["p_freeze"], rec["p_style"] = (0, 0), (1, 0), (W.MAGIC, 0)  # a freezing miss: blue, ice rim
    (splat,) = circles_at(draw(rec, cfg), x1 + 0.34, y1 + 0.28)
    assert splat["fill"] == "#2d5fb0" and splat["stroke"] == ICE


def test_two_hits_of_one_style_keep_apart(fight):
    rec, cfg = fight
    rec = rec.copy()
    rec["p_left"], rec["p_style"] = (2, 3), (W.RANGED, W.RANGED)
    trails = [s for s in draw(rec, cfg) if s["type"] == "line" and s["stroke"] == STYLE_FILL[W.RANGED]]
    (ax, ay), (bx, by) = (trails[0]["x1"], trails[0]["y1"]), (trails[1]["x1"], trails[1]["y1"])
    gap = ((bx - ax) * 6 - (by - ay) * 3) / np.hypot(3, 6)  # across the line from A (3.5, 2.55) to B (6.5, 8.55)
    assert abs(gap) == pytest.approx(0.2)  # each 0.1 to its own side of the line between the fighters


def test_freezes_supplies_and_last_ticks_actions_show(fight):
    rec, cfg = fight
    rec = rec.copy()
    rec["frozen"] = (0, 5)
    rec["food"], rec["combo"], rec["pots"] = (1, 4), (0, 2), (3, 3)
    rec["last"][0] = (W.NORTH, 3, 2, W.EAT, 0)
    shapes = draw(rec, cfg)
    ice = [s for s in shapes if s["type"] == "rect" and s.get("stroke") == ICE]
    assert [(s["x"], s["y"]) for s in ice] == [(6, 8)]
    assert "weapon ready, FROZEN 5" in texts(shapes)
    assert "food 1/4  combo 0/2  pots 3/3" in texts(shapes)
    icons = [s for s in shapes if s["type"] in ("rect", "circle") and s["y"] > W.ARENA + 2 and s.get("w", 0.28) < 0.5]
    a_icons = [s for s in icons if s["x"] < W.ARENA / 2]
    assert len(a_icons) == W.FOODS + W.COMBOS + W.POTS
    assert sum("fill" in s for s in a_icons) == 1 + 0 + 3  # eaten ones are hollow
    words = " ".join(s["text"] for s in shapes if s["type"] == "text" and s["x"] == 0 and s["size"] == 0.3)
    assert words == "last tick: step north, attack with magic, protect from ranged, eat food"
    rec["last"][0] = (W.NORTH, 1, 2, W.EAT_BOTH, 1)  # every head at once still fits
    lines = [s["text"] for s in draw(rec, cfg) if s["type"] == "text" and s["x"] == 0 and s["size"] == 0.3]
    assert len(lines) == 3 and lines[-1].endswith("special attack")


def test_every_frame_of_a_recorded_fight_is_valid(tmp_path):
    rec = Recording(_record(tmp_path / "d.parquet", episodes=1))
    for t, s in enumerate(rec.episode(0).states):
        check_shapes(Duel.draw(s, rec.config), "duel", t)


def _record(path, episodes: int) -> str:
    env = sparring.make("duel", num_envs=1, seed=7, opponent="tribrid")
    record_episodes(env, make_player("scripted:robot", env, 7), episodes, str(path))
    return str(path)


def _lively_tick(rec: Recording) -> tuple[int, int]:
    """The first (episode, tick) where both fighters pray, one hit lands next tick and the other is in flight."""
    for e in rec.episode_ids():
        for t, s in enumerate(rec.episode(e).states):
            if (s["prayer"] > 0).all() and sorted(s["p_left"])[0] == 1 and s["p_left"].max() > 1:
                return e, t
    raise AssertionError("no tick with both prayers up and hits in flight in the recording")


def _open_lively(browser, tmp_path):
    """The replay's page seeked to its lively tick, its errors, the record shown and the config."""
    rec = Recording(_record(tmp_path / "d.parquet", episodes=1))
    e, t = _lively_tick(rec)
    page, errors = open_page(browser, write_html(rec, e, str(tmp_path / "d.html")))
    assert page.evaluate(f"window.sparringViewer.seek({t})") == t
    return page, errors, rec.episode(e).states[t], rec.config


@pytest.fixture(scope="module")
def lively(browser, tmp_path_factory):
    return _open_lively(browser, tmp_path_factory.mktemp("duel"))


def _rgb(page, x, y) -> np.ndarray:
    return np.array(page.evaluate(f"window.sparringViewer.pixel({x}, {y})")[:3])


def _hex(colour: str) -> np.ndarray:
    return np.array([int(colour[k : k + 2], 16) for k in (1, 3, 5)])


def test_the_replay_draws_fighters_prayers_and_hits_in_chromium(lively):
    page, errors, s, cfg = lively
    assert page.is_visible("#frame") and page.is_hidden("#ansi")
    for a in range(2):
        x, y = int(s["col"][a]) + 0.5, int(s["row"][a]) + 0.55
        assert (_rgb(page, x - 0.2, y - 0.05) == _hex(STYLE_FILL[int(s["gear"][a])])).all()  # the body, by gear
        rim = _rgb(page, x - 0.27, int(s["row"][a]) - 0.3)  # the overhead prayer's rim, by the style it protects
        assert np.abs(rim - _hex(STYLE_FILL[int(s["prayer"][a]) - 1])).max() <= 40
        if s["p_left"][a] == 1:  # the splat on the other fighter: red with damage, blue for 0
            o = 1 - a
            splat = _rgb(page, int(s["col"][o]) + 0.84, int(s["row"][o]) + 0.83 - 0.17)
            assert (splat == _hex("#b3261e" if s["p_dmg"][a] else "#2d5fb0")).all()
    bodies = {(int(s["col"][a]) + 0.5, int(s["row"][a]) + 0.55) for a in range(2)}
    projectiles = [c for c in draw(s, cfg) if c["type"] == "circle" and c["r"] == 0.13]
    # one at its target hides behind the body
    flying = [c for c in projectiles if min(abs(c["x"] - x) + abs(c["y"] - y) for x, y in bodies) > 0.01]
    assert len(flying) == 1 and all((_rgb(page, c["x"], c["y"]) == _hex(c["fill"])).all() for c in flying)
    assert errors == []


def write_screenshot(page, out: str) -> None:
    """The replay's page as a PNG of its stage and panel (the top 1100 x 660 pixels)."""
    page.set_viewport_size({"width": 1100, "height": 660})
    page.screenshot(path=out, clip={"x": 0, "y": 0, "width": 1100, "height": 660})


def test_a_screenshot_of_the_replay(lively, tmp_path):
    out = tmp_path / "duel.png"
    write_screenshot(lively[0], str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


if __name__ == "__main__":
    import tempfile

    from playwright.sync_api import sync_playwright

    from tests.record.test_browser import CHROMIUM_ARGS, chromium_path

    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        chromium = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page, errors, _, _ = _open_lively(chromium, pathlib.Path(tmp))
        assert errors == [], errors
        write_screenshot(page, sys.argv[1])
        chromium.close()
    print(f"wrote {sys.argv[1]}")
