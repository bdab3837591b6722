"""The noisy player: another player's actions, a chosen share of rows replaced by random allowed play."""

import numpy as np
import pytest

import sparring
from sparring.players import ScriptedPlayer, make_player
from sparring.players.noisy import NoisyPlayer
from tests.train import toys  # noqa: F401  (registers the toy envs)


def _ones(player, env, calls: int = 20) -> float:
    """Share of 1s (always_zero plays 0) over ``calls`` calls on every row."""
    rows = np.arange(env.rows)
    return float(np.mean([player.act(env, rows)[:, 0].mean() for _ in range(calls)]))


def test_noise_replaces_about_its_share_of_the_actions():
    env = sparring.make("toy_match", num_envs=500, seed=0)
    inner = ScriptedPlayer(env, "always_zero")
    assert _ones(NoisyPlayer(inner, 0.0), env) == 0.0
    # a replaced action is a uniform bit: 1 with probability 1/2; 20,000 draws each
    assert abs(_ones(NoisyPlayer(inner, 1.0, seed=1), env) - 0.5) < 0.02
    assert abs(_ones(NoisyPlayer(inner, 0.4, seed=2), env) - 0.2) < 0.02


def test_random_actions_respect_the_mask():
    env = sparring.make("toy_masked_pick", num_envs=64, seed=3)

    class First:
        name = "first"

        def act(self, env, rows):
            return np.zeros((len(rows), len(env.heads.sizes)), np.int32)

    rows = np.arange(env.rows)
    acts = NoisyPlayer(First(), 1.0, seed=0).act(env, rows)
    offsets = np.concatenate([[0], np.cumsum(env.heads.sizes)[:-1]])
    assert env.mask[rows[:, None], offsets + acts].all()


def test_make_player_reads_the_noise_after_a_scripted_name():
    env = sparring.make("toy_match", num_envs=1)
    player = make_player("scripted:always_zero:0.25", env, seed=4)
    assert isinstance(player, NoisyPlayer) and player.noise == 0.25 and player.name == "scripted:always_zero:0.25"
    for bad in ("scripted:always_zero:2", "scripted:always_zero:lots"):
        with pytest.raises(ValueError, match=r"noise after 'always_zero' must be a probability in \[0, 1\]"):
            make_player(bad, env)
    with pytest.raises(ValueError, match=r"has no scripted policy 'nobody'; known: \['always_zero'\]"):
        make_player("scripted:nobody:0.1", env)
