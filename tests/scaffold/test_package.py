"""End to end: `sparring new` outside a checkout makes a pip package whose entry point registers the env.

The package is really built and installed by pip, into a temp folder (``--target``)
rather than the venv; with that folder on ``sys.path`` the installed distribution's
``sparring.envs`` entry point is found the way any installed package's is. There the
template env shows up in `sparring list`, passes `sparring check`, trains, records and
replays.
"""

import json
import subprocess
import sys

import pytest

from sparring.cli import main
from sparring.kit import registry


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The scaffolded two-agent `coins_two` package, pip-installed into a temp folder; (tmp, site)."""
    tmp = tmp_path_factory.mktemp("scaffold")
    assert main(["new", "coins_two", "--agents", "2", "--dir", str(tmp)]) == 0
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
            str(tmp / "coins_two"),
        ],
        check=True,
        capture_output=True,
    )
    return tmp, site


@pytest.fixture
def installed(package, monkeypatch):
    """The package on sys.path for one test; the registry forgets it afterwards."""
    monkeypatch.syspath_prepend(str(package[1]))
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    return package[0]


def run(capsys, *argv: str) -> str:
    """Run one `sparring` command; its stdout (asserting exit code 0)."""
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def test_scaffolded_package_is_listed_checked_trained_recorded_and_replayed(installed, capsys):
    tmp = installed
    runs, rec, html = tmp / "runs", tmp / "coins.parquet", tmp / "coins.html"
    info = {e["name"]: e for e in json.loads(run(capsys, "list", "--json"))}["coins_two"]
    assert info["source"] == "sparring-coins_two" and info["agents"] == 2
    assert info["seats"] == {"player0": "outside", "player1": "outside"}
    assert info["heads"] == {"move": 5} and info["phases"] == ["hunting", "last_coin"]
    assert info["scripted"] == ["greedy"] and info["obs_size"] == 2 + 3 * 3 + 2 + 1
    assert "OK: 0 failed, 0 warning(s)" in run(capsys, "check", "coins_two", "--steps", "200")
    run(
        capsys,
        "train",
        "coins_two",
        "--steps",
        "3000",
        "--runs",
        str(runs),
        "--train.num_envs",
        "32",
        "--train.horizon",
        "32",
        "--train.eval_episodes",
        "0",
        "--train.tensorboard",
        "false",
    )
    (run_dir,) = runs.iterdir()
    assert "recorded 2 episodes of coins_two" in run(
        capsys, "record", "coins_two", "--checkpoint", str(run_dir), "--episodes", "2", "--out", str(rec)
    )
    run(capsys, "replay", str(rec), "--episode", "1", "--html", str(html))
    assert "<html" in html.read_text()[:500].lower() and html.stat().st_size > 1000
    ticks = run(capsys, "replay", str(rec), "--episode", "0", "--print").strip().split("\n\n")
    assert len(ticks) >= 2 and all("tick" in t for t in ticks)


def test_without_the_package_on_the_path_the_env_is_unknown(package):
    assert "coins_two" not in registry.names()


def test_scaffolded_package_ships_a_test_that_runs_the_checker(package):
    text = (package[0] / "coins_two" / "tests" / "test_env.py").read_text()
    assert 'check("coins_two")' in text and "report.ok" in text
