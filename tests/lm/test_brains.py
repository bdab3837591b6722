"""Observations, ScriptedBrain and CheckpointBrain on real envs."""

import numpy as np
import pytest
import torch

import sparring
from sparring.lm import Brain, CheckpointBrain, LocalLMBrain, OpenAIBrain, Observations, ScriptedBrain
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


def test_scripted_brain_plays_the_env_script_for_any_rows():
    env = sparring.make("duel", num_envs=4, seed=3)
    brain = ScriptedBrain(env, "robot")
    for _ in range(5):
        rows = np.array([6, 1, 2])
        assert np.array_equal(brain.act(Observations.from_env(env, rows)), env.scripted_actions("robot")[rows])
        env.step(env.scripted_actions("reactive"))
    assert isinstance(brain, Brain) and brain.name == "scripted:robot"
    with pytest.raises(ValueError, match="no scripted policy 'genius'; known"):
        ScriptedBrain(env, "genius")


def test_checkpoint_brain_keeps_one_memory_per_row(lstm_checkpoint):
    env = sparring.make("squared", num_envs=4, seed=2, size=5)
    whole = CheckpointBrain(env, lstm_checkpoint, greedy=True)
    split = CheckpointBrain(env, lstm_checkpoint, greedy=True)
    start, net = env.snapshot(), whole.net
    memory = net.initial_state(4)
    for _ in range(6):  # acting on rows in two halves gives what acting on all rows at once gives
        everyone = whole.act(Observations.from_env(env))
        halves = np.concatenate([split.act(Observations.from_env(env, [0, 1])),
                                 split.act(Observations.from_env(env, [2, 3]))])
        new_episode = torch.from_numpy(env.records["tick"] == 0)  # squared auto-resets finished envs
        with torch.inference_mode():  # the memory the policy carries when run on all rows by hand
            by_hand, _, _, memory = net.act(torch.from_numpy(env.obs), torch.from_numpy(env.mask), memory,
                                            new_episode, greedy=True)
        assert np.array_equal(everyone, halves) and np.array_equal(everyone, by_hand.numpy())
        assert all(torch.allclose(kept, m) for brain in (whole, split) for kept, m in zip(brain._state, memory))
        env.step(everyone)
    env.restore(np.arange(4), start)  # the ticks go back: memories restart, as a fresh brain's would
    with torch.inference_mode():
        expected, *_ = net.act(torch.from_numpy(env.obs), torch.from_numpy(env.mask), net.initial_state(4),
                               greedy=True)
    assert np.array_equal(whole.act(Observations.from_env(env)), expected.numpy())
    assert np.array_equal(CheckpointBrain(env, lstm_checkpoint, greedy=True).act(Observations.from_env(env)),
                          expected.numpy())


def test_all_brains_meet_the_protocol(lstm_checkpoint, tiny_model):
    env = sparring.make("squared", num_envs=1, seed=0, size=5)
    parse = lambda text, batch, i: 0  # noqa: E731
    brains = [ScriptedBrain(env, "greedy"), CheckpointBrain(env, lstm_checkpoint),
              OpenAIBrain("http://127.0.0.1:9/v1", "m", parse, 0), LocalLMBrain(tiny_model, parse, 0)]
    assert all(isinstance(b, Brain) for b in brains)
