"""A checkpoint player on a real env: any rows, one memory per row, restarts with the episode."""

import numpy as np
import pytest
import torch

import sparring
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


def test_checkpoint_player_keeps_one_memory_per_row(lstm_checkpoint):
    env = sparring.make("squared", num_envs=4, seed=2, size=5)
    whole = checkpoint_player(lstm_checkpoint, env, greedy=True)
    split = checkpoint_player(lstm_checkpoint, env, greedy=True)
    start, net = env.snapshot(), whole.net
    memory = net.initial_state(4)
    for _ in range(6):  # acting on rows in two halves gives what acting on all rows at once gives
        everyone = whole.act(env, np.arange(4))
        halves = np.concatenate([split.act(env, [0, 1]), split.act(env, [2, 3])])
        new_episode = torch.from_numpy(env.records["tick"] == 0)  # squared auto-resets finished envs
        with torch.inference_mode():  # the memory the policy carries when run on all rows by hand
            by_hand, _, _, memory = net.act(
                torch.from_numpy(env.obs), torch.from_numpy(env.mask), memory, new_episode, greedy=True
            )
        assert np.array_equal(everyone, halves) and np.array_equal(everyone, by_hand.numpy())
        assert all(torch.allclose(kept, m) for player in (whole, split) for kept, m in zip(player._memory, memory))
        env.step(everyone)
    env.restore(np.arange(4), start)  # the ticks go back: memories restart, as a fresh brain's would
    with torch.inference_mode():
        expected, *_ = net.act(torch.from_numpy(env.obs), torch.from_numpy(env.mask), net.initial_state(4), greedy=True)
    assert np.array_equal(whole.act(env, np.arange(4)), expected.numpy())
    assert np.array_equal(checkpoint_player(lstm_checkpoint, env, greedy=True).act(env, np.arange(4)), expected.numpy())
