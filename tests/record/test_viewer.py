"""The HTML viewer's page: self-contained, built for every registered env, strict about shapes."""

import json
import re

import pytest

import sparring
from sparring.record import Recording, write_html
from sparring.record.viewer import check_shapes, viewer_data
from tests.record.conftest import record


def page_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="sparring-data">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


# town16 and town64 are town with more characters (same code, compiled again per size; tests/envs/town covers them)
SIZE_VARIANTS = {"town16", "town64"}


@pytest.mark.parametrize("env_name", [n for n in sparring.names() if n not in SIZE_VARIANTS])
def test_every_registered_env_gets_a_self_contained_page(tmp_path, env_name):
    path = record(tmp_path / "e.parquet", env_name, 1, num_envs=1, seed=2)
    rec = Recording(path)
    html = open(write_html(rec, 0, str(tmp_path / "e.html")), encoding="utf-8").read()
    assert "{{" not in html and not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "http://" not in html and "https://" not in html  # nothing fetched from a network
    data = page_data(html)
    ep = rec.episode(0)
    assert data["ticks"] == ep.ticks.tolist() and len(data["values"]) == len(data["phase"]) == ep.length + 1
    assert data["frames"] is not None or data["text"] is not None or not hasattr(rec.env_cls, "render_ansi")
    assert len(data["actions"]) == ep.length and len(data["actions"][0]) == rec.meta.num_agents


def test_the_data_carries_state_values_rewards_and_metrics(tmp_path):
    rec = Recording(record(tmp_path / "w.parquet", "toy_text_walk", 1, policy="scripted:to_goal", num_envs=1))
    data, ep = viewer_data(rec, 0), rec.episode(0)
    assert data["valueNames"] == ["pos", "goal"] and data["phases"] == ["far", "near"]
    assert [v[0] for v in data["values"]] == ep.states["pos"].tolist()
    assert data["rewards"][-1] == [1.0] and data["returns"][-1] == [1.0] and data["metricValues"][-1] == [1.0]
    assert {s["type"] for s in data["frames"][0]} == {"rect", "line", "circle", "bar", "text"}
    assert data["text"] is None  # the env draws, so its ANSI text is not needed


def test_malformed_shapes_are_named(tmp_path):
    with pytest.raises(ValueError, match=r"env 'x': shape 0 at tick 3 is .*'type' must be one of"):
        check_shapes([{"type": "hexagon"}], "x", 3)
    with pytest.raises(ValueError, match=r"env 'x': circle shape 1 at tick 0 lacks \['r'\]"):
        check_shapes([{"type": "rect", "x": 0, "y": 0, "w": 1, "h": 1}, {"type": "circle", "x": 0, "y": 0}], "x", 0)
    with pytest.raises(ValueError, match=r"non-finite \['x'\]"):
        check_shapes([{"type": "text", "x": float("nan"), "y": 0, "text": "hi"}], "x", 0)
    with pytest.raises(ValueError, match=r"draw\(\) must return a list"):
        check_shapes({"type": "rect"}, "x", 0)


def test_arrows_and_event_logs_are_shapes_and_logs_are_text():
    (arrow,) = check_shapes(
        [{"type": "arrow", "x1": 0, "y1": 0, "x2": 1, "y2": 2, "log": "a gave b", "kind": 3}], "x", 0
    )
    assert arrow["log"] == "a gave b" and arrow["kind"] == "3" and arrow["x2"] == 1.0
    with pytest.raises(ValueError, match=r"arrow shape 0 at tick 0 lacks \['y2'\]"):
        check_shapes([{"type": "arrow", "x1": 0, "y1": 0, "x2": 1}], "x", 0)


def test_a_draw_taking_the_state_before_is_given_it(tmp_path):
    rec = Recording(record(tmp_path / "t.parquet", "town", 1, "scripted:planner:0.2", 1, seed=1, config={"days": 1}))
    data, states = viewer_data(rec, 0), rec.episode(0).states
    assert not any("log" in s for s in data["frames"][0])  # the first state has no tick before it
    logged = [[i, s["kind"], s["log"]] for i, shapes in enumerate(data["frames"]) for s in shapes if "log" in s]
    assert data["events"] == logged and len(logged) > 5
    i = logged[0][0]
    alone = rec.env_cls.draw(states[i], rec.config)  # without the state before: no arrows
    assert not any(s["type"] == "arrow" for s in alone)
    assert len(data["frames"][i]) == len(alone) + sum(e[0] == i for e in logged)
