"""Recurrent cores: LSTM, and MinGRU with a parallel scan for training.

Both expose the same two forms: ``step`` for rollouts (one tick, batch of
rows) and ``sequence`` for training (a [T, B] slab whose rows restart where
``resets`` is true). A state is a tuple of [B, hidden] tensors; a reset zeroes
it before the tick that starts a new episode.
"""

from __future__ import annotations

import torch
from torch import nn


def _keep(state: tuple[torch.Tensor, ...], reset: torch.Tensor) -> tuple[torch.Tensor, ...]:
    keep = (~reset).unsqueeze(-1).to(state[0].dtype)
    return tuple(s * keep for s in state)


class LSTMCore(nn.Module):
    """An LSTM cell unrolled step by step (the reset mask breaks cuDNN-style fused sequences)."""

    def __init__(self, hidden: int):
        super().__init__()
        self.hidden = hidden
        self.cell = nn.LSTMCell(hidden, hidden)
        for name, p in self.cell.named_parameters():
            if "bias" in name:
                nn.init.zeros_(p)
            else:
                nn.init.orthogonal_(p, 1.0)

    def initial_state(self, batch: int, device=None) -> tuple[torch.Tensor, torch.Tensor]:
        """Zeros (h, c)."""
        z = torch.zeros(batch, self.hidden, device=device)
        return z, z.clone()

    def step(self, x: torch.Tensor, state, reset: torch.Tensor | None = None):
        """One tick: ``x`` [B, hidden] -> (output [B, hidden], new state)."""
        if reset is not None:
            state = _keep(state, reset)
        h, c = self.cell(x, state)
        return h, (h, c)

    def sequence(self, x: torch.Tensor, state, resets: torch.Tensor):
        """``x`` [T, B, hidden], ``resets`` [T, B] bool -> outputs [T, B, hidden]."""
        outs = []
        for t in range(x.shape[0]):
            y, state = self.step(x[t], state, resets[t])
            outs.append(y)
        return torch.stack(outs)


def linear_scan(a: torch.Tensor, b: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
    """All h_t of h_t = a_t * h_{t-1} + b_t for [T, B, H] inputs, in log2(T) parallel steps.

    Hillis-Steele doubling: after the step with offset d, (a_t, b_t) composes the
    recurrence over ticks t-2d+1..t. Exact with a_t = 0 (episode resets), unlike a
    log-space cumulative sum.
    """
    b = torch.cat([h0.unsqueeze(0), b], 0)
    a = torch.cat([torch.zeros_like(h0).unsqueeze(0), a], 0)
    offset = 1
    while offset < b.shape[0]:
        b = torch.cat([b[:offset], b[offset:] + a[offset:] * b[:-offset]], 0)
        a = torch.cat([a[:offset], a[offset:] * a[:-offset]], 0)
        offset *= 2
    return b[1:]


class MinGRUCore(nn.Module):
    """MinGRU (Feng et al. 2024): h_t = (1 - z_t) h_{t-1} + z_t g(x_t); gates depend on x only."""

    def __init__(self, hidden: int):
        super().__init__()
        self.hidden = hidden
        self.gates = nn.Linear(hidden, 2 * hidden)
        nn.init.orthogonal_(self.gates.weight, 1.0)
        nn.init.zeros_(self.gates.bias)

    def initial_state(self, batch: int, device=None) -> tuple[torch.Tensor]:
        """Zeros (h,)."""
        return (torch.zeros(batch, self.hidden, device=device),)

    def _coefficients(self, x: torch.Tensor):
        z_logit, candidate = self.gates(x).chunk(2, -1)
        z = torch.sigmoid(z_logit)
        return 1.0 - z, z * candidate

    def step(self, x: torch.Tensor, state, reset: torch.Tensor | None = None):
        """One tick: ``x`` [B, hidden] -> (output [B, hidden], new state)."""
        if reset is not None:
            state = _keep(state, reset)
        a, b = self._coefficients(x)
        h = a * state[0] + b
        return h, (h,)

    def sequence(self, x: torch.Tensor, state, resets: torch.Tensor):
        """``x`` [T, B, hidden], ``resets`` [T, B] bool -> outputs [T, B, hidden] by a parallel scan."""
        a, b = self._coefficients(x)
        a = a * (~resets).unsqueeze(-1).to(a.dtype)
        return linear_scan(a, b, state[0])


CORES = {"lstm": LSTMCore, "mingru": MinGRUCore}
