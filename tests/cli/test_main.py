"""The `sparring` entry points: `python -m sparring`, every subcommand registered, bad input on stderr."""

import subprocess
import sys

from sparring.cli import build_parser, main

COMMANDS = {
    "list",
    "new",
    "check",
    "bench",
    "warm",
    "serve",
    "build-lm",
    "distill",
    "grpo",
    "train",
    "sweep",
    "ablate",
    "explore",
    "eval",
    "watch",
    "record",
    "replay",
    "fork",
    "play",
    "judge",
    "openenv",
}


def test_python_dash_m_sparring_runs_the_command():
    out = subprocess.run([sys.executable, "-m", "sparring", "--help"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("usage: sparring") and "{" in out.stdout
    out = subprocess.run([sys.executable, "-m", "sparring", "list"], capture_output=True, text=True, check=True)
    assert "squared" in out.stdout


def test_every_command_is_registered_with_a_function():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == COMMANDS
    assert all(callable(p.get_default("fn")) for p in sub.choices.values())


def test_a_stray_argument_names_what_overrides_look_like(capsys):
    assert main(["check", "squared", "--bogus"]) == 2
    assert "unexpected argument '--bogus'; overrides look like --env.KEY VALUE" in capsys.readouterr().err
