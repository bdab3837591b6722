"""The viewer's event log in a real headless Chromium: town's trades, gifts and talk, as arrows between the
characters and as lines of the tick's and the episode's log (see tests/record/test_browser.py for the browser)."""

import pytest

from sparring.envs.town.render import EVENT_COLOURS, events
from sparring.record import Recording, write_html
from tests.record.conftest import record
from tests.record.test_browser import browser, open_page  # noqa: F401  (the module's browser fixture)


@pytest.fixture(scope="module")
def town(tmp_path_factory):
    """One day of town played by noisy planners (who trade, give and talk), and its page."""
    folder = tmp_path_factory.mktemp("town")
    rec = Recording(
        record(folder / "t.parquet", "town", 1, "scripted:planner:0.2", 1, seed=1, config={"background": 0, "days": 1})
    )
    return rec, write_html(rec, 0, str(folder / "t.html"))


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[k : k + 2], 16) for k in (1, 3, 5))


def _expected(rec):
    """Per recorded state, the events of the tick that led to it."""
    states = rec.episode(0).states
    return [[]] + [
        [[kind, words] for kind, _, _, words in events(states[i - 1], states[i])] for i in range(1, len(states))
    ]


def test_each_tick_lists_its_events_and_draws_an_arrow_per_event(browser, town):  # noqa: F811
    rec, html = town
    expected = _expected(rec)
    kinds = {e[0] for tick in expected for e in tick}
    assert kinds == {"trade", "gift", "talk"}  # the episode shows all three: the checks below are not vacuous
    page, errors = open_page(browser, html)
    viewer = "window.sparringViewer"
    drawn = alone = 0
    for i, tick in enumerate(expected):
        if not tick and i % 7:
            continue
        page.evaluate(f"{viewer}.seek({i})")
        assert page.evaluate(f"{viewer}.events()") == tick
        assert page.locator("#tick-events li").all_text_contents() == [words for _, words in tick]
        assert page.is_visible("#no-events") == (not tick)
        arrows = [s for s in page.evaluate(f"{viewer}.data.frames[{i}]") if s["type"] == "arrow"]
        assert [[s["kind"], s["log"]] for s in arrows] == tick
        long = [s for s in arrows if (s["x2"] - s["x1"]) ** 2 + (s["y2"] - s["y1"]) ** 2 > 0.25]
        if len(arrows) == 1 and long:  # no other arrow crosses it: its middle shows its colour
            (s,) = arrows
            mid = page.evaluate(f"{viewer}.pixel({(s['x1'] + s['x2']) / 2}, {(s['y1'] + s['y2']) / 2})")
            drawn += tuple(mid[:3]) == _rgb(EVENT_COLOURS[s["kind"]])
            alone += 1
    assert alone >= 3 and drawn == alone
    assert errors == []


def test_the_episode_log_lists_every_event_and_a_click_goes_to_its_tick(browser, town):  # noqa: F811
    rec, html = town
    expected = _expected(rec)
    page, errors = open_page(browser, html)
    every = [f"tick {int(rec.episode(0).ticks[i])}: {words}" for i, tick in enumerate(expected) for _, words in tick]
    assert page.locator("#event-log li").all_text_contents() == every
    assert page.text_content("#event-count") == str(len(every))
    last = page.locator("#event-log li").nth(len(every) - 1)
    target = int(last.get_attribute("data-index"))
    last.click()
    assert page.evaluate("window.sparringViewer.index") == target
    assert "current" in last.get_attribute("class")
    assert errors == []


def test_a_page_without_events_hides_the_log(browser, tmp_path):  # noqa: F811
    rec = Recording(record(tmp_path / "s.parquet", "squared", 1, num_envs=1, seed=4, config={"size": 9}))
    page, errors = open_page(browser, write_html(rec, 0, str(tmp_path / "s.html")))
    assert page.is_hidden("#events") and errors == []
