"""`sparring list`: every env's shape, and a broken env reported without hiding the others."""

import json

from sparring.cli import main
from sparring.kit import registry
from sparring.scaffold.listing import env_summary, format_summary


def test_list_json_describes_squared(capsys):
    assert main(["list", "--json"]) == 0
    squared = {e["name"]: e for e in json.loads(capsys.readouterr().out)}["squared"]
    assert squared == {
        "name": "squared",
        "agents": 1,
        "seats": {"player": "outside"},
        "obs_size": 121,
        "obs_dtype": "uint8",
        "heads": {"move": 5},
        "phases": ["play"],
        "metrics": ["success"],
        "scripted": ["greedy"],
        "best_scripted": "greedy",
        "source": "sparring.envs.squared.env",
    }
    duel = env_summary("duel")
    assert duel["seats"] == {"player": "outside", "opponent": "env"}  # the env plays its robot itself by default
    assert "seats=['player(outside)', 'opponent(env)']" in format_summary(duel)


def test_an_env_that_cannot_load_is_listed_with_its_error(capsys, monkeypatch):
    # registered for this test only: other tests list the registry too
    monkeypatch.setitem(registry._REGISTRY, "toy_missing_module", "sparring_no_such_module.env:Nope")
    info = env_summary("toy_missing_module")
    assert "ModuleNotFoundError" in info["error"] and "cannot load" in format_summary(info)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "toy_missing_module: cannot load" in out and "squared: agents=1" in out


def test_long_phase_lists_are_cut_in_text_but_whole_in_json():
    info = {
        "name": "e",
        "agents": 1,
        "seats": {"player": "outside"},
        "obs_size": 3,
        "obs_dtype": "float32",
        "heads": {"move": 3},
        "phases": [f"p{i}" for i in range(12)],
        "metrics": ["m"],
        "scripted": [],
        "best_scripted": None,
        "source": "x",
    }
    line = format_summary(info)
    assert "phases=['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', ... 12 in all]" in line and "p8" not in line
    assert "metrics=['m']" in line and "best=" not in line
