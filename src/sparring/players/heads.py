"""Multi-discrete action heads with the env's action mask applied to the logits.

All heads are laid out on one padded grid ``[batch, heads, widest]`` so that
sampling, log-probabilities and entropy are one torch call each whatever the
number of heads. Forbidden actions and padding get a logit of ``MASKED``:
their probability is exactly 0 in float32, so they are never sampled.
"""

from __future__ import annotations

import numpy as np
import torch

MASKED = -1e9


class MaskedHeads:
    """Turns flat logits [B, sum(sizes)] and a flat mask into per-head distributions."""

    def __init__(self, sizes: np.ndarray):
        self.sizes = [int(s) for s in sizes]
        self.total = sum(self.sizes)
        self.widest = max(self.sizes)
        # Index into the flat logits extended by one always-masked slot (index total) for padding.
        index = np.full((len(self.sizes), self.widest), self.total, np.int64)
        start = 0
        for h, size in enumerate(self.sizes):
            index[h, :size] = np.arange(start, start + size)
            start += size
        self.uniform = all(s == self.widest for s in self.sizes)
        self._index = torch.from_numpy(index.reshape(-1))

    def to(self, device: torch.device) -> "MaskedHeads":
        """Move the padding index to ``device``."""
        self._index = self._index.to(device)
        return self

    def grid(self, logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked logits on the padded grid [B, heads, widest]."""
        masked = torch.where(mask, logits, MASKED)
        if not self.uniform:
            pad = masked.new_full((masked.shape[0], 1), MASKED)
            masked = torch.cat([masked, pad], 1).index_select(1, self._index)
        return masked.view(masked.shape[0], len(self.sizes), self.widest)

    @staticmethod
    def sample(grid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Actions [B, heads] (int64) and their joint log-probability [B].

        Gumbel-max (argmax of logits minus log of Exp(1) noise) samples exactly from the
        softmax and is cheaper than multinomial on CPU; masked logits never win.
        """
        noise = torch.empty_like(grid).exponential_().log_()
        actions = (grid - noise).argmax(-1)
        logp = torch.log_softmax(grid, -1)
        return actions, logp.gather(-1, actions.unsqueeze(-1)).squeeze(-1).sum(-1)

    @staticmethod
    def greedy(grid: torch.Tensor) -> torch.Tensor:
        """The most likely legal action of every head [B, heads]."""
        return grid.argmax(-1)

    @staticmethod
    def log_prob_entropy(grid: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Joint log-probability of ``actions`` [B, heads] and the summed head entropy, both [B]."""
        logp = torch.log_softmax(grid, -1)
        chosen = logp.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1).sum(-1)
        entropy = -(logp.exp() * logp).sum(-1).sum(-1)
        return chosen, entropy
