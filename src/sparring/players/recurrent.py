"""Recurrent cores: LSTM, and MinGRU.

Both expose the same two forms: ``step`` for rollouts (one tick, batch of
rows) and ``sequence`` for training (a [T, B] slab whose rows restart where
``resets`` is true). A state is a tuple of [B, hidden] tensors; a reset zeroes
it before the tick that starts a new episode.

Resets fall mid-sequence in most rows of a training minibatch (on squared, some row
resets in nearly every tick of a 128-row minibatch), so a fused whole-sequence call
cannot take them: ``sequence`` unrolls ticks, splitting the slab with ``unbind``
(indexing ``x[t]`` costs a zero-filled [T, B, hidden] gradient per tick in the
backward pass).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def _keep(state: tuple[torch.Tensor, ...], reset: torch.Tensor) -> tuple[torch.Tensor, ...]:
    keep = (~reset).unsqueeze(-1).to(state[0].dtype)
    return tuple(s * keep for s in state)


class LSTMCore(nn.Module):
    """An LSTM; rollouts step it by torch's fused LSTM (oneDNN on CPU, cuDNN on CUDA).

    The weights are an ``nn.LSTMCell``'s (so saved policies keep their names). A rollout tick is one
    call of ``torch.lstm`` (what ``nn.LSTM`` runs) over a length-1 sequence, which on CPU is faster
    than ``nn.LSTMCell`` for a batch of a thousand rows.
    """

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
        cell = self.cell
        weights = [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh]
        hx = (state[0].unsqueeze(0), state[1].unsqueeze(0))
        _, h, c = torch.lstm(x.unsqueeze(0), hx, weights, True, 1, 0.0, self.training, False, False)
        return h[0], (h[0], c[0])

    def sequence(self, x: torch.Tensor, state, resets: torch.Tensor):
        """``x`` [T, B, hidden], ``resets`` [T, B] bool -> outputs [T, B, hidden].

        Every tick's input term in one product, then per tick the recurrent product and the gates:
        the same function as ``step``, which, called per tick in training, measured no faster with
        128-row minibatches and slower with 64.
        """
        cell = self.cell
        inputs = F.linear(x, cell.weight_ih, cell.bias_ih + cell.bias_hh)
        recurrent = cell.weight_hh.t()
        keep = (~resets).unsqueeze(-1).to(x.dtype)
        h, c = state
        outs = []
        for input_t, keep_t in zip(inputs.unbind(0), keep.unbind(0)):
            h, c = h * keep_t, c * keep_t
            i, f, g, o = torch.addmm(input_t, h, recurrent).chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outs.append(h)
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


def linear_loop(a: torch.Tensor, b: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
    """The same h_t as :func:`linear_scan`, tick by tick.

    On CPU this is the faster form: each tick touches one [B, H] slab that stays in cache, while
    every doubling step of the scan reads and writes the whole [T, B, H] (and its backward
    allocates zero-filled ones per slice).
    """
    h, outs = h0, []
    for a_t, b_t in zip(a.unbind(0), b.unbind(0)):
        h = torch.addcmul(b_t, a_t, h)
        outs.append(h)
    return torch.stack(outs)


class MinGRUCore(nn.Module):
    """MinGRU (Feng et al. 2024): h_t = (1 - z_t) h_{t-1} + z_t g(x_t); gates depend on x only.

    Training computes every tick's gates in one product, then the linear recurrence: tick by tick
    on CPU (:func:`linear_loop`), by the parallel scan (:func:`linear_scan`) on other devices.
    """

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
        h = torch.addcmul(b, a, state[0])
        return h, (h,)

    def sequence(self, x: torch.Tensor, state, resets: torch.Tensor):
        """``x`` [T, B, hidden], ``resets`` [T, B] bool -> outputs [T, B, hidden]."""
        a, b = self._coefficients(x)
        a = a * (~resets).unsqueeze(-1).to(a.dtype)
        recurrence = linear_loop if x.device.type == "cpu" else linear_scan
        return recurrence(a, b, state[0])


CORES = {"lstm": LSTMCore, "mingru": MinGRUCore}
