"""`sparring list`: every env's shape, a broken env reported without hiding the others, the summaries cached."""

import json
import os
import subprocess
import sys

from sparring.cli import main
from sparring.kit import registry
from sparring.scaffold.listing import CACHE_NAME, env_summary, format_summary, summaries


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


HEAVY = ("numba", "torch", "scipy", "gymnasium", "pettingzoo", "pyarrow")
LIST_IN_A_FRESH_PROCESS = f"""
import io, contextlib, json, sys
from sparring.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert main(["list", "--json"]) == 0
print(json.dumps({{"list": json.loads(out.getvalue()), "heavy": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""


def _list_in_a_fresh_process(cache_dir) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, "-c", LIST_IN_A_FRESH_PROCESS], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_warm_list_reads_the_cache_without_importing_numba_or_any_env(tmp_path):
    cold = _list_in_a_fresh_process(tmp_path)
    assert "numba" in cold["heavy"]  # the first listing imports every env
    assert (tmp_path / CACHE_NAME).is_file()
    warm = _list_in_a_fresh_process(tmp_path)
    assert warm["heavy"] == [] and warm["list"] == cold["list"]


TOYS = {"walk": "from tests.kit.toys import Walk as Toy\n", "pair": "from tests.kit.toys import Pair as Toy\n"}


def test_a_changed_env_source_is_summarised_anew_and_a_damaged_cache_rebuilt(tmp_path, monkeypatch):
    package = tmp_path / "src" / "toy_listed"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "env.py").write_text(TOYS["walk"])
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(registry._REGISTRY, "toy_listed", "toy_listed.env:Toy")
    assert summaries(["toy_listed"], {})[0]["agents"] == 1
    cache = json.loads((tmp_path / "cache" / CACHE_NAME).read_text())
    assert cache["toy_listed"]["info"]["agents"] == 1

    (package / "env.py").write_text(TOYS["pair"])  # another env class: a different size and stamp
    monkeypatch.delitem(sys.modules, "toy_listed.env")
    monkeypatch.setitem(registry._REGISTRY, "toy_listed", "toy_listed.env:Toy")  # get() stored the class
    assert summaries(["toy_listed"], {})[0]["agents"] == 2

    (tmp_path / "cache" / CACHE_NAME).write_text("{not json")
    monkeypatch.setitem(registry._REGISTRY, "toy_listed", "toy_listed.env:Toy")
    assert summaries(["toy_listed"], {})[0]["agents"] == 2
    assert json.loads((tmp_path / "cache" / CACHE_NAME).read_text())["toy_listed"]["info"]["agents"] == 2


def test_an_env_registered_as_a_class_is_never_cached(tmp_path, monkeypatch):
    from tests.kit.toys import Walk

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(registry._REGISTRY, "toy_walk_class", Walk)
    assert summaries(["toy_walk_class"], {})[0]["agents"] == 1
    assert not (tmp_path / CACHE_NAME).exists()
