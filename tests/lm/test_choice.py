"""LineScorer's packed scores equal one forward pass per candidate; the choice policy samples and argmaxes."""

import numpy as np
import pytest
import torch

from sparring.lm.choice import LineScorer, choose, choose_lines


def _separately(scorer, prompt, cand):
    """The candidate's summed log-probability from an ordinary forward pass over prompt + candidate."""
    ids = torch.tensor([prompt + cand])
    with torch.inference_mode():
        logp = torch.log_softmax(scorer.model(ids).logits[0].float(), -1)
    return sum(logp[len(prompt) - 1 + j, t].item() for j, t in enumerate(cand))


def test_packed_scores_match_separate_passes(tiny_model):
    scorer = LineScorer(tiny_model.model, tiny_model.tokenizer)
    prompts = [scorer.prompt_ids("go to the farm or sleep?"), scorer.prompt_ids("wait")]
    cands = [[scorer.line_ids(x) for x in ("1: go to the farm", "7: sleep", "0: wait")], [scorer.line_ids("0: wait")]]
    with torch.inference_mode():
        packed = scorer.scores(prompts, cands)
    assert [len(s) for s in packed] == [3, 1]
    for p, cs, got in zip(prompts, cands, packed):
        assert np.allclose(got.numpy(), [_separately(scorer, p, c) for c in cs], atol=1e-4)


def test_passes_of_similar_lengths_keep_the_scores_and_their_order(tiny_model):
    scorer = LineScorer(tiny_model.model, tiny_model.tokenizer)
    texts = ["a much longer question about going to the farm, the well or the tavern today?", "wait", "sleep?"]
    prompts = [scorer.prompt_ids(t) for t in texts]
    cands = [
        [scorer.line_ids(x) for x in lines]
        for lines in (("1: go to the farm", "0: wait"), ("0: wait",), ("7: sleep", "0: wait", "2: go to the well"))
    ]
    with torch.inference_mode():
        one_pass = scorer.scores(prompts, cands, max_tokens=10**9)
        one_each = scorer.scores(prompts, cands, max_tokens=1)
    assert [len(s) for s in one_each] == [2, 1, 3]
    for a, b in zip(one_pass, one_each):
        assert np.allclose(a.numpy(), b.numpy(), atol=1e-5)


def test_choose_is_argmax_at_zero_and_samples_by_probability():
    rng = np.random.default_rng(0)
    assert choose([0.0, 3.0, 1.0], 0.0, rng) == (1, 0.0)
    picks = [choose(np.log([0.2, 0.8]), 1.0, rng) for _ in range(2000)]
    assert abs(np.mean([k for k, _ in picks]) - 0.8) < 0.04
    assert all(np.isclose(lp, np.log([0.2, 0.8])[k]) for k, lp in picks)


def test_prompts_too_long_for_the_context_are_not_chosen(tiny_model):
    scorer = LineScorer(tiny_model.model, tiny_model.tokenizer, system="")  # the tiny context is 96 tokens
    picked = choose_lines(
        scorer, ["wait", "wait " * 200], [["0: wait", "7: sleep"], ["0: wait"]], 0.0, np.random.default_rng(0)
    )
    assert picked.index[0] in (0, 1) and picked.index[1] == -1 and picked.tokens > 0
    with pytest.raises(ValueError, match="non-empty candidate list"):
        scorer.pack([[1, 2]], [[]])
