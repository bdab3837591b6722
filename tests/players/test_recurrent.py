"""Recurrent cores: the training form (scan / loop / unroll) equals the rollout's step form, resets and gradients
included."""

import pytest
import torch

from sparring.players.recurrent import LSTMCore, MinGRUCore, linear_loop, linear_scan


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


def test_the_loop_and_the_scan_agree_on_values_and_gradients():
    torch.manual_seed(3)
    a, b, h0 = torch.rand(37, 5, 6), torch.randn(37, 5, 6), torch.randn(5, 6)
    a[torch.rand(37, 5) < 0.1] = 0.0
    results = []
    for form in (linear_loop, linear_scan):
        leaves = [t.clone().requires_grad_() for t in (a, b, h0)]
        out = form(*leaves)
        out.pow(2).sum().backward()
        results.append((out.detach(), *(t.grad for t in leaves)))
    for loop, scan in zip(*results):
        assert torch.allclose(loop, scan, atol=1e-5)


@pytest.mark.parametrize("core_cls", [LSTMCore, MinGRUCore])
def test_sequence_gradients_equal_the_steps_gradients(core_cls):
    """The backward pass through ``sequence`` is the one through the rollout's ticks, across resets."""
    torch.manual_seed(4)
    core = core_cls(8)
    x = torch.randn(24, 5, 8)
    resets = torch.rand(24, 5) < 0.2
    state0 = tuple(torch.randn(5, 8) for _ in core.initial_state(5))
    grads = []
    for unrolled in (False, True):
        core.zero_grad()
        xs = x.clone().requires_grad_()
        if unrolled:
            state, outs = state0, []
            for t in range(24):
                y, state = core.step(xs[t], state, resets[t])
                outs.append(y)
            out = torch.stack(outs)
        else:
            out = core.sequence(xs, state0, resets)
        (out * torch.linspace(-1, 1, 8)).sum().backward()
        grads.append([xs.grad, *(p.grad.clone() for p in core.parameters())])
    for seq, steps in zip(*grads):
        assert torch.allclose(seq, steps, atol=1e-5)


def test_reset_forgets_the_past():
    torch.manual_seed(2)
    core = MinGRUCore(4)
    x = torch.randn(1, 2, 4)
    resets = torch.ones(1, 2, dtype=torch.bool)
    a = core.sequence(x, (torch.randn(2, 4),), resets)
    b = core.sequence(x, (torch.zeros(2, 4),), resets)
    assert torch.equal(a, b)
