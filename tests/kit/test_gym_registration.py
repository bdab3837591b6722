"""Sparring's envs become Gymnasium ids whether Gymnasium is imported before or after sparring, without
``import sparring`` importing Gymnasium; envs registered later follow; a name Gymnasium refuses only warns.

Each case runs in a fresh interpreter: in this one Gymnasium is imported already."""

import ast
import os
import subprocess
import sys

import gymnasium

from sparring.kit.gym_registration import gym_id, register_with_gymnasium


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=os.environ)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_gymnasium_imported_after_sparring_gets_every_env_and_sparring_did_not_import_it():
    out = _python(
        "import sys, sparring\n"
        "print('gymnasium' in sys.modules)\n"
        "sparring.register('mine', 'sparring.envs.squared.env:Squared')\n"
        "import gymnasium\n"
        "print(sorted(k for k in gymnasium.registry if k.startswith('sparring/')))\n"
        "print(gymnasium.make('sparring/mine-v0', size=4).observation_space.shape)\n"
        "print(sparring.names())\n"
    )
    before, ids, shape, names = out.splitlines()
    assert before == "False" and "mine" in ast.literal_eval(names)
    # that interpreter's envs (this one's registry also holds the toy envs other tests registered)
    assert ast.literal_eval(ids) == sorted(gym_id(name) for name in ast.literal_eval(names))
    assert shape == "(16,)"


def test_gymnasium_imported_before_sparring_and_a_later_env_with_register_with_gymnasium():
    out = _python(
        "import warnings\n"
        "import gymnasium, sparring\n"
        "from sparring.kit.gym_registration import register_with_gymnasium\n"
        "print('sparring/duel-v0' in gymnasium.registry)\n"
        "sparring.register('later', 'sparring.envs.squared.env:Squared')\n"
        "sparring.register('bad name!', 'sparring.envs.squared.env:Squared')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    print(register_with_gymnasium())\n"
        "print([str(w.message) for w in caught])\n"
    )
    known, added, warned = out.splitlines()
    assert known == "True" and ast.literal_eval(added) == ["sparring/later-v0"]
    assert "'bad name!' is not registered with Gymnasium" in warned


def test_registering_again_adds_nothing():
    assert gym_id("squared") in gymnasium.registry
    register_with_gymnasium()  # envs other tests registered in this process after Gymnasium's import
    assert register_with_gymnasium() == []
