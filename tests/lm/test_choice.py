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


def test_the_shared_head_keeps_the_scores_of_the_plain_pass(tiny_model):
    scorer = LineScorer(tiny_model)  # a LocalModel: its model and tokenizer
    plain = LineScorer(tiny_model.model, tiny_model.tokenizer, share_prefix=False)
    texts = ["go to the farm or sleep?", "wait", "eat 1 bread or talk to Ben"]
    lines = [("1: go to the farm", "7: sleep", "0: wait"), ("0: wait", "7: sleep"), ("2: eat bread", "3: talk to Ben")]
    prompts = [scorer.prompt_ids(t) for t in texts]
    cands = [[scorer.line_ids(x) for x in ls] for ls in lines]
    head = scorer.head()
    assert head and all(p[: len(head)] == head for p in prompts)
    assert scorer.pack(prompts, cands).prefix == len(head) and plain.pack(prompts, cands).prefix == 0
    with torch.inference_mode():
        want = plain.scores(prompts, cands)
        for _ in range(2):  # the second call reads the head's kept keys and values
            got = scorer.scores(prompts, cands)
            for a, b, p, cs in zip(got, want, prompts, cands):
                assert np.allclose(a.numpy(), b.numpy(), atol=1e-5)
                assert np.allclose(a.numpy(), [_separately(scorer, p, c) for c in cs], atol=1e-4)
    with_grad = scorer.scores(prompts, cands)  # under gradients: the head is read in the graph
    with_grad[0].sum().backward()
    assert all(np.allclose(a.detach().numpy(), b.numpy(), atol=1e-5) for a, b in zip(with_grad, want))
    assert tiny_model.model.get_input_embeddings().weight.grad is not None
    tiny_model.model.zero_grad()


def test_kept_head_is_dropped_when_the_weights_change(tiny_folder):
    from sparring.lm.local import load_local

    local = load_local(tiny_folder)
    scorer = LineScorer(local)
    prompts, cands = [scorer.prompt_ids("wait")], [[scorer.line_ids("0: wait"), scorer.line_ids("7: sleep")]]
    with torch.inference_mode():
        before = scorer.scores(prompts, cands)[0]
    with torch.no_grad():
        for p in local.model.parameters():
            p.mul_(1.5)
    with torch.inference_mode():
        after = scorer.scores(prompts, cands)[0]
        fresh = LineScorer(local, share_prefix=False).scores(prompts, cands)[0]
    assert not np.allclose(before.numpy(), after.numpy(), atol=1e-4)
    assert np.allclose(after.numpy(), fresh.numpy(), atol=1e-5)


def _as_before(tiny_model, picked, seed: int):
    """The old way: every prompt scored by the plain pass, each drawing once from one rng, in size order."""
    plain = LineScorer(tiny_model, system="", share_prefix=False)
    with torch.inference_mode():
        scored = plain.scores(picked.prompts, picked.lines)
    size = [len(p) + sum(len(c) for c in cs) for p, cs in zip(picked.prompts, picked.lines)]
    rng = np.random.default_rng(seed)
    want = {i: choose(scored[i].numpy(), 1.0, rng) for i in sorted(range(len(size)), key=size.__getitem__)}
    return [want[i][0] for i in range(len(size))], [want[i][1] for i in range(len(size))]


def test_single_lines_are_not_scored_and_draw_as_before(tiny_model):
    scorer = LineScorer(tiny_model, system="")  # the tiny context is 96 tokens
    texts, lines = ["wait", "sleep?", "go"], [["0: wait"], ["0: wait", "7: sleep"], ["0: wait"]]
    picked = choose_lines(scorer, texts, lines, 1.0, np.random.default_rng(3))
    assert picked.index[0] == picked.index[2] == 0 and picked.logp[0] == picked.logp[2] == 0.0
    assert picked.tokens == len(picked.prompts[1]) + sum(len(c) for c in picked.lines[1])
    index, logp = _as_before(tiny_model, picked, 3)
    assert picked.index == index and np.allclose(picked.logp, logp, atol=1e-5)


def test_repeated_prompts_are_scored_once_and_each_draws_as_before(tiny_model):
    scorer = LineScorer(tiny_model, system="")
    texts, lines = ["sleep?"] * 6 + ["wait"], [["0: wait", "7: sleep"]] * 7
    picked = choose_lines(scorer, texts, lines, 1.0, np.random.default_rng(5))
    one = [len(picked.prompts[i]) + sum(len(c) for c in picked.lines[i]) for i in (0, 6)]
    assert picked.tokens == sum(one)
    index, logp = _as_before(tiny_model, picked, 5)
    assert picked.index == index and np.allclose(picked.logp, logp, atol=1e-5)


@pytest.mark.parametrize("kind", ["qwen3", "gemma3_text", "gpt_neox"])
def test_other_architectures_score_as_their_own_forward_pass(tiny_model, kind):
    from transformers import AutoConfig, AutoModelForCausalLM

    tok = tiny_model.tokenizer
    sizes = dict(hidden_size=32, intermediate_size=64, num_attention_heads=2, num_hidden_layers=2)
    if kind != "gpt_neox":
        sizes.update(num_key_value_heads=1, head_dim=16)
    if kind == "gemma3_text":
        sizes.update(final_logit_softcapping=5.0, sliding_window=512)
    torch.manual_seed(0)
    config = AutoConfig.for_model(kind, vocab_size=len(tok), max_position_embeddings=256, **sizes)
    model = AutoModelForCausalLM.from_config(config).eval()
    scorer, plain = LineScorer(model, tok, system=""), LineScorer(model, tok, system="", share_prefix=False)
    prompts = [scorer.prompt_ids("go to the farm or sleep?"), scorer.prompt_ids("wait")]
    cands = [[scorer.line_ids(x) for x in ("1: go to the farm", "7: sleep")], [scorer.line_ids("0: wait")] * 2]
    with torch.inference_mode():
        shared, packed = scorer.scores(prompts, cands), plain.scores(prompts, cands)
    for p, cs, a, b in zip(prompts, cands, shared, packed):
        want = [_separately(scorer, p, c) for c in cs]
        assert np.allclose(a.numpy(), want, atol=1e-4) and np.allclose(b.numpy(), want, atol=1e-4)


def test_lines_sharing_a_prefix_are_read_once_and_score_as_separate_passes(tiny_model):
    from sparring.lm.choice import line_trie

    scorer = LineScorer(tiny_model)
    prompt = scorer.prompt_ids("what now?")
    lines = ["offer 1 bread to Ben for 1 coins", "offer 1 bread to Ben for 2 coins", "offer 1 bread", "wait"]
    cands = [scorer.line_ids(x) for x in lines]
    trie = line_trie(cands)
    shared = len(cands[0]) - 2  # the first two lines differ in their last two tokens at most
    assert len(trie.tokens) <= sum(map(len, cands)) - shared
    assert all([trie.tokens[q] for q in path] == c for path, c in zip(trie.paths, cands))
    with torch.inference_mode():
        got = scorer.scores([prompt, prompt], [cands, cands[::-1]])
    want = [_separately(scorer, prompt, c) for c in cands]
    assert np.allclose(got[0].numpy(), want, atol=1e-4) and np.allclose(got[1].numpy(), want[::-1], atol=1e-4)
