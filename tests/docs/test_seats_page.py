"""The seats page (docs/seats.md), run as a user would: every `sparring` command in its bash blocks, in order.

The commands are read from the page, so page and test cannot drift apart. ``sparring new``
writes the template package into a temp folder; at the page's ``pip install -e ./tag`` the
test copies the page's env files (``docs/seats/tag/``) over the template's and pip-installs the
package offline into a temp folder (``--target``) on ``sys.path``, so its ``sparring.envs``
entry point registers ``tag`` as in tests/scaffold/test_package.py. ``RUN`` on the page is
the run folder ``sparring train`` printed. A command whose comment says ``exit code N``
must exit with N; every other one with 0.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sparring.cli import main
from sparring.kit import registry
from sparring.record import Recording

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "seats.md"
ENV_FILES = ("world.py", "scripted.py", "env.py", "defaults.toml")
PIP_LINE = "pip install -e ./tag"


def page_commands(text: str) -> list[tuple[str, int]]:
    """(command line, expected exit code) for every line of the page's bash blocks, comments removed."""
    out = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.M | re.S):
        for line in block.splitlines():
            command, _, comment = line.partition("  #")
            if command.strip():
                code = re.search(r"exit code (\d+)", comment)
                out.append((command.strip(), int(code.group(1)) if code else 0))
    return out


def install(tmp: Path) -> Path:
    """The page's env files over the template's, the package pip-installed offline into ``tmp/site``."""
    src = tmp / "tag" / "src" / "tag"
    (src / "env.py").unlink()
    for name in ENV_FILES:
        shutil.copy(ROOT / "docs" / "seats" / "tag" / name, src / name)
    site = tmp / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(site),
            str(tmp / "tag"),
        ],
        check=True,
        capture_output=True,
    )
    return site


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Every command of the page run in a temp folder: {command line as on the page: (exit code, stdout, stderr)}."""
    tmp = tmp_path_factory.mktemp("seats")
    results, run_dir = {}, None
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp)
        mp.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
        for line, expected in page_commands(PAGE.read_text()):
            if line == PIP_LINE:
                mp.syspath_prepend(str(install(tmp)))
                continue
            assert line.startswith("sparring "), f"the page has a command the test does not run: {line!r}"
            argv = shlex.split(line)[1:]
            if "RUN" in argv:
                assert run_dir, f"{line!r} needs the run folder of a `sparring train` above it"
                argv = [run_dir if a == "RUN" else a for a in argv]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
            assert code == expected, f"{line!r} exited {code}, expected {expected}\n{out.getvalue()}{err.getvalue()}"
            results[line] = (code, out.getvalue(), err.getvalue())
            if argv[0] == "train":
                run_dir = re.search(r"^run folder: (\S+)$", out.getvalue(), re.M).group(1)
        yield results, tmp
    for name in [m for m in sys.modules if m == "tag" or m.startswith("tag.")]:
        del sys.modules[name]


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


def evaluated_win(out: str) -> tuple[float, float, float]:
    """The evaluated seat's win rate and its 95% interval, from the report's first lines."""
    m = re.search(r"^  win +\d+ +(\d\.\d+) +95% CI \[(\d\.\d+), (\d\.\d+)\]$", out, re.M)
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


def test_the_page_runs_every_kind_of_command(ran):
    results, _ = ran
    kinds = {line.split()[1] for line in results}
    assert {"new", "list", "check", "train", "eval", "record", "replay"} <= kinds


def test_list_and_check_show_the_seats(ran):
    results, _ = ran
    assert "tag: agents=2 seats=['chaser(env)', 'runner(outside)']" in results["sparring list"][1]
    check = results["sparring check tag"][1]
    assert "OK: 0 failed, 0 warning(s)" in check and "PASS reward audit (runner)" in check


def test_eval_reports_each_seat_with_its_player_and_intervals(ran):
    results, _ = ran
    out = results["sparring eval tag --checkpoint RUN"][1]
    assert out.startswith("tag: 1000 episodes, seat runner")
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
    """Scripted and random players exactly; a trained runner's rate inside the interval this run measured."""
    results, _ = ran
    page = PAGE.read_text()
    rows = re.findall(r"^\| (.+?) \| (.+?) \| (\d\.\d+) \[(\d\.\d+), (\d\.\d+)\] \|$", page, re.M)
    command = {
        ("`random`", "`env:bfs`"): "sparring eval tag --policy random",
        ("`scripted:bfs`", "`env:bfs`"): "sparring eval tag --policy scripted:bfs",
        ("the checkpoint", "`env:bfs`"): "sparring eval tag --checkpoint RUN",
        ("the checkpoint", "`env:random`"): "sparring eval tag --checkpoint RUN --seat chaser=random",
        (
            "the checkpoint",
            "`scripted:bfs`, played from outside",
        ): "sparring eval tag --checkpoint RUN --env.opponent learner --seat chaser=scripted:bfs",
    }
    assert [(r[0], r[1]) for r in rows] == list(command)
    for runner, chaser, *figures in rows:
        shown = tuple(map(float, figures))
        real = evaluated_win(results[command[runner, chaser]][1])
        if runner.startswith("`"):
            assert shown == real, (runner, chaser)
        else:
            assert real[1] <= shown[0] <= real[2], (runner, chaser, shown, real)
    # the env's bfs chaser and the same script played from outside meet the same game
    inside, outside = (
        evaluated_win(results[command["the checkpoint", c]][1])
        for c in ("`env:bfs`", "`scripted:bfs`, played from outside")
    )
    assert inside[1] <= outside[2] and outside[1] <= inside[2]


def test_bad_seats_are_errors_that_the_page_quotes(ran):
    results, _ = ran
    page = PAGE.read_text()
    errors = {line: err.strip() for line, (code, _, err) in results.items() if code != 0}
    assert len(errors) == 2
    for line, err in errors.items():
        assert err in page, f"{line!r} now says {err!r}"
    assert (
        "conflicts with --env.opponent 'bfs'"
        in errors["sparring eval tag --checkpoint RUN --opponent random --env.opponent bfs"]
    )


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
