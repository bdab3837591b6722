"""The failure chart: which bars and titles it shows (not its pixels)."""

from sparring.evaluate.chart import failure_figure, write_failure_chart

FAILURES = {
    "losses": 5,
    "window": 20,
    "by_phase": {"A/1": 0, "A/2": 3, "A/3": 0, "B/1": 2, "B/2": 0},
    "by_transition": {"A/1 -> A/2": {"losses": 3, "within": 1}, "start -> B/1": {"losses": 2, "within": 2}},
    "watermarks": {},
}


def _ticks(ax):
    return [t.get_text() for t in ax.get_xticklabels()]


def test_bars_only_for_phases_with_losses_and_titles_in_words():
    fig = failure_figure(FAILURES, "serpent reactive")
    left, right = fig.axes
    assert left.get_title() == "Losses by the phase they ended in" and _ticks(left) == ["A/2", "B/1"]
    assert [bar.get_height() for bar in left.patches] == [3, 2]
    assert left.get_xlabel() == "3 phases without a loss left out"
    assert right.get_title() == "Losses by the last phase change before them"
    assert _ticks(right) == ["A/1 -> A/2", "start -> B/1"]
    assert fig.texts[0].get_text() == "serpent reactive: 5 losses"


def test_no_losses_says_so(tmp_path):
    won = {**FAILURES, "losses": 0, "by_phase": dict.fromkeys(FAILURES["by_phase"], 0), "by_transition": {}}
    fig = failure_figure(won, "squared greedy")
    assert all([t.get_text() for t in ax.texts] == ["no losses"] for ax in fig.axes)
    out = write_failure_chart(won, "squared greedy", str(tmp_path / "sub" / "chart.png"))
    assert open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
