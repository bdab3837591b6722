"""The compiled GAE matches a slow, obviously-correct reference."""

import numpy as np

from sparring.train.gae import compute_gae


def gae(rewards, values, dones, last_value, gamma, lam):
    out = np.empty(rewards.shape, np.float32)
    compute_gae(rewards, values, dones, last_value, np.float32(gamma), np.float32(lam), out)
    return out


def slow_gae(rewards, values, dones, last_value, gamma, lam):
    horizon, n = rewards.shape
    out = np.zeros((horizon, n))
    for i in range(n):
        for t in range(horizon):
            # sum of (gamma*lam)^k deltas until the episode ends
            total, weight = 0.0, 1.0
            for k in range(t, horizon):
                next_v = values[k + 1, i] if k + 1 < horizon else last_value[i]
                delta = rewards[k, i] + gamma * next_v * (1 - dones[k, i]) - values[k, i]
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


def test_lambda_one_no_dones_is_discounted_return_minus_value():
    rewards = np.ones((4, 1), np.float32)
    values = np.zeros((4, 1), np.float32)
    got = gae(rewards, values, np.zeros((4, 1), np.float32), np.array([2.0], np.float32), 0.5, 1.0)
    want = [1 + .5 + .25 + .125 + 2 * .0625, 1 + .5 + .25 + 2 * .125, 1 + .5 + 2 * .25, 1 + 2 * .5]
    assert np.allclose(got[:, 0], want)
