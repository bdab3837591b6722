"""LocalLMBrain with the tiny model folder: answers, parsing, fallbacks and counts."""

import numpy as np
import pytest
import torch

from sparring.lm import LocalLMBrain, Observations


def _batch(texts, actions=4):
    n = len(texts)
    mask = np.ones((n, actions), bool)
    return Observations(np.arange(n), list(texts), np.zeros((n, 2), np.float32), mask, (actions,))


def test_local_brain_answers_in_batches_and_counts(tiny_model):
    seen = {}

    def parse(text, batch, i):
        seen[i] = text
        return None if i == 1 else 3

    # sampled with a seed: the untrained tiny model's greedy answers are all special tokens (empty)
    brain = LocalLMBrain(
        tiny_model, parse, safe_action=0, system="act", max_tokens=3, batch_size=2, temperature=1.0, seed=11
    )
    texts = ["go to the farm", "eat 1 bread", "talk to Ben"]
    assert brain.decide(_batch(texts)).tolist() == [[3], [0], [3]]
    convs = [brain.messages(t) for t in texts]
    torch.manual_seed(11)  # the same draws, made the same way: chunks of two
    expected = tiny_model.chat(convs[:2], 3, temperature=1.0) + tiny_model.chat(convs[2:], 3, temperature=1.0)
    assert [seen[i] for i in range(3)] == [c.text for c in expected] == brain.last_answers and all(seen.values())
    stats = brain.stats
    assert (stats.turns, stats.parsed, stats.unparseable, stats.failed) == (3, 2, 1, 0)
    assert stats.prompt_tokens == sum(c.prompt_tokens for c in expected)
    assert stats.completion_tokens == sum(c.completion_tokens for c in expected)
    assert brain.reset_stats() is stats and brain.stats.turns == 0


def test_prompts_too_long_for_the_context_fail_alone(tiny_model):
    brain = LocalLMBrain(tiny_model, lambda text, batch, i: 1, safe_action=2, system="act", max_tokens=4)
    assert brain.decide(_batch(["wait", "farm " * 200, "sleep"])).tolist() == [[1], [2], [1]]
    assert (brain.stats.failed, brain.stats.parsed) == (1, 2)
    assert "do not fit the model's context of 96 tokens" in brain.stats.last_error


def test_bad_settings_are_refused(tiny_model):
    with pytest.raises(ValueError, match="max_tokens >= 1"):
        LocalLMBrain(tiny_model, lambda *a: 0, 0, max_tokens=0)
    with pytest.raises(ValueError, match="safe_action must be an int or one int per action head"):
        LocalLMBrain(tiny_model, lambda *a: 0, [[0]])
