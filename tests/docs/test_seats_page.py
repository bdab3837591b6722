"""The seats page (docs/seats.md), run as a user would: every `sparring` command in its bash blocks, in order.

The commands are read from the page, so page and test cannot drift apart; tests/docs/commands.py runs them
(``sparring new`` into a temp folder, the page's env files over the template's, the package pip-installed
offline, ``RUN`` the run folder ``sparring train`` printed, exit codes as the page's comments say), the same
way ``python -m tests.docs.regen seats.md`` does when it writes the page's output blocks.
"""

from __future__ import annotations

import re

import pytest

from sparring.record import Recording
from tests.docs.blocks import marked_blocks
from tests.docs.commands import ROOT, list_comment, matches_elided, seats_page_run
from tests.docs.outputs import SEATS_TABLE, differences, evaluated_win, seats

PAGE = ROOT / "docs" / "seats.md"


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Every command of the page run in a temp folder: {command line as on the page: (exit code, output)}; ``tag``
    stays registered for the module's tests."""
    tmp = tmp_path_factory.mktemp("seats")
    with seats_page_run(PAGE, tmp) as results:
        yield results, tmp


def seat_rows(out: str) -> dict[str, dict]:
    """The per-seat table of an eval report: {seat: {"win"|"loss"|"draw": (rate, lo, hi), "player": ...}}."""
    num = r"(\d\.\d+) \[(\d\.\d+),(\d\.\d+)\]"
    rows = re.findall(rf"^  (chaser|runner) +{num} {num} {num}  (\S+)$", out, re.M)
    return {
        r[0]: {
            "win": tuple(map(float, r[1:4])),
            "loss": tuple(map(float, r[4:7])),
            "draw": tuple(map(float, r[7:10])),
            "player": r[10],
        }
        for r in rows
    }


def test_the_page_runs_every_kind_of_command(ran):
    results, _ = ran
    kinds = {line.split()[1] for line in results}
    assert {"new", "list", "check", "train", "eval", "record", "replay"} <= kinds


def test_list_and_check_show_the_seats(ran):
    results, _ = ran
    listed = next(line for line in results["sparring list"][1].splitlines() if line.startswith("tag: "))
    assert listed.startswith("tag: agents=2 seats=['chaser(env)', 'runner(outside)']")
    assert matches_elided(list_comment(PAGE.read_text()), listed), listed
    check = results["sparring check tag"][1]
    assert "OK: 0 failed, 0 warning(s)" in check and "PASS reward audit (runner)" in check


def test_eval_reports_each_seat_with_its_player_and_intervals(ran):
    results, _ = ran
    out = results["sparring eval tag --checkpoint RUN"][1]
    assert re.search(r"^tag: 1000 episodes, seat runner$", out, re.M)
    seats = seat_rows(out)
    assert set(seats) == {"chaser", "runner"}
    assert seats["chaser"]["player"] == "env:bfs" and seats["runner"]["player"].startswith("checkpoint:")
    assert seats["runner"]["win"] == seats["chaser"]["loss"] and seats["runner"]["draw"][0] == 0.0  # zero-sum
    rate, lo, hi = seats["runner"]["win"]
    assert lo <= rate <= hi and hi > lo and rate > 0.5  # the trained runner escapes the bfs chaser mostly
    outside = seat_rows(
        results["sparring eval tag --checkpoint RUN --env.opponent learner --seat chaser=scripted:bfs"][1]
    )
    assert outside["chaser"]["player"] == "scripted:bfs"
    assert (
        seat_rows(results["sparring eval tag --checkpoint RUN --seat chaser=random"][1])["chaser"]["player"]
        == "env:random"
    )


def test_the_pages_figures_are_what_the_commands_print(ran):
    """Scripted and random players exactly; a trained runner's interval overlapping the one this run measured.

    Another machine's arithmetic trains another runner (and this run's is another sample of 1000 episodes),
    so the page's rate and this run's are two estimates: they agree when their 95% intervals overlap.
    """
    results, _ = ran
    page = PAGE.read_text()
    rows = re.findall(r"^\| (.+?) \| (.+?) \| (\d\.\d+) \[(\d\.\d+), (\d\.\d+)\] \|$", page, re.M)
    assert [(r[0], r[1]) for r in rows] == list(SEATS_TABLE)
    for runner, chaser, *figures in rows:
        shown = tuple(map(float, figures))
        real = evaluated_win(results[SEATS_TABLE[runner, chaser]][1])
        if runner.startswith("`"):
            assert shown == real, (runner, chaser)
        else:
            assert shown[1] <= real[2] and real[1] <= shown[2], (runner, chaser, shown, real)
    # the env's bfs chaser and the same script played from outside meet the same game
    inside, outside = (
        evaluated_win(results[SEATS_TABLE["the checkpoint", c]][1])
        for c in ("`env:bfs`", "`scripted:bfs`, played from outside")
    )
    assert inside[1] <= outside[2] and outside[1] <= inside[2]
    # the table's checkpoint row is the eval block's (one run wrote both)
    block = next(b.body for b in marked_blocks(page) if b.name == "eval-tag")
    row = next(r for r in rows if r[:2] == ("the checkpoint", "`env:bfs`"))
    assert tuple(map(float, row[2:])) == evaluated_win(block)


def test_the_output_blocks_are_what_the_commands_print(ran):
    """Checker, list and errors exactly; training, evaluation, recording and replay by their shape."""
    results, tmp = ran
    assert differences("seats.md", seats(tmp, results)) == []


def test_bad_seats_are_errors(ran):
    results, _ = ran
    errors = {line: out.strip() for line, (code, out) in results.items() if code != 0}
    assert len(errors) == 2
    assert (
        "conflicts with --env.opponent 'bfs'"
        in errors["sparring eval tag --checkpoint RUN --opponent random --env.opponent bfs"]
    )


def test_the_prose_cites_the_train_block():
    text = PAGE.read_text()
    train = next(b.body for b in marked_blocks(text) if b.name == "train-tag")
    wins, episodes = re.search(r"^tag: (\d+) episodes.*\n +win +(\d+) ", train, re.M).group(2, 1)
    assert f"the trained runner escapes in {wins} of {episodes} episodes" in " ".join(text.split())


def test_the_recording_names_each_seats_player_and_the_replay_shows_only_the_runners_moves(ran):
    results, tmp = ran
    meta = Recording(str(tmp / "tag.parquet")).meta.policy
    assert re.fullmatch(r"chaser=env:bfs; runner=checkpoint:\S+@step\d+", meta), meta
    assert meta in results["sparring record tag --checkpoint RUN --episodes 20 --out tag.parquet"][1]
    replay = results["sparring replay tag.parquet --print"][1]
    assert "runner: move=" in replay and "chaser: move=" not in replay
    assert "chaser (played by the env, its move is not recorded)" in replay
    assert "runner: episode over  return +1.000" in replay or "runner: episode over  return -1.000" in replay
    assert "<html" in (tmp / "tag.html").read_text()[:500].lower()
