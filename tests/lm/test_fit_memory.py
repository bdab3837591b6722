"""Distillation's memory: passes of a microbatch, recomputed layers, the check before the first step, the peak."""

import numpy as np
import pytest
import torch

from sparring.lm.choice import LineScorer
from sparring.lm.distill import DistillConfig, backward_in_passes, choice_loss, collect_turns, distill
from sparring.lm.fit_memory import pass_bytes, recompute_layers
from sparring.lm.model import ModelSize, build_model, train_tokenizer


@pytest.fixture(scope="module")
def turns():
    return collect_turns("scripted:planner", 1, seed=4, days=1)[:6]


def _scorer(turns, seed=0):
    tok = train_tokenizer([line for s in turns for line in s.turn.text.split("\n")], 400)
    torch.manual_seed(seed)
    return LineScorer(build_model(tok, ModelSize(32, 2, 2, 64, 2048)), tok)


def _grads(scorer):
    return torch.cat([p.grad.flatten() for p in scorer.model.parameters() if p.grad is not None])


def _one_pass_grads(scorer, turns):
    """The gradient of one pass over ``turns`` (the model in training mode, its gradients zeroed after)."""
    scorer.model.train()
    choice_loss(scorer, turns).backward()
    grads = _grads(scorer)
    scorer.model.zero_grad(set_to_none=True)
    return grads


def test_passes_of_a_microbatch_add_up_to_one_pass_over_the_batch(turns):
    scorer = _scorer(turns)
    whole = _one_pass_grads(scorer, turns)
    heard = []
    loss = backward_in_passes(scorer, turns, microbatch=4, passed=heard.append)  # a pass of 4 turns and one of 2
    assert heard == [4, 6]
    assert loss == pytest.approx(choice_loss(scorer, turns).item(), rel=1e-5)
    assert torch.allclose(_grads(scorer), whole, rtol=1e-4, atol=1e-6)


def test_recomputed_layers_give_the_same_gradient_without_the_heads_cache(turns):
    scorer = _scorer(turns)
    kept = _one_pass_grads(scorer, turns)
    recompute_layers(scorer.model)
    scorer.share_prefix = False  # a recomputed layer drops a cache: distill's fit reads the head in every row
    choice_loss(scorer, turns).backward()
    assert torch.allclose(_grads(scorer), kept, rtol=1e-4, atol=1e-6)


def test_recomputing_keeps_a_fraction_of_the_activations():
    class SmolLM2:  # SmolLM2-135M's sizes
        hidden_size, intermediate_size, num_hidden_layers, vocab_size = 576, 1536, 30, 49152

    town_turn = [(650, 150)]
    kept, recomputed = pass_bytes(SmolLM2, town_turn, False), pass_bytes(SmolLM2, town_turn, True)
    assert 0.6 * 2**30 < kept < 1.2 * 2**30  # measured: 0.68 GiB a turn (the module's docstring)
    assert recomputed < kept / 5
    assert pass_bytes(SmolLM2, town_turn * 4, False) == pytest.approx(4 * kept, rel=0.01)


def test_a_run_that_cannot_fit_is_refused_before_its_first_step_naming_the_microbatch(tmp_path, monkeypatch):
    monkeypatch.setattr("sparring.kit.memory.available_memory", lambda: 1 << 20)  # the tiny model fits, a pass not
    cfg = DistillConfig(episodes=2, held_out=0.5, steps=1, batch_size=2, hidden=32, layers=1, heads=2,
                        intermediate=64, vocab=300, threads=1)  # fmt: skip
    with pytest.raises(ValueError, match=r"passes of 4 turns \(--microbatch 4\) needs about .* lower --microbatch"):
        distill(str(tmp_path / "out"), cfg, days=1)
    assert not (tmp_path / "out").exists()


def test_the_report_holds_the_peak_resident_memory(town_model):
    _, report = town_model
    assert 50 << 20 < report["peak_memory"] < 64 << 30 and np.isfinite(report["seconds"])
