"""Recurrent cores: the training form (scan / unroll) equals the rollout's step form, resets included."""

import pytest
import torch

from sparring.players.recurrent import LSTMCore, MinGRUCore, linear_scan


def test_linear_scan_matches_a_loop_with_zero_coefficients():
    torch.manual_seed(0)
    a = torch.rand(13, 3, 4)
    a[5] = 0.0
    b, h0 = torch.randn(13, 3, 4), torch.randn(3, 4)
    h, want = h0, []
    for t in range(13):
        h = a[t] * h + b[t]
        want.append(h)
    assert torch.allclose(linear_scan(a, b, h0), torch.stack(want), atol=1e-5)


@pytest.mark.parametrize("core_cls", [LSTMCore, MinGRUCore])
def test_sequence_equals_steps_with_resets(core_cls):
    torch.manual_seed(1)
    core = core_cls(8)
    x = torch.randn(20, 6, 8)
    resets = torch.rand(20, 6) < 0.15
    state0 = tuple(torch.randn(6, 8) for _ in core.initial_state(6))
    state, steps = state0, []
    for t in range(20):
        y, state = core.step(x[t], state, resets[t])
        steps.append(y)
    assert torch.allclose(core.sequence(x, state0, resets), torch.stack(steps), atol=1e-5)


def test_reset_forgets_the_past():
    torch.manual_seed(2)
    core = MinGRUCore(4)
    x = torch.randn(1, 2, 4)
    resets = torch.ones(1, 2, dtype=torch.bool)
    a = core.sequence(x, (torch.randn(2, 4),), resets)
    b = core.sequence(x, (torch.zeros(2, 4),), resets)
    assert torch.equal(a, b)
