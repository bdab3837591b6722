"""The HTML viewer in a real headless Chromium: loads cleanly, seeks, and draws what the recording holds.

Uses Debian's ``chromium`` (installed by ``.ci/run``) through playwright. Under CI
(``CI`` set) a missing browser is a failure; elsewhere the tests are skipped.
"""

import os
import shutil

import pytest

from sparring.record import Recording, write_html
from tests.record.conftest import record

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AGENT_RGB, TARGET_RGB = (60, 160, 230), (220, 60, 60)  # squared's draw(): agent disc, target tile


def chromium_path() -> str | None:
    for path in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if path and os.path.exists(path):
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    path = chromium_path()
    if path is None:
        message = "Debian's chromium is not installed (apt-get install -y chromium; .ci/run does it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    if not os.environ.get("CI"):
        pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def open_page(browser, html: str):
    """A page showing ``html`` and the list its console errors and uncaught exceptions are appended to."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "request",
        lambda req: errors.append(f"network request {req.url}") if not req.url.startswith(("file:", "data:")) else None,
    )
    page.goto("file://" + html)
    page.wait_for_function("window.sparringViewer !== undefined")
    return page, errors


def test_squared_page_seeks_and_draws_the_recorded_state(browser, tmp_path):
    rec = Recording(record(tmp_path / "s.parquet", "squared", 2, num_envs=1, seed=4, config={"size": 9}))
    ep = rec.episode(1)
    page, errors = open_page(browser, write_html(rec, 1, str(tmp_path / "s.html")))
    viewer = "window.sparringViewer"
    assert page.evaluate(f"{viewer}.length") == ep.length + 1 and page.evaluate(f"{viewer}.index") == 0
    for t in sorted({0, ep.length // 2, ep.length - 1, ep.length}):
        assert page.evaluate(f"{viewer}.seek({t})") == t
        s = ep.states[t]
        assert page.text_content("#tick-value") == str(ep.ticks[t])
        assert page.text_content('[data-field="row"]') == str(s["row"])
        assert page.text_content('[data-field="col"]') == str(s["col"])
        assert page.evaluate(f"{viewer}.current().values") == {"row": s["row"], "col": s["col"], "target": s["target"]}
        tr, tc = divmod(int(s["target"]), 9)
        if (s["row"], s["col"]) != (tr, tc):
            assert tuple(page.evaluate(f"{viewer}.pixel({tc + 0.5}, {tr + 0.5})")[:3]) == TARGET_RGB
        if 0 <= s["row"] < 9 and 0 <= s["col"] < 9:
            assert tuple(page.evaluate(f"{viewer}.pixel({s['col'] + 0.5}, {s['row'] + 0.5})")[:3]) == AGENT_RGB
        action = page.text_content('#agents tr[data-agent="0"] .action')
        assert action == (f"move={ep.actions[t, 0, 0]}" if t < ep.length else "episode over")
    page.eval_on_selector("#scrub", "el => { el.value = '2'; el.dispatchEvent(new Event('input')); }")
    assert page.evaluate(f"{viewer}.index") == 2 and page.text_content("#tick-value") == str(ep.ticks[2])
    box = page.locator("#phases").bounding_box()
    page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)  # the timeline's right end
    assert page.evaluate(f"{viewer}.index") == ep.length
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(f"{viewer}.index") == 1
    page.select_option("#speed", "8")
    page.evaluate(f"{viewer}.play()")
    page.wait_for_function(f"{viewer}.index >= 3", timeout=5000)
    page.evaluate(f"{viewer}.pause()")
    assert not page.evaluate(f"{viewer}.playing")
    assert errors == []


def test_envs_without_draw_show_text_or_state_and_every_agent(browser, tmp_path):
    pair = Recording(record(tmp_path / "p.parquet", "toy_pair_vs_idle", 1, num_envs=1, seed=1))
    ep = pair.episode(0)
    page, errors = open_page(browser, write_html(pair, 0, str(tmp_path / "p.html")))
    assert page.is_hidden("#frame") and page.is_hidden("#ansi") and page.is_visible("#no-picture")
    t = ep.length // 2
    page.evaluate(f"window.sparringViewer.seek({t})")
    assert page.text_content('[data-field="pos[1]"]') == str(ep.states[t]["pos"][1])
    assert page.text_content('#agents tr[data-agent="1"] .action') == "(chosen by the env)"
    assert errors == []
    text = Recording(record(tmp_path / "a.parquet", "toy_ansi_walk", 1, num_envs=1, seed=3))
    page, errors = open_page(browser, write_html(text, 0, str(tmp_path / "a.html")))
    assert page.is_hidden("#frame") and page.is_visible("#ansi")
    page.evaluate("window.sparringViewer.seek(1)")
    assert page.text_content("#ansi") == text.env_cls.render_ansi(text.episode(0).states[1], text.config)
    assert errors == []
    walk = Recording(record(tmp_path / "w.parquet", "toy_text_walk", 1, num_envs=1, seed=3))
    page, errors = open_page(browser, write_html(walk, 0, str(tmp_path / "w.html")))
    assert page.is_visible("#frame")  # it draws: rect, line, circle, bar and text shapes
    page.evaluate("window.sparringViewer.seek(1)")
    assert page.text_content("#phase-name") == walk.env_cls.phases[walk.episode(0).phases[1]]
    assert errors == []
