"""The fused CPU heads give the grid's distributions: same log-probs, entropy and gradients; samples follow the
softmax and never pick a masked action; the policy uses them on CPU and the grid when told not to."""

import numpy as np
import torch

from sparring.players import fused_heads
from sparring.players.heads import MaskedHeads
from sparring.players.policy import Policy


def random_masks(rng, batch, sizes):
    parts = []
    for size in sizes:
        m = rng.random((batch, size)) < 0.4
        m[np.arange(batch), rng.integers(0, size, batch)] = True  # at least one legal value per head
        parts.append(m)
    return torch.from_numpy(np.concatenate(parts, 1))


def legal_actions(rng, mask, sizes):
    starts = fused_heads.head_starts(sizes)
    picks = []
    for h, size in enumerate(sizes):
        allowed = mask[:, starts[h] : starts[h + 1]].numpy()
        picks.append([rng.choice(np.flatnonzero(row)) for row in allowed])
    return torch.tensor(np.array(picks).T, dtype=torch.int64)


def test_log_prob_entropy_and_gradients_match_the_grid():
    rng = np.random.default_rng(0)
    sizes = [9, 5, 3, 13, 3]
    heads, starts = MaskedHeads(np.array(sizes)), fused_heads.head_starts(sizes)
    mask = random_masks(rng, 300, sizes)
    actions = legal_actions(rng, mask, sizes)
    logits = (torch.randn(300, sum(sizes)) * 4).requires_grad_()
    w_logp, w_ent = torch.randn(300), torch.randn(300)
    results = []
    for fused in (False, True):
        logits.grad = None
        if fused:
            logp, ent = fused_heads.log_prob_entropy(logits, mask, actions, starts)
        else:
            logp, ent = heads.log_prob_entropy(heads.grid(logits, mask), actions)
        (w_logp * logp + w_ent * ent).sum().backward()
        results.append((logp.detach(), ent.detach(), logits.grad.clone()))
    (want_logp, want_ent, want_grad), (logp, ent, grad) = results
    assert torch.allclose(logp, want_logp, atol=1e-5)
    assert torch.allclose(ent, want_ent, atol=1e-5)
    assert torch.allclose(grad, want_grad, atol=1e-5)
    assert (grad[~mask] == 0).all()  # a masked logit gets no gradient


def test_samples_are_legal_follow_the_softmax_and_report_their_log_prob():
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    sizes = [4, 7, 2]
    heads, starts = MaskedHeads(np.array(sizes)), fused_heads.head_starts(sizes)
    mask = random_masks(rng, 512, sizes)
    logits = torch.randn(512, sum(sizes)) * 5
    logits[:, :4] += 30 * (~mask[:, :4])  # the forbidden actions are the most tempting ones
    actions, logp = fused_heads.sample(logits, mask, starts)
    flat = actions.numpy() + starts[:-1]
    assert mask.numpy()[np.arange(512)[:, None], flat].all()
    want, _ = heads.log_prob_entropy(heads.grid(logits, mask), actions)
    assert torch.allclose(logp, want, atol=1e-4)
    one = torch.tensor([[0.0, 1.0, 2.0]]).repeat(60000, 1)
    picked, _ = fused_heads.sample(one, torch.ones(60000, 3, dtype=torch.bool), fused_heads.head_starts([3]))
    freq = torch.bincount(picked[:, 0], minlength=3).float() / 60000
    assert torch.allclose(freq, torch.softmax(one[0], 0), atol=0.01)


def test_a_head_with_nothing_legal_plays_zero_without_nan():
    starts = fused_heads.head_starts([2, 3])
    mask = torch.tensor([[True, False, False, False, False]])
    logits = torch.zeros(1, 5, requires_grad=True)
    actions, logp = fused_heads.sample(logits.detach(), mask, starts)
    assert actions.tolist() == [[0, 0]] and logp.item() == 0.0
    lp, ent = fused_heads.log_prob_entropy(logits, mask, torch.tensor([[0, 1]]), starts)
    (lp + ent).sum().backward()
    assert lp.item() == 0.0 and ent.item() == 0.0 and torch.isfinite(logits.grad).all()


def test_policy_uses_the_fused_heads_on_cpu_and_the_grid_when_told():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    sizes = [5, 4, 5]
    policy = Policy(12, sizes, hidden=16, layers=1)
    obs, mask = torch.randn(64, 12), random_masks(rng, 64, sizes)
    actions = legal_actions(rng, mask, sizes)
    fused = policy.evaluate(obs, mask, actions)
    policy.fused_heads = False
    grid = policy.evaluate(obs, mask, actions)
    for a, b in zip(fused, grid):
        assert torch.allclose(a, b, atol=1e-5)
    torch.manual_seed(1)
    grid_acts, _, _, _ = policy.act(obs, mask)
    policy.fused_heads = True
    torch.manual_seed(1)
    fused_acts, logp, _, _ = policy.act(obs, mask)
    assert not torch.equal(grid_acts, fused_acts)  # other random numbers: the grid draws Gumbel noise
    assert torch.allclose(logp, policy.evaluate(obs, mask, fused_acts)[0], atol=1e-5)
