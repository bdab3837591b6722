"""Observations on real envs, and every kind of brain as a player."""

import numpy as np
import pytest

import sparring
from sparring.lm import LocalLMBrain, OpenAIBrain, Observations
from sparring.players import Player, ScriptedPlayer
from sparring.players.network import checkpoint_player
from sparring.train.checkpoint import save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer


@pytest.fixture(scope="module")
def lstm_checkpoint(tmp_path_factory):
    """An untrained LSTM policy for squared (size 5), saved as the trainer saves it."""
    config = {"num_envs": 8, "horizon": 8, "minibatch_size": 64, "hidden": 16, "threads": 1, "recurrence": "lstm"}
    trainer = Trainer("squared", make_train_config(None, config), env_config={"size": 5})
    return save_checkpoint(str(tmp_path_factory.mktemp("run")), trainer)


def test_observations_of_chosen_rows():
    env = sparring.make("duel", num_envs=3, seed=1)
    batch = Observations.from_env(env, rows=[5, 0])
    assert batch.texts == [env.describe(2, 1), env.describe(0, 0)] and batch.texts[0]
    assert np.array_equal(batch.obs, env.obs[[5, 0]]) and np.array_equal(batch.mask, env.mask[[5, 0]])
    assert len(Observations.from_env(env)) == env.rows and batch.heads == tuple(env.heads.sizes)
    words = Observations.from_env(env, [1], text=lambda e, i, a: f"env {i} agent {a}")
    assert words.texts == ["env 0 agent 1"]
    with pytest.raises(IndexError, match=r"rows must be in \[0, 6\)"):
        Observations.from_env(env, rows=[6])


def test_allows_checks_range_and_mask():
    batch = Observations(np.arange(1), [""], np.zeros((1, 1)), np.array([[True, False, True, True, True]]), (3, 2))
    assert batch.allows(0, np.array([2, 1])) and not batch.allows(0, np.array([1, 0]))
    assert not batch.allows(0, np.array([3, 0])) and not batch.allows(0, np.array([0]))


def test_all_brains_meet_the_protocol(lstm_checkpoint, tiny_model):
    env = sparring.make("squared", num_envs=1, seed=0, size=5)
    parse = lambda text, batch, i: 0  # noqa: E731
    brains = [
        ScriptedPlayer(env, "greedy"),
        checkpoint_player(lstm_checkpoint, env),
        OpenAIBrain("http://127.0.0.1:9/v1", "m", parse, 0),
        LocalLMBrain(tiny_model, parse, 0),
    ]
    assert all(isinstance(b, Player) for b in brains)
