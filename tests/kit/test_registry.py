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
