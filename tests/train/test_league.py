"""The league: which rows it plays, its members (brains and snapshots) drawn by PFSP, and clear errors."""

import numpy as np
import pytest

from sparring.kit import BatchedEnv, registry
from sparring.train.config import make_train_config
from sparring.train.league import league_rows, parse_league
from sparring.train.opponents import pfsp_draw
from sparring.train.trainer import Trainer
from tests.train import toys  # noqa: F401  (registers the toy envs)

TINY = {"num_envs": 32, "horizon": 16, "minibatch_size": 256, "hidden": 32, "threads": 1}


def tiny(**kw):
    return make_train_config(None, {**TINY, **kw})


def test_the_league_plays_a_block_of_seats_that_rotates_with_the_env():
    env = BatchedEnv(registry.get("toy_roles"), num_envs=4, seed=0)
    rows = league_rows(env, [0, 1, 2, 3], 2)
    assert (rows.reshape(4, 2) % 4).tolist() == [[0, 1], [2, 3], [0, 1], [2, 3]]
    assert (rows // 4).tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    rows = league_rows(env, [1, 2, 3], 1)  # seat 0 is not trained: the block never lands on it
    assert (rows % 4).tolist() == [1, 2, 3, 1]
    with pytest.raises(ValueError, match="the league needs 1..3 of the 4 trained seats"):
        league_rows(env, [0, 1, 2, 3], 4)


def test_members_are_player_specs_and_self():
    cls = registry.get("toy_roles")
    assert parse_league("self, scripted:right:0.5", cls) == (["scripted:right:0.5"], True)
    assert parse_league("random", cls) == (["random"], False)
    with pytest.raises(ValueError, match="unknown player 'scripted:wrong'"):
        parse_league("scripted:wrong", cls)
    with pytest.raises(ValueError, match="names a member twice"):
        parse_league("self,self", cls)


def test_the_league_fills_its_rows_and_the_learners_train_the_rest():
    trainer = Trainer("toy_roles", tiny(policies="seat", league="scripted:right", league_seats=1, steps=10**6))
    league = trainer.opponent
    learned = np.concatenate([r.rows_np for r in trainer.population.rollouts])
    assert sorted(np.concatenate([learned, league.rows]).tolist()) == list(range(32 * 4))
    actions = np.full((trainer.env.rows, 1), -1, np.int32)
    league.fill(actions)
    assert (actions[league.rows, 0] == league.rows % 4).all()  # the scripted brain plays each seat's answer
    assert (np.delete(actions, league.rows, 0) == -1).all()
    metrics = trainer.iterate()
    assert metrics["league/members"] == 1 and metrics["league/self_share"] == 0.0


def test_snapshots_join_every_pool_every_updates_and_the_oldest_leave():
    cfg = tiny(policies="groups:2", league="self,scripted:right", league_seats=1, pool_every=2, pool_size=2)
    trainer = Trainer("toy_roles", cfg.__class__(**{**cfg.__dict__, "steps": 10**6}))
    league = trainer.opponent
    assert league.names() == ["scripted:right"]  # with a brain, the first snapshot waits for training
    sizes = []
    for _ in range(6):
        sizes.append(trainer.iterate()["league/members"])
    assert sizes == [1, 2, 2, 3, 3, 3]
    assert league.names() == ["scripted:right", "self:0", "self:1"]
    assert all(len(snap) == 2 for snap in league.snapshots)  # a snapshot holds every policy of the run


def test_a_league_of_snapshots_alone_starts_from_the_initial_policies_and_works_with_one_shared_policy():
    trainer = Trainer("toy_roles", tiny(league="self", league_seats=3, steps=10**6))
    assert trainer.population is None and len(trainer.rollout.rows_np) == 32
    assert trainer.opponent.names() == ["self:0"]
    trainer.iterate()


def test_pfsp_draws_the_members_the_learners_lose_to_most():
    rng = np.random.default_rng(0)
    draws = pfsp_draw(rng, [90.0, 10.0], [100.0, 100.0], groups=2000)
    assert (draws == 1).mean() > 0.95


def test_league_settings_that_cannot_work_are_refused():
    with pytest.raises(ValueError, match="--train.league_seats 2 needs members"):
        Trainer("toy_roles", tiny(league_seats=2))
    with pytest.raises(ValueError, match="the league needs 1..3 of the 4 trained seats"):
        Trainer("toy_roles", tiny(league="self"))
    with pytest.raises(ValueError, match="does not mix with --opponent 'always_zero'"):
        Trainer("toy_match", tiny(league="self", league_seats=1), opponent="always_zero")
