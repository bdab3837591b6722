"""Truncated episodes bootstrap from the value of their final observation; terminated ones do not.

The rollout and the compiled GAE are checked against a slow reference: the same actions replayed
on an env without auto-reset (a finished env shows its final observation until it is reset by
hand), every observation valued one tick at a time with the policy's own memory, and GAE summed
the obvious way in float64.
"""

import numpy as np
import pytest
import torch

from sparring.kit import BatchedEnv
from sparring.players.policy import policy_for
from sparring.train.config import make_train_config
from sparring.train.ppo import advantages_and_returns
from sparring.train.rollout import Rollout
from tests.train import toys

GAMMA, LAM = 0.9, 0.8


def value_step(policy, obs: np.ndarray, state: tuple) -> tuple[torch.Tensor, tuple]:
    """The value of ``obs`` and the memory after it, one tick, the MLP or the recurrent core by hand."""
    obs = torch.from_numpy(obs)
    if not policy.recurrent:
        return policy.value(obs), state
    x, state = policy.core.step(policy.encoder(policy._inputs(obs)), state)
    return policy.critic(x).squeeze(-1), state


def fresh(state: tuple, new: np.ndarray) -> tuple:
    """``state`` with the rows of ``new`` episodes back at zero (a policy's initial state)."""
    keep = torch.from_numpy(~new).unsqueeze(-1).to(torch.float32)
    return tuple(s * keep for s in state)


def reference(
    env_cls, records: np.ndarray, state0: tuple, new0: np.ndarray, rollout: Rollout, rows: np.ndarray, config: dict
) -> dict:
    """Replay ``rollout``'s actions from ``records`` and compute its advantages and returns the slow way (float64).

    ``state0`` is the policy's memory entering the rollout, ``new0`` the rows whose episode starts at its first step.
    """
    env = BatchedEnv(env_cls, len(records), autoreset=False, **config)
    env.restore(None, records)
    policy, horizon, n = rollout.policy, rollout.horizon, len(rows)
    values, final_values, rewards = (np.zeros((horizon, n)) for _ in range(3))
    term, trunc = (np.zeros((horizon, n), np.bool_) for _ in range(2))
    actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    state, new = state0, new0
    with torch.inference_mode():
        for t in range(horizon):
            assert np.array_equal(env.obs[rows], rollout.obs[t].numpy())  # the replay is the same rollout
            value, state = value_step(policy, env.obs[rows], fresh(state, new))
            values[t] = value.numpy()
            actions[rows] = rollout.actions[t].numpy()
            env.step(actions)
            rewards[t], term[t], trunc[t] = env.rewards[rows], env.terminals[rows], env.truncations[rows]
            # no auto-reset: what the env shows now is the final observation of the envs that ended
            final_values[t] = value_step(policy, env.obs[rows], state)[0].numpy()
            env.reset_envs(np.flatnonzero(env.done))
            new = term[t] | trunc[t]
        last = value_step(policy, env.obs[rows], fresh(state, new))[0].numpy()
    advantages = np.zeros((horizon, n))
    for i in range(n):
        for t in range(horizon):
            total, weight = 0.0, 1.0
            for k in range(t, horizon):
                if term[k, i]:
                    future = 0.0  # the game ended: nothing after it
                elif trunc[k, i]:
                    future = final_values[k, i]  # cut off: what the final observation was worth
                else:
                    future = values[k + 1, i] if k + 1 < horizon else last[i]
                total += weight * (rewards[k, i] + GAMMA * future - values[k, i])
                if term[k, i] or trunc[k, i]:
                    break
                weight *= GAMMA * LAM
            advantages[t, i] = total
    return {
        "advantages": advantages,
        "returns": advantages + values,
        "values": values,
        "term": term,
        "trunc": trunc,
        "final_values": final_values,
    }


@pytest.mark.parametrize("recurrence", ["none", "lstm"])
@pytest.mark.parametrize("env_cls", [toys.TimedWalk, toys.TimedPair])
def test_truncation_bootstraps_like_the_slow_reference(env_cls, recurrence):
    torch.manual_seed(4)  # walks that truncate mid-rollout and at its last step, every cut mattering (checked)
    config = {"limit": 5}
    env = BatchedEnv(env_cls, 24, seed=3, keep_final=True, **config)
    policy = policy_for(env, make_train_config(None, {"hidden": 16, "recurrence": recurrence}))
    rows = np.arange(0, env.rows, env.num_agents)  # the pair trains seat 0 only; its other rows play 0
    rollout = Rollout(env, policy, 20, rows)
    rollout.collect()  # the checked rollout starts mid-episode, with memory carried over
    records, state0, new0 = env.snapshot(), tuple(s.clone() for s in rollout.state), rollout.just_done.numpy().copy()
    rollout.collect()
    adv, ret = advantages_and_returns(rollout, GAMMA, LAM)
    want = reference(env_cls, records, state0, new0, rollout, rows, config)

    cut = want["trunc"] & ~want["term"]
    assert cut[:-1].any() and cut[-1].any(), "the toy must truncate inside the rollout and at its last step"
    assert (want["trunc"] & want["term"]).any(), "and terminate in the tick the limit comes"
    assert np.array_equal(rollout.truncated.numpy(), cut)
    np.testing.assert_allclose(rollout.values.numpy(), want["values"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(rollout.final_values.numpy()[cut], want["final_values"][cut], rtol=0, atol=1e-6)
    np.testing.assert_allclose(adv.numpy(), want["advantages"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(ret.numpy(), want["returns"], rtol=0, atol=1e-6)

    # the check has teeth: the old rollout's way (a truncation counted as a terminal) gives other advantages
    rollout.truncated.zero_()
    old, _ = advantages_and_returns(rollout, GAMMA, LAM)
    assert np.abs(old.numpy() - want["advantages"])[cut].min() > 1e-3


def test_a_truncation_without_final_observations_is_an_error_naming_keep_final():
    env = BatchedEnv(toys.TimedWalk, 4, seed=0, limit=2)
    rollout = Rollout(env, policy_for(env, make_train_config(None, {"hidden": 8})), 4, np.arange(env.rows))
    with pytest.raises(ValueError, match="keep_final=True"):
        rollout.collect()


def test_terminations_alone_never_bootstrap():
    env = BatchedEnv(toys.TimedWalk, 8, seed=0, keep_final=True, limit=1000)  # the limit never comes
    rollout = Rollout(env, policy_for(env, make_train_config(None, {"hidden": 8})), 16, np.arange(env.rows))
    rollout.collect()
    assert rollout.dones.any() and not rollout.truncated.any() and not rollout.final_values.any()
