"""Behaviour-cloning warm start: the clone plays like its teacher on states it never trained on."""

import re

import numpy as np
import pytest
import torch

from sparring.kit import BatchedEnv, Env, Heads, Obs, kernel, rand_int, register
from sparring.train.config import make_train_config
from sparring.train.imitate import check_imitation, imitate
from sparring.train.trainer import Trainer

CUES, MOVES = 4, 6


@kernel
def cue_draw(s, cfg):
    s.cue = rand_int(s, CUES)
    s.allowed = 1 + rand_int(s, (1 << MOVES) - 1)  # a non-empty subset of the moves, as bits


@kernel
def cue_teacher_move(s):
    """(cue + 1) % MOVES when legal, else the lowest legal move: a rule that needs the cue and the mask."""
    want = (s.cue + 1) % MOVES
    if (s.allowed >> want) & 1:
        return want
    for k in range(MOVES):
        if (s.allowed >> k) & 1:
            return k
    return 0


@kernel
def cue_reset(s, cfg):
    cue_draw(s, cfg)


@kernel
def cue_step(s, cfg, act, rew, term, trunc):
    rew[0] = 1.0 if act[0, 0] == cue_teacher_move(s) else 0.0
    cue_draw(s, cfg)
    term[0] = s.tick >= 8


@kernel
def cue_observe(s, cfg, obs, mask):
    for k in range(CUES):
        obs[0, k] = 1 if s.cue == k else 0
    for k in range(MOVES):
        obs[0, CUES + k] = (s.allowed >> k) & 1
        mask[0, k] = (s.allowed >> k) & 1 == 1


@kernel
def cue_teacher(s, cfg, agent, act):
    act[0] = cue_teacher_move(s)


class CueTeacher(Env):
    """Each tick a cue and a random set of legal moves; the teacher's move is a fixed rule of both."""

    name = "toy_cue_teacher"
    obs = Obs(CUES + MOVES, np.uint8, low=0, high=1)
    actions = Heads(move=MOVES)
    state = {"cue": "i4", "allowed": "i4"}
    reset, step, observe = cue_reset, cue_step, cue_observe
    scripted = {"teacher": cue_teacher}


register("toy_cue_teacher", CueTeacher)

TINY = {"num_envs": 32, "horizon": 16, "minibatch_size": 256, "hidden": 32, "threads": 1, "lr": 0.01}


def agreement(policy, seed: int) -> tuple[float, float]:
    """Greedy agreement with the teacher on 2048 fresh states, and the chance rate of a uniform legal pick."""
    env = BatchedEnv(CueTeacher, num_envs=2048, seed=seed)
    teacher = env.scripted_actions("teacher")[:, 0]
    with torch.inference_mode():
        act, _, _, _ = policy.act(
            torch.from_numpy(env.obs), torch.from_numpy(env.mask), policy.initial_state(env.rows), greedy=True
        )
    chance = float((1.0 / env.mask.sum(1)).mean())
    return float((act[:, 0].numpy() == teacher).mean()), chance


@pytest.mark.parametrize("recurrence, floor", [("none", 0.9), ("lstm", 0.6)])  # the LSTM learns slower
def test_the_clone_matches_its_teacher_on_held_out_states(recurrence, floor):
    cfg = make_train_config(
        None, {**TINY, "recurrence": recurrence, "steps": 10**6, "imitate": "teacher", "imitate_steps": 32 * 16 * 30}
    )
    trainer = Trainer("toy_cue_teacher", cfg)
    before, chance = agreement(trainer.policy, seed=99)
    log = list(imitate(trainer))
    after, _ = agreement(trainer.policy, seed=99)
    assert after > floor and after > before + 0.15 and after > chance + 0.2, (before, after, chance)
    # the teacher scores every tick; the rollouts were played by it, not by the untrained policy
    assert log[-1]["env/episode_return"] == pytest.approx(8.0)


def test_the_warm_start_counts_toward_the_budget():
    cfg = make_train_config(None, {**TINY, "steps": 32 * 16 * 5, "imitate": "teacher", "imitate_steps": 10**6})
    trainer = Trainer("toy_cue_teacher", cfg)
    log = list(imitate(trainer))
    assert len(log) == 5 and trainer.finished() and trainer.global_step == 32 * 16 * 5
    assert trainer.elapsed > 0


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"imitate": "nobody", "imitate_steps": 100}, "known: ['teacher']"),
        ({"imitate": "teacher"}, "needs a limit"),
        (
            {"imitate": "teacher", "imitate_minutes": -1.0},  # the config's own range check
            "'imitate_minutes' (--train.imitate_minutes) is -1.0; valid: a finite number >= 0",
        ),
    ],
)
def test_bad_imitation_settings_are_named(settings, message):
    env = BatchedEnv(CueTeacher, num_envs=2)
    with pytest.raises(ValueError, match=re.escape(message)):
        check_imitation(make_train_config(None, {**TINY, "steps": 1000, **settings}), env)


@pytest.mark.parametrize("imitate_lr, cloned_at", [(0.0, 0.01), (0.002, 0.002)])
def test_the_clone_runs_at_its_own_learning_rate_and_ppo_at_the_runs(imitate_lr, cloned_at):
    cfg = make_train_config(
        None,
        {**TINY, "steps": 32 * 16 * 4, "imitate": "teacher", "imitate_steps": 32 * 16 * 2, "imitate_lr": imitate_lr},
    )
    trainer = Trainer("toy_cue_teacher", cfg)
    log = list(imitate(trainer))
    assert [m["train/lr"] for m in log] == [cloned_at, cloned_at]
    assert all(g["lr"] == pytest.approx(cloned_at) for opt in trainer.optimizer.parts for g in opt.param_groups)
    ppo = trainer.iterate()  # PPO starts from the run's lr, annealed by the progress the clone made
    assert ppo["train/lr"] == pytest.approx(0.01 * 0.5)


def test_dagger_plays_the_policys_actions_and_still_learns_the_teachers():
    cfg = make_train_config(
        None, {**TINY, "steps": 10**6, "imitate": "teacher", "imitate_steps": 32 * 16 * 30, "imitate_mix": 1.0}
    )
    trainer = Trainer("toy_cue_teacher", cfg)
    before, chance = agreement(trainer.policy, seed=99)
    log = list(imitate(trainer))
    after, _ = agreement(trainer.policy, seed=99)
    # the policy played every step: its first episodes score below the teacher's 8 per episode ...
    assert log[0]["env/episode_return"] < 7.0
    # ... yet the labels were the teacher's, so the clone still learns it
    assert after > 0.9 and after > before + 0.15 and after > chance + 0.2, (before, after, chance)
