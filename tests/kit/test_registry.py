"""The registry: built-ins, runtime registration, helpful unknown-name errors."""

import pytest

import sparring
from sparring.kit import registry
from tests.kit import toys


def test_builtin_squared_is_registered():
    assert "squared" in sparring.names()
    assert registry.get("squared").name == "squared"


def test_unknown_env_lists_known_ones():
    with pytest.raises(LookupError, match=r"unknown env 'nope'; known envs: .*squared"):
        sparring.make("nope")


def test_register_a_class_and_make_it():
    sparring.register("toy_walk", toys.Walk)
    env = sparring.make("toy_walk", num_envs=3, seed=1)
    assert env.rows == 3 and env.obs.shape == (3, 2)


def test_register_rejects_empty_names():
    with pytest.raises(ValueError, match="non-empty"):
        sparring.register("", toys.Walk)


def test_register_refuses_a_taken_name_unless_asked_to_replace():
    sparring.register("toy_taken", toys.Walk)
    sparring.register("toy_taken", toys.Walk)  # the same env again (a module imported twice): fine
    sparring.register("toy_taken", f"{toys.Walk.__module__}:Walk")  # its "module:Class" name is the same env
    with pytest.raises(ValueError, match=r"env name 'toy_taken' is taken by tests\.kit\.toys:Walk; .*replace=True"):
        sparring.register("toy_taken", toys.Pair)
    assert registry.get("toy_taken") is toys.Walk
    sparring.register("toy_taken", toys.Pair, replace=True)
    assert registry.get("toy_taken") is toys.Pair


def test_register_refuses_a_builtin_name():
    with pytest.raises(ValueError, match="'squared' is taken by sparring.envs.squared.env:Squared"):
        sparring.register("squared", toys.Walk)
    assert registry.get("squared").name == "squared"


def test_register_rejects_what_is_not_an_env_class_or_module_path():
    for bad in (3, "no_colon"):
        with pytest.raises(ValueError, match="an env class or a 'module:Class' string"):
            sparring.register("toy_bad", bad)
