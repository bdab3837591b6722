"""`squared` follows PufferLib's Squared rules."""

import numpy as np
import pytest

import sparring
from sparring.envs.squared.env import DOWN, LEFT, NOOP, RIGHT, UP, Squared


def make(n=1, **cfg):
    return sparring.make("squared", num_envs=n, seed=0, **cfg)


def test_agent_starts_in_the_centre_and_the_target_elsewhere():
    env = make(256)
    assert (env.records["row"] == 5).all() and (env.records["col"] == 5).all()
    assert not (env.records["target"] == 60).any()
    assert len(np.unique(env.records["target"])) > 60  # spread over the grid
    grid = env.obs[0].reshape(11, 11)
    assert grid[5, 5] == 1 and (grid == 2).sum() == 1 and (grid == 0).sum() == 119


def test_leaving_the_grid_costs_one_and_ends():
    env = make()
    rec = env.snapshot()
    rec["target"] = 120  # bottom-right corner, off the way up
    env.restore(None, rec)
    for _ in range(5):
        _, rew, term, _, _, info = env.step([[UP]])
        assert not term[0] and rew[0] == 0.0
    _, rew, term, _, _, info = env.step([[UP]])
    assert term[0] and rew[0] == -1.0 and info["success"] == 0.0 and info["episode_length"] == 6


def test_reaching_the_target_pays_one():
    env = make(64)
    for _ in range(10):
        _, rew, term, _, _, info = env.step(env.scripted_actions("greedy"))
        assert (rew[term] == 1.0).all()
        if info:
            assert info["success"] == 1.0 and info["episode_return"] == 1.0


def test_time_limit_is_three_times_the_size():
    env = make(size=5)
    for t in range(1, 16):
        _, rew, term, _, _, info = env.step([[NOOP]])
        assert not term[0]
    _, rew, term, _, _, info = env.step([[NOOP]])
    assert term[0] and rew[0] == -1.0 and info["episode_length"] == 16


@pytest.mark.parametrize("move, dr, dc", [(DOWN, 1, 0), (UP, -1, 0), (LEFT, 0, -1), (RIGHT, 0, 1)])
def test_moves(move, dr, dc):
    env = make(64)
    start = env.records[["row", "col", "target"]].copy()
    env.step(np.full((64, 1), move))
    moved = env.records["tick"] == 1  # envs that did not end on this step
    assert (env.records["row"][moved] == start["row"][moved] + dr).all()
    assert (env.records["col"][moved] == start["col"][moved] + dc).all()


def test_size_must_be_at_least_two():
    with pytest.raises(ValueError, match="size must be at least 2"):
        make(size=1)


def test_slow_paths():
    env = make()
    rec, cfg = env.records[0], env.config
    text = Squared.render_ansi(rec, cfg)
    assert text.count("@") == 1 and text.count("X") == 1
    assert Squared.render_rgb(rec, cfg).shape == (88, 88, 3)
    assert "row 5, column 5" in Squared.describe(rec, cfg)
    assert Squared.invariants(rec, cfg) == []
    assert Squared.cell(rec, cfg) == (5, 5)
    broken = rec.copy()
    broken["row"] = 0
    assert Squared.invariants(broken, cfg)
