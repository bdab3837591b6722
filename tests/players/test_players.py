"""The players: scripted, random and network players acting for chosen rows, and make_player's specs."""

import numpy as np
import pytest
import torch

import sparring
from sparring.players import Player, RandomPlayer, ScriptedPlayer, make_player
from sparring.players.network import NetworkPlayer
from sparring.players.policy import Policy
from tests.train import toys  # noqa: F401  (registers the toy envs)


def test_random_player_draws_only_allowed_values():
    env = sparring.make("toy_masked_pick", num_envs=64, seed=3)
    player = RandomPlayer(0)
    rows = np.arange(0, env.rows, 2)
    acts = player.act(env, rows)
    assert acts.shape == (len(rows), len(env.heads.sizes)) and acts.dtype == np.int32
    offsets = np.concatenate([[0], np.cumsum(env.heads.sizes)[:-1]])
    assert env.mask[rows[:, None], offsets + acts].all()
    assert isinstance(player, Player)


def test_scripted_player_acts_as_the_env_script_for_any_rows():
    env = sparring.make("toy_match", num_envs=3, seed=1)
    player = ScriptedPlayer(env, "always_zero")
    full = env.scripted_actions("always_zero")
    assert np.array_equal(player.act(env, [5, 0]), full[[5, 0]]) and player.name == "scripted:always_zero"
    with pytest.raises(ValueError, match="genius"):
        ScriptedPlayer(env, "genius")


def test_network_memory_restarts_with_the_episode_and_can_be_carried():
    env = sparring.make("squared", num_envs=2, seed=0, size=5)
    torch.manual_seed(0)
    net = Policy(env.obs_spec.size, env.heads.sizes, hidden=8, recurrence="lstm")
    player = NetworkPlayer(net, "net", greedy=True)
    rows = np.arange(env.rows)
    assert (player.memory(env, rows) == 0).all()  # nothing seen yet
    env.step(player.act(env, rows))
    carried = player.memory(env, rows)
    fresh = env.records["tick"] == 0  # an env whose episode ended restarts from zeros
    assert (carried[fresh] == 0).all() and (carried[~fresh] != 0).any()
    twin = NetworkPlayer(net, "twin", greedy=True)
    twin.load_memory(env, rows, carried)
    assert np.array_equal(twin.act(env, rows), player.act(env, rows))
    assert np.allclose(twin.memory(env, rows), player.memory(env, rows))


def test_make_player_names_the_valid_specs():
    env = sparring.make("toy_match", num_envs=1)
    assert make_player("scripted:always_zero", env).name == "scripted:always_zero"
    assert make_player("random", env).name == "random"
    with pytest.raises(ValueError, match=r"valid: random, checkpoint:PATH, scripted:"):
        make_player("genius", env)
