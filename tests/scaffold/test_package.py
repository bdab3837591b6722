"""End to end: `sparring new` outside a checkout makes a pip package whose entry point registers the env.

The package is really built and installed by pip, into a temp folder (``--target``)
rather than the venv, and a fresh interpreter with that folder on ``PYTHONPATH``
finds it the way it finds any installed distribution. There the template env shows
up in `sparring list`, passes `sparring check`, trains, records and replays.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from sparring.cli import main

# one interpreter for every command: imports and Numba compiles are paid once
DRIVER = textwrap.dedent("""
    import contextlib, io, json, pathlib, sys
    from sparring.cli import main

    results, runs = [], pathlib.Path(sys.argv[2])
    for argv in json.loads(sys.argv[1]):
        if "{run}" in argv:  # the run folder that `train` made
            argv[argv.index("{run}")] = str(next(runs.iterdir()))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(argv)
        results.append({"argv": argv, "code": code, "out": out.getvalue()})
    print(json.dumps(results))
""")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The scaffolded two-agent `coins_two` package, pip-installed into a temp folder; yields (tmp, site)."""
    tmp = tmp_path_factory.mktemp("scaffold")
    assert main(["new", "coins_two", "--agents", "2", "--dir", str(tmp)]) == 0
    site = tmp / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(tmp / "coins_two")], check=True, capture_output=True)
    return tmp, site


def run_commands(site, runs, commands: list[list[str]]) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(commands), str(runs)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_scaffolded_package_is_listed_checked_trained_recorded_and_replayed(installed):
    tmp, site = installed
    run, rec, html = tmp / "runs", tmp / "coins.parquet", tmp / "coins.html"
    listed, checked, trained, recorded, replayed, printed = run_commands(site, run, [
        ["list", "--json"],
        ["check", "coins_two", "--steps", "200"],
        ["train", "coins_two", "--steps", "3000", "--runs", str(run), "--train.num_envs", "32",
         "--train.horizon", "32", "--train.eval_episodes", "0", "--train.tensorboard", "false"],
        ["record", "coins_two", "--checkpoint", "{run}", "--episodes", "2", "--out", str(rec)],
        ["replay", str(rec), "--episode", "1", "--html", str(html)],
        ["replay", str(rec), "--episode", "0", "--print"],
    ])
    info = {e["name"]: e for e in json.loads(listed["out"])}["coins_two"]
    assert info["source"] == "sparring-coins_two" and info["agents"] == 2
    assert info["heads"] == {"move": 5} and info["phases"] == ["hunting", "last_coin"]
    assert info["scripted"] == ["greedy"] and info["obs_size"] == 2 + 3 * 3 + 2 + 1
    assert checked["code"] == 0 and "OK: 0 failed, 0 warning(s)" in checked["out"], checked["out"]
    assert trained["code"] == 0 and recorded["code"] == 0 and replayed["code"] == 0
    assert "recorded 2 episodes of coins_two" in recorded["out"]
    assert "<html" in html.read_text()[:500].lower() and html.stat().st_size > 1000
    ticks = printed["out"].strip().split("\n\n")
    assert len(ticks) >= 2 and all("tick" in t for t in ticks)


def test_scaffolded_package_ships_a_test_that_runs_the_checker(installed):
    tmp, _ = installed
    text = (tmp / "coins_two" / "tests" / "test_env.py").read_text()
    assert 'check("coins_two")' in text and "report.ok" in text
