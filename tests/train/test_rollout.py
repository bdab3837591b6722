"""The rollout's episode-end hook: what it is shown, and how the rollout carries restored envs on."""

import numpy as np
import pytest
import torch

import sparring
from sparring.players.policy import policy_for
from sparring.train.config import make_train_config
from sparring.train.rollout import Rollout


class RestartEveryOther:
    """A hook that puts every other ended env back to a saved record, with a memory of 0.5 everywhere."""

    def __init__(self, env, saved):
        self.env, self.saved = env, saved
        self.done = []
        self.given = None

    def after_step(self, done, state):
        self.done.append(done.copy())
        assert all(s.shape == (self.env.rows, 8) for s in state)

    def restart(self, ended):
        self.given = ended
        envs = ended[::2]
        self.env.restore(envs, self.saved[envs])
        return envs, (np.full((len(envs), 8), 0.5, np.float32),)


def test_the_hook_sees_every_step_and_the_rollout_carries_its_restarts_on():
    torch.manual_seed(0)  # the policy and its sampling draw from torch: fixed, whatever ran before
    env = sparring.make("serpent", num_envs=6, seed=1)
    policy = policy_for(env, make_train_config(None, {"hidden": 8, "recurrence": "mingru"}))
    rollout = Rollout(env, policy, 64, np.arange(env.rows))
    hook = rollout.episode_end = RestartEveryOther(env, env.snapshot())
    rollout.collect()

    assert len(hook.done) == 64
    ended = np.flatnonzero(np.any(hook.done, axis=0))
    assert ended.size > 1 and np.array_equal(hook.given, ended)
    restored, fresh = ended[::2], ended[1::2]
    assert env.snapshot(restored).tobytes() == hook.saved[restored].tobytes()
    assert not rollout.just_done[restored].any()  # restored rows carry on: their memory is kept
    assert torch.equal(rollout.state[0][restored], torch.full((len(restored), 8), 0.5))
    assert not (rollout.state[0][fresh] == 0.5).all(dim=1).any()  # the others keep their own memory

    rollout.collect()
    assert torch.equal(rollout.state0[0][restored], torch.full((len(restored), 8), 0.5))
    assert not rollout.resets[0, restored].any()


@pytest.mark.parametrize("recurrence", ["lstm", "mingru"])
def test_the_updates_replay_of_a_rollout_gives_its_logprobs_and_values(recurrence):
    """PPO's training pass over minibatch rows (their entering memory, resets mid-sequence) reproduces what
    the rollout computed tick by tick: the ratio starts at 1 and the value clip is centred."""
    torch.manual_seed(0)
    env = sparring.make("squared", num_envs=24, seed=3)
    policy = policy_for(env, make_train_config(None, {"hidden": 16, "layers": 1, "recurrence": recurrence}))
    rollout = Rollout(env, policy, 96, np.arange(env.rows))
    rollout.collect()
    rollout.collect()  # the second starts from carried memory, not zeros
    assert rollout.resets[1:].sum(0).ge(2).any() and rollout.state0[0].abs().sum() > 0
    idx = torch.tensor([5, 0, 17, 9, 23, 2])
    with torch.no_grad():
        logprob, _, value = policy.evaluate(
            rollout.obs[:, idx],
            rollout.mask[:, idx],
            rollout.actions[:, idx],
            tuple(s[idx] for s in rollout.state0),
            rollout.resets[:, idx],
        )
    assert torch.allclose(logprob, rollout.logprob[:, idx], atol=1e-5)
    assert torch.allclose(value, rollout.values[:, idx], atol=1e-5)
