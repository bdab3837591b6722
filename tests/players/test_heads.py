"""Masked multi-discrete heads: forbidden actions are never sampled; log-probs and entropy are right."""

import numpy as np
import torch

from sparring.players.heads import MaskedHeads


def random_masks(rng, batch, sizes):
    parts = []
    for size in sizes:
        m = rng.random((batch, size)) < 0.4
        m[np.arange(batch), rng.integers(0, size, batch)] = True  # at least one legal value per head
        parts.append(m)
    return torch.from_numpy(np.concatenate(parts, 1))


def test_sampling_never_picks_a_masked_action():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    sizes = [4, 7, 2]
    heads = MaskedHeads(np.array(sizes))
    for _ in range(20):
        mask = random_masks(rng, 512, sizes)
        logits = torch.randn(512, sum(sizes)) * 5
        logits[:, :4] += 30 * (~mask[:, :4])  # the forbidden actions are the most tempting ones
        actions, _ = heads.sample(heads.grid(logits, mask))
        offsets = np.cumsum([0] + sizes[:-1])
        flat = actions.numpy() + offsets
        assert mask.numpy()[np.arange(512)[:, None], flat].all()


def test_logprob_and_entropy_match_torch_categoricals():
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    sizes = [3, 5]
    heads = MaskedHeads(np.array(sizes))
    mask = random_masks(rng, 64, sizes)
    logits = torch.randn(64, 8)
    grid = heads.grid(logits, mask)
    actions, logp = heads.sample(grid)
    logp2, entropy = heads.log_prob_entropy(grid, actions)
    want_logp, want_ent = torch.zeros(64), torch.zeros(64)
    for h, (lo, size) in enumerate(zip([0, 3], sizes)):
        masked = logits[:, lo : lo + size].masked_fill(~mask[:, lo : lo + size], -float("inf"))
        dist = torch.distributions.Categorical(logits=masked)
        want_logp += dist.log_prob(actions[:, h])
        probs = dist.probs
        want_ent += -(probs * torch.where(probs > 0, probs.log(), torch.zeros_like(probs))).sum(-1)
    assert torch.allclose(logp, want_logp, atol=1e-5) and torch.allclose(logp2, want_logp, atol=1e-5)
    assert torch.allclose(entropy, want_ent, atol=1e-5)


def test_sampling_follows_the_softmax():
    torch.manual_seed(2)
    heads = MaskedHeads(np.array([3]))
    logits = torch.tensor([[0.0, 1.0, 2.0]]).repeat(60000, 1)
    actions, _ = heads.sample(heads.grid(logits, torch.ones(60000, 3, dtype=torch.bool)))
    freq = torch.bincount(actions[:, 0], minlength=3).float() / 60000
    assert torch.allclose(freq, torch.softmax(logits[0], 0), atol=0.01)
