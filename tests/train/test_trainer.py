"""The trainer end to end on toy envs: masks respected, opponents wired, learning happens."""

import numpy as np
import pytest

from sparring.evaluate.episodes import play_episodes
from sparring.players.network import NetworkPlayer
from sparring.kit import BatchedEnv, registry
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer
from tests.train import toys  # noqa: F401  (registers the toy envs)

TINY = {"num_envs": 32, "horizon": 16, "minibatch_size": 256, "hidden": 32, "threads": 1}


def tiny(**kw):
    return make_train_config(None, {**TINY, **kw})


@pytest.mark.parametrize("recurrence", ["none", "lstm", "mingru"])
def test_rollouts_never_take_a_forbidden_action(recurrence):
    trainer = Trainer("toy_masked_pick", tiny(recurrence=recurrence, steps=32 * 16 * 3))
    while not trainer.finished():
        metrics = trainer.iterate()
        r = trainer.rollout
        taken = r.actions.numpy() + np.array([0, 4])
        assert np.take_along_axis(r.mask.numpy(), taken, -1).all()
        assert metrics.get("env/forbidden", 0.0) == 0.0
    assert np.isfinite(metrics["loss/policy"])


def test_scripted_opponent_from_the_env_knob_learns_to_match():
    trainer = Trainer("toy_match", tiny(steps=32 * 16 * 40, lr=0.02), opponent="zeros")
    assert trainer.opponent is None and trainer.env.config.opponent == "zeros"
    while not trainer.finished():
        metrics = trainer.iterate()
    assert metrics["env/win"] > 0.9  # random play wins half


def test_scripted_policy_plays_the_other_seat():
    trainer = Trainer("toy_match", tiny(steps=32 * 16 * 40, lr=0.02), opponent="always_zero")
    assert len(trainer.rollout.rows_np) == 32 and (trainer.rollout.rows_np % 2 == 0).all()
    while not trainer.finished():
        metrics = trainer.iterate()
    assert metrics["env/win"] > 0.9


def test_a_seat_named_with_a_player_keeps_it_and_the_learner_takes_the_other():
    trainer = Trainer("toy_match", tiny(steps=32 * 16 * 40, lr=0.02), seats={"seat0": "scripted:always_zero"})
    assert (trainer.rollout.rows_np % 2 == 1).all()  # the learner trains seat1, the only free seat
    while not trainer.finished():
        metrics = trainer.iterate()
    assert metrics["env/win"] < 0.1  # seat 0 (the script) rarely matches: seat 1 learned to differ
    with pytest.raises(ValueError, match="leave one of \\['seat0', 'seat1'\\] for the learner"):
        Trainer("toy_match", tiny(), seats={"seat0": "random", "seat1": "random"})


def test_both_seats_learn_by_default_and_unknown_opponents_fail():
    assert len(Trainer("toy_match", tiny()).rollout.rows_np) == 64
    with pytest.raises(ValueError, match="valid: .*always_zero.*self"):
        Trainer("toy_match", tiny(), opponent="nobody")


def test_self_play_pool_grows_and_reports():
    trainer = Trainer("toy_match", tiny(steps=32 * 16 * 6, pool_every=2), opponent="self")
    assert len(trainer.rollout.rows_np) == 32  # seat 0 learns, seat 1 is the pool's
    while not trainer.finished():
        metrics = trainer.iterate()
    assert metrics["selfplay/pool"] == 4 and 0.0 < metrics["selfplay/win_rate"] < 1.0


def success_rate(trainer, episodes=512):
    env = BatchedEnv(registry.get("squared"), num_envs=128, seed=99, autoreset=False)
    data = play_episodes(env, [(NetworkPlayer(trainer.policy, "trainer"), np.arange(env.rows))], episodes)
    return data[:, 3].mean()


def test_squared_learns_beyond_random_in_a_small_budget():
    cfg = make_train_config(
        None,
        {"num_envs": 256, "horizon": 32, "steps": 256 * 32 * 40, "threads": 1, "minibatch_size": 2048, "gamma": 1.0},
    )
    trainer = Trainer("squared", cfg)
    before = success_rate(trainer)
    while not trainer.finished():
        trainer.iterate()
    after = success_rate(trainer)
    # measured: 0.09 before, 0.62 after; a random walker reaches the target in about 0.13 of episodes
    assert before < 0.2
    assert after > 0.4 and after > before + 0.25, (before, after)


def test_env_threads_train_the_same_run_as_one_thread():
    runs = []
    for env_threads in (1, 2):
        trainer = Trainer("toy_match", tiny(num_envs=40, steps=40 * 2 * 16 * 3, env_threads=env_threads))
        assert trainer.env.num_threads == env_threads  # 40 envs: three chunks of 16, so two threads fit
        metrics = [trainer.iterate() for _ in range(3)]
        runs.append((trainer.env.records.tobytes(), [m["loss/policy"] for m in metrics]))
    assert runs[0] == runs[1]


def test_env_threads_default_to_torch_threads():
    from sparring.train.trainer import env_threads_for

    assert env_threads_for(tiny(), 3) == 3
    assert env_threads_for(tiny(env_threads=2), 3) == 2


def test_torch_threads_default_to_every_core_the_process_may_use(monkeypatch):
    import os

    from sparring.train import trainer as trainer_module

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 5, 7}, raising=False)
    assert trainer_module.usable_cores() == 5
    auto = tiny(threads=0)
    assert trainer_module.torch_threads_for(auto) == 5  # every usable core, not all but one
    assert trainer_module.torch_threads_for(tiny(threads=2)) == 2
    assert trainer_module.env_threads_for(auto, trainer_module.torch_threads_for(auto)) == 5
