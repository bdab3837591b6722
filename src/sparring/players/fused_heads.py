"""Masked multi-discrete heads in one compiled pass per call, for CPU tensors.

The same distributions as :class:`~sparring.players.heads.MaskedHeads` (a softmax per head over
its legal actions), computed on the flat logits ``[B, sum(sizes)]`` without the padded grid:
per row and head one pass finds the legal maximum, one sums the exponentials, one writes the
log-probabilities. On CPU the grid's torch calls cost more than the policy's matrix products at
the trainer's shapes (``log_softmax`` over a last dimension of 13 runs at about 15 ns an element
here, the exponential of a masked ``-1e9`` several times slower than of a finite logit), so the
rollout samples and the PPO update scores actions here instead (``Policy`` picks this path for
CPU tensors; other devices keep the grid).

- :func:`sample` draws each head's action by inverse CDF from one uniform per head
  (``torch.rand``, so torch's seed makes it reproducible), and returns the joint log-probability;
- :func:`log_prob_entropy` is an autograd function: the joint log-probability of given actions
  and the summed head entropy, with their gradient to the logits in a second compiled pass.

A head whose mask allows nothing (the checker rejects such an env) plays 0 with log-probability
0 and entropy 0 instead of producing NaN.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from numba import njit


@njit(cache=True, error_model="numpy", nogil=True)
def _head_max(logits, mask, b, lo, hi):
    m = np.float32(-np.inf)
    for j in range(lo, hi):
        if mask[b, j] and logits[b, j] > m:
            m = logits[b, j]
    return m


@njit(cache=True, error_model="numpy", nogil=True)
def _sample_rows(logits, mask, starts, uniform, actions, logp):
    rows, heads = uniform.shape
    for b in range(rows):
        total = np.float32(0.0)
        for h in range(heads):
            lo, hi = starts[h], starts[h + 1]
            m = _head_max(logits, mask, b, lo, hi)
            if m == -np.inf:
                actions[b, h] = 0
                continue
            s = np.float32(0.0)
            for j in range(lo, hi):
                if mask[b, j]:
                    s += math.exp(logits[b, j] - m)
            threshold = uniform[b, h] * s
            acc, pick = np.float32(0.0), -1
            for j in range(lo, hi):
                if mask[b, j]:
                    acc += math.exp(logits[b, j] - m)
                    pick = j
                    if acc > threshold:
                        break
            actions[b, h] = pick - lo
            total += logits[b, pick] - m - np.float32(math.log(s))
        logp[b] = total


@njit(cache=True, error_model="numpy", nogil=True)
def _score_rows(logits, mask, starts, actions, prob, logprob, head_entropy, chosen, entropy):
    rows, heads = actions.shape
    for b in range(rows):
        picked, ent = np.float32(0.0), np.float32(0.0)
        for h in range(heads):
            lo, hi = starts[h], starts[h + 1]
            m = _head_max(logits, mask, b, lo, hi)
            s = np.float32(0.0)
            for j in range(lo, hi):
                if mask[b, j]:
                    e = np.float32(math.exp(logits[b, j] - m))
                    prob[b, j] = e
                    s += e
                else:
                    prob[b, j] = 0.0
            eh = np.float32(0.0)
            if m != -np.inf:
                log_s, inv = np.float32(math.log(s)), np.float32(1.0) / s
                for j in range(lo, hi):
                    if mask[b, j]:
                        lp = logits[b, j] - m - log_s
                        q = prob[b, j] * inv
                        logprob[b, j], prob[b, j] = lp, q
                        eh -= q * lp
                    else:
                        logprob[b, j] = 0.0
                a = lo + actions[b, h]
                if lo <= a < hi and mask[b, a]:
                    picked += logprob[b, a]
            else:
                for j in range(lo, hi):
                    logprob[b, j] = 0.0
            head_entropy[b, h] = eh
            ent += eh
        chosen[b], entropy[b] = picked, ent


@njit(cache=True, error_model="numpy", nogil=True)
def _score_grad(grad_logp, grad_ent, starts, actions, mask, prob, logprob, head_entropy, out):
    # d logp_a / d z_j = [j == a] - p_j;  d H / d z_j = -p_j (log p_j + H)  (per head; p_j = 0 where masked)
    rows, heads = actions.shape
    for b in range(rows):
        gl, ge = grad_logp[b], grad_ent[b]
        for h in range(heads):
            lo, hi = starts[h], starts[h + 1]
            eh = head_entropy[b, h]
            for j in range(lo, hi):
                q = prob[b, j]
                out[b, j] = -gl * q - ge * q * (logprob[b, j] + eh)
            a = lo + actions[b, h]
            if lo <= a < hi and mask[b, a]:
                out[b, a] += gl


def head_starts(sizes) -> np.ndarray:
    """Offsets of each head in the flat logits, with the total last: [0, s0, s0 + s1, ..., sum]."""
    return np.concatenate([[0], np.cumsum(np.asarray(sizes, np.int64))]).astype(np.int64)


def _np(tensor: torch.Tensor, dtype) -> np.ndarray:
    return np.ascontiguousarray(tensor.detach().numpy(), dtype)


def sample(logits: torch.Tensor, mask: torch.Tensor, starts: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions [B, heads] (int64) and their joint log-probability [B] from flat CPU ``logits`` [B, total]."""
    rows, heads = logits.shape[0], len(starts) - 1
    uniform = torch.rand(rows, heads)
    actions = np.empty((rows, heads), np.int64)
    logp = np.empty(rows, np.float32)
    _sample_rows(_np(logits, np.float32), _np(mask, np.bool_), starts, uniform.numpy(), actions, logp)
    return torch.from_numpy(actions), torch.from_numpy(logp)


class _Score(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, mask, actions, starts):
        flat = _np(logits, np.float32)
        rows, total = flat.shape
        heads = len(starts) - 1
        prob, logprob = np.empty((rows, total), np.float32), np.empty((rows, total), np.float32)
        head_entropy = np.empty((rows, heads), np.float32)
        chosen, entropy = np.empty(rows, np.float32), np.empty(rows, np.float32)
        acts, allowed = _np(actions, np.int64), _np(mask, np.bool_)
        _score_rows(flat, allowed, starts, acts, prob, logprob, head_entropy, chosen, entropy)
        ctx.kept = (starts, acts, allowed, prob, logprob, head_entropy)
        return torch.from_numpy(chosen), torch.from_numpy(entropy)

    @staticmethod
    def backward(ctx, grad_logp, grad_ent):
        starts, acts, allowed, prob, logprob, head_entropy = ctx.kept
        rows = prob.shape[0]
        gl = np.zeros(rows, np.float32) if grad_logp is None else _np(grad_logp, np.float32)
        ge = np.zeros(rows, np.float32) if grad_ent is None else _np(grad_ent, np.float32)
        out = np.empty_like(prob)
        _score_grad(gl, ge, starts, acts, allowed, prob, logprob, head_entropy, out)
        return torch.from_numpy(out), None, None, None


def log_prob_entropy(
    logits: torch.Tensor, mask: torch.Tensor, actions: torch.Tensor, starts: np.ndarray
) -> tuple[torch.Tensor, torch.Tensor]:
    """Joint log-probability of ``actions`` [B, heads] and the summed head entropy, both [B], differentiable in
    the flat CPU ``logits`` [B, total]."""
    return _Score.apply(logits, mask, actions, starts)
