"""The one progress display: plain periodic lines off a terminal (on a fake clock), a rich live display on one."""

import io
import time

import pytest

from sparring.kit.progress import Progress, format_figures, silent


class Clock:
    """A fake monotonic clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def lines_of(out: io.StringIO) -> list[str]:
    return out.getvalue().splitlines()


def test_off_a_terminal_a_line_every_few_seconds_with_counts_rate_eta_and_figures():
    clock, out = Clock(), io.StringIO()
    with Progress("eval duel", stream=out, clock=clock, every_s=5, quiet_s=10) as progress:
        assert progress.mode == "lines"
        progress.status("building the envs")  # within the quiet start: not written
        progress.start(100, unit="episode")
        for done in range(1, 101):
            clock.now += 0.5  # two episodes a second
            progress.update(done, {"win": done / 200, "return": -0.25})
            if done == 30:
                progress.status("playing")
    lines = lines_of(out)
    assert lines[0] == "eval duel: building the envs (0:10 elapsed)"  # the status when the quiet start ends
    assert lines[1] == "eval duel: 20% 20/100 episodes, 2 episodes/s, 0:10 elapsed, ETA 0:40 | win=0.1 return=-0.25"
    assert lines[2] == "eval duel: 30% 30/100 episodes, 2 episodes/s, 0:15 elapsed, ETA 0:35 | win=0.15 return=-0.25"
    assert lines[3] == "eval duel: playing (0:15 elapsed)"  # a new status at once
    assert lines[4].startswith("eval duel: 40% 40/100 episodes")
    assert len(lines) == 2 + 9 + 1  # two statuses, a progress line per 5 s from 10 s to 50 s, the last line
    assert lines[-1] == "eval duel: done, 100% 100/100 episodes, 2 episodes/s, 0:50 elapsed | win=0.5 return=-0.25"


def test_a_short_command_writes_only_its_last_line_and_a_failing_one_nothing():
    clock, out = Clock(), io.StringIO()
    with Progress("record squared", stream=out, clock=clock) as progress:
        progress.status("recording")
        progress.start(10, unit="episode")
        clock.now += 4
        progress.update(10)
    progress.close()  # closed once: no second last line
    assert lines_of(out) == ["record squared: done, 100% 10/10 episodes, 2.5 episodes/s, 0:04 elapsed"]
    out = io.StringIO()
    with pytest.raises(ValueError):
        with Progress("train squared", stream=out, clock=clock) as progress:
            progress.status("building the envs")
            progress.start(1000)
            raise ValueError("--env.size 100000: too big")  # the command's one-line error is all it prints
    assert out.getvalue() == ""


def test_no_progress_line_before_the_interval_and_while_nothing_changes_one_a_minute():
    clock, out = Clock(), io.StringIO()
    progress = Progress("record squared", stream=out, clock=clock, every_s=5, quiet_s=0)
    progress.start(10, unit="episode")
    progress.status("recording")
    progress.status("recording")
    clock.now += 4.9
    progress.update(3)
    assert lines_of(out) == ["record squared: recording (0:00 elapsed)"]
    clock.now += 0.1
    progress.update(4)
    assert lines_of(out)[-1].startswith("record squared: 40% 4/10 episodes, 1.2 s/episode, 0:05 elapsed")
    clock.now += 30
    progress._tick(clock.now)  # what the background thread does every second
    assert len(lines_of(out)) == 2  # nothing changed
    clock.now += 30
    progress._tick(clock.now)
    assert len(lines_of(out)) == 3 and lines_of(out)[-1].startswith("record squared: 40% 4/10 episodes")


def test_a_long_setup_says_what_it_does_before_any_count():
    clock, out = Clock(), io.StringIO()
    progress = Progress("grpo town", stream=out, clock=clock, quiet_s=10)
    progress.status("loading torch and transformers")
    clock.now += 12
    progress._tick(clock.now)  # written by the background thread while the loading blocks
    progress.status("loading the model m")
    clock.now += 70
    progress._tick(clock.now)
    assert lines_of(out) == [
        "grpo town: loading torch and transformers (0:12 elapsed)",
        "grpo town: loading the model m (0:12 elapsed)",
        "grpo town: loading the model m (1:22 elapsed)",  # still at it, a minute later
    ]


def test_with_the_real_clock_a_thread_writes_the_lines_due_while_the_work_is_busy():
    out = io.StringIO()
    with Progress("grpo town", stream=out, quiet_s=0) as progress:
        progress.status("playing")
        assert progress._ticker is not None and progress._ticker.is_alive()
    assert progress._ticker is None and lines_of(out) == ["grpo town: playing (0:00 elapsed)"]


def test_the_rate_and_eta_follow_the_recent_window_and_a_fraction_given_by_the_caller():
    clock, out = Clock(), io.StringIO()
    progress = Progress("train squared", stream=out, clock=clock, every_s=1e9)
    progress.start(None, unit="step", done=1000)  # a resumed run: its earlier steps are not in the rate
    for k in range(1, 61):  # slow for 60 s (100 steps/s) ...
        clock.now += 1
        progress.update(1000 + 100 * k, fraction=0.001 * k)
    assert progress.rate == pytest.approx(100)
    for k in range(1, 61):  # ... then ten times faster: the 30 s window forgets the slow part
        clock.now += 1
        progress.update(7000 + 1000 * k, fraction=0.06 + 0.01 * k)
    assert progress.rate == pytest.approx(1000, rel=0.05)
    assert progress.fraction == pytest.approx(0.66)
    assert progress.eta == pytest.approx(34, abs=2)  # 0.34 of the budget left at 0.01 a second
    assert "66% 67,000 steps, 1,0" in progress.counts(clock.now)  # no total: the steps alone, the fraction given


def test_slow_work_shows_seconds_per_unit_and_unknown_eta_until_there_is_a_rate():
    clock, out = Clock(), io.StringIO()
    progress = Progress("sweep squared", stream=out, clock=clock, every_s=0, quiet_s=0)
    progress.start(20, unit="trial")
    assert "0/20 trials" in progress.counts(clock.now) and "ETA ?" in progress.counts(clock.now)
    clock.now += 125
    progress.update(1, {"best_win_rate": 0.5})
    assert "1/20 trials, 2:05/trial" in lines_of(out)[-1]
    clock.now += 5
    progress.update(1.5)
    assert "1.5/20 trials, 1:26/trial" in lines_of(out)[-1]


def test_a_failed_run_after_lines_ends_with_a_last_line_without_done_and_an_unstarted_one_without_a_line():
    clock, out = Clock(), io.StringIO()
    with pytest.raises(RuntimeError):
        with Progress("explore serpent", stream=out, clock=clock, quiet_s=0) as progress:
            progress.start(1000)
            clock.now += 6
            progress.update(100)
            raise RuntimeError("boom")
    assert lines_of(out) == ["explore serpent: 10% 100/1,000 steps, 16.67 steps/s, 0:06 elapsed, ETA 0:54"] * 2
    out = io.StringIO()
    with Progress("bench duel", stream=out, clock=Clock()):
        pass
    assert out.getvalue() == ""


def test_on_a_terminal_the_live_display_renders_bar_counts_figures_table_and_kept_lines():
    clock, out = Clock(), Terminal()
    with Progress("train duel", stream=out, clock=clock) as progress:
        assert progress.mode == "live"
        progress.status("training -> runs/duel-1")
        progress.start(4096, unit="step")
        clock.now += 2
        progress.update(2048, {"return": 0.25}, table={"loss/entropy": 1.5, "perf/update_s": 0.125})
        progress.print("a line kept above the display")
        progress._live.refresh()
    text = out.getvalue()
    for shown in ("train duel", "training -> runs/duel-1", "50% 2,048/4,096 steps", "1,024 steps/s", "ETA 0:02"):
        assert shown in text
    for shown in ("return=0.25", "loss", "entropy", "1.5", "perf", "update_s", "a line kept above the display"):
        assert shown in text
    assert "━" in text  # the bar
    assert "train duel  done" in text.replace("\x1b[0m", "").replace("\x1b[1;36m", "")  # the last frame says so


def test_a_display_opened_inside_a_live_one_writes_lines():
    outer_stream, inner_stream = Terminal(), Terminal()
    with Progress("sweep squared", stream=outer_stream, clock=Clock()) as outer:
        with Progress("eval squared", stream=inner_stream, clock=Clock()) as inner:
            assert outer.mode == "live" and inner.mode == "lines"
    with Progress("eval squared", stream=Terminal(), clock=Clock()) as again:
        assert again.mode == "live"  # the outer one closed


def test_silent_writes_nothing_and_a_bad_mode_is_named():
    progress = silent()
    progress.start(10)
    progress.status("x")
    progress.update(5, {"a": 1})
    progress.print("y")
    progress.close()
    assert progress.mode == "off" and progress.done == 5
    with pytest.raises(ValueError, match="progress mode must be one of live, lines, off, got 'tty'"):
        Progress("x", mode="tty")


def test_figures_are_formatted_for_reading():
    figures = {"win": 0.51234, "steps": 1234567, "sps": 23456.7, "loss": float("nan"), "best": "greedy"}
    assert format_figures(figures) == "win=0.5123 steps=1,234,567 sps=23,457 loss=nan best=greedy"


def test_watched_figures_make_a_line_every_few_seconds_while_the_count_stands():
    out, counter = io.StringIO(), {"n": 0}
    with Progress("play town", stream=out, every_s=1, quiet_s=0) as progress:
        progress.start(2, unit="episode")
        progress.watch(lambda: {"model turns": counter["n"]})
        deadline = time.monotonic() + 3.5
        while time.monotonic() < deadline:  # one long round of episodes: no update, the model's turns move
            counter["n"] += 1
            time.sleep(0.05)
    lines = lines_of(out)
    moving = [line for line in lines if "done," not in line and "model turns=" in line]
    assert len(moving) >= 2 and len({line.rpartition("=")[2] for line in moving}) == len(moving), lines
