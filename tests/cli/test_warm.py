"""`sparring warm`: compiles an env into an empty cache, loads it from there the next time, rejects unknown envs."""

import json
import os
import subprocess
import sys

from sparring.cli import main


def _warm(cache: str, *argv: str) -> dict:
    """``sparring warm ARGV --json`` in a fresh process with Numba cache folder ``cache``."""
    out = subprocess.run(
        [sys.executable, "-m", "sparring", "warm", *argv, "--json"],
        env={**os.environ, "NUMBA_CACHE_DIR": cache},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_warm_compiles_once_then_loads_the_cache(tmp_path):
    first = _warm(str(tmp_path), "squared")
    assert first["cache"] == str(tmp_path)
    assert [(r["env"], r["compiled"]) for r in first["envs"]] == [("squared", True)]
    second = _warm(str(tmp_path), "squared")
    assert [(r["env"], r["compiled"]) for r in second["envs"]] == [("squared", False)]
    assert second["envs"][0]["seconds"] > 0


def test_warm_in_two_processes_fills_a_cache_the_next_start_loads(tmp_path):
    first = _warm(str(tmp_path), "squared", "serpent", "--jobs", "2")
    assert first["jobs"] == 2
    assert sorted((r["env"], r["compiled"]) for r in first["envs"]) == [("serpent", True), ("squared", True)]
    second = _warm(str(tmp_path), "squared", "serpent", "--jobs", "1")
    assert sorted((r["env"], r["compiled"]) for r in second["envs"]) == [("serpent", False), ("squared", False)]


def test_warm_one_env_with_its_step_in_a_second_process(tmp_path):
    first = _warm(str(tmp_path), "squared", "--jobs", "2")
    assert [(r["env"], r["compiled"]) for r in first["envs"]] == [("squared", True)]
    second = _warm(str(tmp_path), "squared", "--jobs", "2")
    assert [(r["env"], r["compiled"]) for r in second["envs"]] == [("squared", False)]


def test_warm_rejects_jobs_below_one(capsys):
    assert main(["warm", "squared", "--jobs", "0"]) == 2
    assert "argument --jobs: must be an integer in [1, 1024], got '0'" in capsys.readouterr().err


def test_warm_prints_a_line_per_env(capsys):
    assert main(["warm", "squared"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] == "squared" and lines[0].split()[1] in ("compiled", "cached")
    assert lines[-1].startswith("warmed 1 env(s) in ")


def test_warm_rejects_an_unknown_env_before_compiling(capsys):
    assert main(["warm", "squared", "nope"]) == 2
    captured = capsys.readouterr()
    assert "unknown env 'nope'; known envs:" in captured.err
    assert captured.out == ""
