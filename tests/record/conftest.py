"""Shared recordings for the recorder's tests (recorded once per module where reused)."""

import pytest

import sparring
from sparring.players import make_player
from sparring.record import record_episodes
from tests.record import toys  # noqa: F401  (registers the toy envs)


def record(path, env_name, episodes, policy="random", num_envs=3, seed=0, **kw):
    """Record ``episodes`` of ``env_name`` played by ``policy`` to ``path``; returns ``path``."""
    env = sparring.make(env_name, num_envs=num_envs, seed=seed, **kw.pop("config", {}))
    record_episodes(env, make_player(policy, env, seed), episodes, str(path), **kw)
    return str(path)


@pytest.fixture(scope="module")
def squared_file(tmp_path_factory):
    """Eight random-policy episodes of squared (size 7), four envs at once."""
    return record(
        tmp_path_factory.mktemp("rec") / "squared.parquet",
        "squared",
        8,
        num_envs=4,
        seed=5,
        config={"size": 7},
        group_rows=64,
    )
