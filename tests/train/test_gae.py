"""The compiled GAE matches a slow, obviously-correct reference, truncations included."""

import numpy as np

from sparring.train.gae import compute_gae


def gae(rewards, values, dones, last_value, gamma, lam, truncated=None, final_values=None):
    out = np.empty(rewards.shape, np.float32)
    truncated = np.zeros(rewards.shape, np.bool_) if truncated is None else truncated
    final_values = np.zeros(rewards.shape, np.float32) if final_values is None else final_values
    compute_gae(rewards, values, dones, truncated, final_values, last_value, np.float32(gamma), np.float32(lam), out)
    return out


def slow_gae(rewards, values, dones, last_value, gamma, lam, truncated=None, final_values=None):
    horizon, n = rewards.shape
    truncated = np.zeros(rewards.shape, np.bool_) if truncated is None else truncated
    out = np.zeros((horizon, n))
    for i in range(n):
        for t in range(horizon):
            # sum of (gamma*lam)^k deltas until the episode ends
            total, weight = 0.0, 1.0
            for k in range(t, horizon):
                if truncated[k, i]:  # cut off by a time limit: worth what its final observation is
                    next_v = final_values[k, i]
                else:
                    next_v = (values[k + 1, i] if k + 1 < horizon else last_value[i]) * (1 - dones[k, i])
                delta = rewards[k, i] + gamma * next_v - values[k, i]
                total += weight * delta
                if dones[k, i]:
                    break
                weight *= gamma * lam
            out[t, i] = total
    return out


def test_gae_matches_reference_with_episode_ends():
    rng = np.random.default_rng(0)
    horizon, n = 17, 5
    rewards = rng.normal(size=(horizon, n)).astype(np.float32)
    values = rng.normal(size=(horizon, n)).astype(np.float32)
    dones = (rng.random((horizon, n)) < 0.2).astype(np.float32)
    last = rng.normal(size=n).astype(np.float32)
    got = gae(rewards, values, dones, last, 0.97, 0.9)
    want = slow_gae(rewards, values, dones, last, 0.97, 0.9)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_truncated_steps_bootstrap_from_their_final_value_and_stop_the_chain():
    rng = np.random.default_rng(1)
    horizon, n = 17, 5
    rewards = rng.normal(size=(horizon, n)).astype(np.float32)
    values = rng.normal(size=(horizon, n)).astype(np.float32)
    dones = rng.random((horizon, n)) < 0.3
    truncated = dones & (rng.random((horizon, n)) < 0.5)
    truncated[-1, 0] = dones[-1, 0] = True  # a truncation at the rollout's last step
    final_values = rng.normal(size=(horizon, n)).astype(np.float32)
    last = rng.normal(size=n).astype(np.float32)
    dones = dones.astype(np.float32)
    got = gae(rewards, values, dones, last, 0.97, 0.9, truncated, final_values)
    want = slow_gae(rewards, values, dones, last, 0.97, 0.9, truncated, final_values)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert got[-1, 0] == np.float32(rewards[-1, 0] + np.float32(0.97) * final_values[-1, 0] - values[-1, 0])


def test_lambda_one_no_dones_is_discounted_return_minus_value():
    rewards = np.ones((4, 1), np.float32)
    values = np.zeros((4, 1), np.float32)
    got = gae(rewards, values, np.zeros((4, 1), np.float32), np.array([2.0], np.float32), 0.5, 1.0)
    want = [1 + 0.5 + 0.25 + 0.125 + 2 * 0.0625, 1 + 0.5 + 0.25 + 2 * 0.125, 1 + 0.5 + 2 * 0.25, 1 + 2 * 0.5]
    assert np.allclose(got[:, 0], want)
