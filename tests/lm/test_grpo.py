"""GRPO: group advantages, the direction of an update, restored groups, run folders that resume, the CLI."""

import dataclasses
import json
import re
import os

import numpy as np
import pytest
import torch

from sparring.cli import main
from sparring.lm.choice import LineScorer
from sparring.lm.grpo import GRPOConfig, _load, advantages, grpo, policy_logp, update
from sparring.lm.learners import play_learners
from sparring.lm.learners import learners_env


@pytest.fixture()
def scorer(town_model):
    model, tok = _load(town_model[0])
    return LineScorer(model, tok)


def test_advantages_are_normalised_per_group():
    adv = advantages(np.array([1.0, 0.0, 0.0, 1.0, 1.0, 1.0]), 3)
    assert np.allclose(adv[:3], [np.sqrt(2), -1 / np.sqrt(2), -1 / np.sqrt(2)]) and np.all(adv[3:] == 0)


def test_copies_of_a_group_differ_only_by_the_models_choices(scorer):
    starts = learners_env(1, 11, [0], goal="gathering", days=1)
    batch = learners_env(3, 0, [0], days=1)
    batch.restore(None, np.repeat(starts.snapshot(), 3))
    assert (batch.records["goal"][:, 0] == 2).all()
    out = play_learners([scorer], batch, [0], 1e-4, np.random.default_rng(0), turns=4)  # near-greedy: same choices
    by_copy = [[(t.choice, t.prompt) for t in out.turns[0] if t.env == e] for e in range(3)]
    assert len(by_copy[0]) == 4 and by_copy[0] == by_copy[1] == by_copy[2]
    assert batch.records[0].tobytes() == batch.records[1].tobytes() == batch.records[2].tobytes()


def test_an_update_raises_the_probability_of_lines_with_positive_advantage(scorer):
    batch = learners_env(2, 5, [0], days=1)
    turns = play_learners([scorer], batch, [0], 1.0, np.random.default_rng(1), turns=2).turns[0]
    before = [lp[t.choice].item() for lp, t in zip(policy_logp(scorer, turns, 1.0), turns)]
    adv = np.array([1.0, -1.0])
    cfg = GRPOConfig(lr=1e-2, kl=0.0, minibatch=64)
    update(scorer, None, torch.optim.SGD(scorer.model.parameters(), lr=1e-2), turns, adv, cfg, np.random.default_rng(0))
    with torch.no_grad():
        after = [lp[t.choice].item() for lp, t in zip(policy_logp(scorer, turns, 1.0), turns)]
    change = {e: np.mean([a - b for a, b, t in zip(after, before, turns) if t.env == e]) for e in (0, 1)}
    assert change[0] > 0 > change[1]


def test_microbatches_take_the_same_step_as_one_pass(town_model):
    turns = None
    params = []
    for micro in (64, 3):
        model, tok = _load(town_model[0])
        scorer = LineScorer(model, tok)
        if turns is None:
            batch = learners_env(2, 5, [0], days=1)
            turns = play_learners([scorer], batch, [0], 1.0, np.random.default_rng(1), turns=4).turns[0]
        cfg = GRPOConfig(kl=0.0, minibatch=64, microbatch=micro)
        opt = torch.optim.SGD(scorer.model.parameters(), lr=1e-2)
        stats = update(scorer, None, opt, turns, np.array([1.0, -1.0]), cfg, np.random.default_rng(0))
        params.append((torch.cat([p.detach().flatten() for p in model.parameters()]), stats))
    (one, one_stats), (parts, parts_stats) = params
    assert len(turns) == 8 and one_stats["samples"] == parts_stats["samples"] == 8
    assert torch.allclose(one, parts, atol=1e-6) and one_stats["loss"] == pytest.approx(parts_stats["loss"], abs=1e-6)


def test_a_run_saves_metrics_and_plot_and_resumes(town_model, tmp_path):
    out = str(tmp_path / "run")
    cfg = GRPOConfig(group=2, groups=1, turns=2, iterations=1, kl=0.1, threads=1)
    history = grpo(out, town_model[0], cfg, days=1)
    assert len(history) == 1 and {
        "reward",
        "success_rate",
        "kl",
        "parse_failure_rate",
        "tokens_per_s",
        "seconds_per_group",
    } <= set(history[0])
    assert {"model", "optimizer.pt", "state.json", "metrics.jsonl", "success.png"} <= set(os.listdir(out))
    cfg.iterations = 2
    stray = os.path.join(out, ".success.png.abcd1234.tmp.png")  # what a run killed while saving its plot leaves
    with open(stray, "wb") as fh:
        fh.write(b"half a plot")
    with pytest.raises(ValueError, match=r"--env.days 2: the grpo run .* was started with days=1"):
        grpo(out, None, cfg, resume=True, days=2)
    resumed = grpo(out, None, cfg, resume=True, days=1)  # a repeated equal value is accepted
    assert [h["iteration"] for h in resumed] == [0, 1] and resumed[0] == history[0]
    assert not os.path.exists(stray)
    with open(os.path.join(out, "state.json")) as f:
        assert json.load(f)["iteration"] == 2
    with pytest.raises(ValueError, match="is not empty; choose a new --out, or pass --resume"):
        grpo(out, town_model[0], cfg)
    with pytest.raises(ValueError, match="has no state.json"):
        grpo(str(tmp_path), None, cfg, resume=True)


def test_two_learners_train_their_own_copies_and_resume(town_model, tmp_path):
    out = str(tmp_path / "pair")
    cfg = GRPOConfig(group=2, groups=1, turns=2, iterations=1, kl=0.1, lr=1e-2, threads=1, learners=[0, 1])
    history = grpo(out, town_model[0], cfg, days=1)
    per = history[0]["learners"]
    assert set(per) == {"0", "1"} and all(
        {"success_rate", "reward", "kl", "trained_turns"} <= set(p) for p in per.values()
    )
    assert history[0]["turns"] == per["0"]["turns"] + per["1"]["turns"] == 8  # 2 copies x 2 ticks each
    assert {"model-0", "model-1", "optimizer-0.pt", "optimizer-1.pt", "success.png"} <= set(os.listdir(out))
    base = _load(town_model[0])[0].state_dict()
    weights = [_load(os.path.join(out, f"model-{c}"))[0].state_dict() for c in (0, 1)]
    moved = [any(not torch.equal(w[k], base[k]) for k in base) for w in weights]
    trained = [per[c]["trained_turns"] > 0 for c in ("0", "1")]
    assert moved == trained  # a learner moves only when its own copies' outcomes differ within the group
    cfg.iterations = 2
    assert [h["iteration"] for h in grpo(out, None, cfg, resume=True)] == [0, 1]
    with pytest.raises(ValueError, match="trained with --learners 0,1, got --learners 0; pass --learners 0,1"):
        grpo(out, None, GRPOConfig(iterations=3), resume=True)
    with pytest.raises(ValueError, match="learners must be distinct seat indices"):
        grpo(str(tmp_path / "bad"), town_model[0], GRPOConfig(learners=[0, 99]))


def test_a_default_run_keeps_the_single_learner_layout(town_model, tmp_path):
    cfg = GRPOConfig(group=2, groups=1, turns=2, iterations=1, kl=0.0, threads=1)
    row = grpo(str(tmp_path / "a"), town_model[0], cfg, days=1)[0]
    assert {"model", "optimizer.pt"} <= set(os.listdir(tmp_path / "a")) and not os.path.exists(tmp_path / "a/model-0")
    assert row["learners"]["0"]["success_rate"] == row["success_rate"] and row["learners"]["0"]["turns"] == row["turns"]


def test_cli_grpo_and_bad_arguments(town_model, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sparring.kit.progress.QUIET_S", 0.0)  # every status line, however fast the stages
    out = str(tmp_path / "cli")
    assert (
        main(
            [
                "grpo",
                "town",
                "--model",
                town_model[0],
                "--out",
                out,
                "--group",
                "2",
                "--groups",
                "1",
                "--turns",
                "1",
                "--iterations",
                "1",
                "--kl",
                "0",
                "--env.days",
                "1",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert json.loads(captured.out.strip().splitlines()[-1])["iterations"] == 1
    # progress on stderr from the start: what loads, then the iterations with a line each
    lines = [line.split(": ", 1)[1] for line in captured.err.splitlines() if line.startswith("grpo town: ")]
    stages = [re.sub(r" \(\d+:\d\d elapsed\)$", "", line) for line in lines]
    assert stages[:3] == ["loading torch and transformers", stages[1], f"loading the model {town_model[0]}"]
    assert stages[1].startswith("building the town start states")
    assert "iteration 1: playing 1 groups of 2 copies" in stages and stages[-1].startswith("done, 100% 1/1 iterations")
    assert "grpo 1/1: reward" in captured.err
    assert main(["grpo", "town", "--model", str(tmp_path / "none"), "--out", str(tmp_path / "x")]) == 2
    assert "argument --model: " in (err := capsys.readouterr().err) and "give an existing model folder or .gguf" in err
    assert main(["grpo", "squared", "--model", town_model[0], "--out", str(tmp_path / "y")]) == 2
    assert "env 'squared' has no text face" in capsys.readouterr().err
    assert main(["grpo", "town", "--model", town_model[0], "--out", str(tmp_path / "z"), "--learners", "0,x"]) == 2
    assert "want comma-separated seat indices, e.g. 0,1; got '0,x'" in capsys.readouterr().err
    assert main(["play", "town", "--brain", "nobody"]) == 2
    assert "unknown player 'nobody'" in capsys.readouterr().err


def test_a_lora_update_trains_only_the_adapters_and_the_reference_is_the_base(town_model):
    from sparring.lm.lora import AdapterOff, add_lora

    model, tok = _load(town_model[0])
    plain = LineScorer(_load(town_model[0])[0], tok)
    policy = add_lora(model, 2)
    scorer = LineScorer(policy.base_model.model, tok)
    ref = AdapterOff(policy, scorer)
    trainable = {n for n, p in policy.named_parameters() if p.requires_grad}
    assert trainable and all("lora_" in n for n in trainable)
    before = {n: p.detach().clone() for n, p in policy.named_parameters()}
    turns = play_learners([scorer], learners_env(2, 5, [0], days=1), [0], 1.0, np.random.default_rng(1), turns=2).turns[
        0
    ]
    opt = torch.optim.AdamW([p for p in policy.parameters() if p.requires_grad], lr=1e-2)
    update(scorer, ref, opt, turns, np.array([1.0, -1.0]), GRPOConfig(kl=0.1, minibatch=64), np.random.default_rng(0))
    changed = {n for n, p in policy.named_parameters() if not torch.equal(p, before[n])}
    assert changed and changed <= trainable and any("lora_B" in n for n in changed)
    with torch.no_grad():
        base, off, on = (policy_logp(s, turns, 1.0) for s in (plain, ref, scorer))
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(base, off))
    assert not all(torch.allclose(a, b, atol=1e-5) for a, b in zip(base, on))


def test_a_lora_run_saves_its_adapter_and_on_request_the_merged_model_and_resumes_it(town_model, tmp_path):
    from safetensors.torch import load_file, save_file
    from transformers import AutoModelForCausalLM

    only = str(tmp_path / "adapter-only")
    grpo(only, town_model[0], GRPOConfig(group=2, groups=1, turns=2, iterations=1, kl=0.1, threads=1, lora=2), days=1)
    assert {"adapter", "optimizer.pt", "state.json"} <= set(os.listdir(only)) and "model" not in os.listdir(only)
    out = str(tmp_path / "lora")
    cfg = GRPOConfig(group=2, groups=1, turns=2, iterations=1, kl=0.1, threads=1, lora=2, merged=True)
    grpo(out, town_model[0], cfg, days=1)
    assert {"model", "adapter", "optimizer.pt", "state.json"} <= set(os.listdir(out))
    weights = os.path.join(out, "adapter", "adapter_model.safetensors")
    adapter = {k: torch.randn_like(v) * 0.05 for k, v in load_file(weights).items()}  # a known, nonzero adapter
    save_file(adapter, weights)
    cfg.iterations, cfg.lr = 2, 0.0  # lr 0: the resumed adapter is saved as it was loaded
    assert [h["iteration"] for h in grpo(out, None, cfg, resume=True)] == [0, 1]
    resumed = load_file(weights)
    assert resumed.keys() == adapter.keys() and all(torch.equal(resumed[k], adapter[k]) for k in adapter)
    merged = AutoModelForCausalLM.from_pretrained(os.path.join(out, "model"))  # a plain model folder
    base = AutoModelForCausalLM.from_pretrained(town_model[0])
    prefix = "base_model.model.model.layers.0.self_attn.q_proj"
    delta = 2.0 * adapter[f"{prefix}.lora_B.weight"] @ adapter[f"{prefix}.lora_A.weight"]  # alpha / r = 2
    q = lambda m: m.model.layers[0].self_attn.q_proj.weight  # noqa: E731
    assert torch.allclose(q(merged), q(base) + delta, atol=1e-5)
    cfg.lora = 4
    with pytest.raises(ValueError, match="was trained with --lora 2, got --lora 4"):
        grpo(out, None, cfg, resume=True)


def test_an_update_over_a_bfloat16_base_moves_float32_adapters_toward_positive_advantage(town_model):
    from sparring.lm.lora import add_lora

    model, tok = _load(town_model[0], dtype="bfloat16")
    policy = add_lora(model, 2)
    scorer = LineScorer(policy.base_model.model, tok)
    trainable = [p for p in policy.parameters() if p.requires_grad]
    assert trainable and {p.dtype for p in trainable} == {torch.float32}
    assert {p.dtype for p in policy.parameters() if not p.requires_grad} == {torch.bfloat16}
    turns = play_learners([scorer], learners_env(2, 5, [0], days=1), [0], 1.0, np.random.default_rng(1), turns=2).turns[
        0
    ]
    with torch.no_grad():
        before = [lp[t.choice].item() for lp, t in zip(policy_logp(scorer, turns, 1.0), turns)]
    opt = torch.optim.AdamW(trainable, lr=1e-2)
    update(scorer, None, opt, turns, np.array([1.0, -1.0]), GRPOConfig(kl=0.0, minibatch=64), np.random.default_rng(0))
    with torch.no_grad():
        after = [lp[t.choice].item() for lp, t in zip(policy_logp(scorer, turns, 1.0), turns)]
    change = {e: np.mean([a - b for a, b, t in zip(after, before, turns) if t.env == e]) for e in (0, 1)}
    assert change[0] > 0 > change[1]
    assert all(p.dtype == torch.float32 for p in trainable)
    assert all(state["exp_avg"].dtype == torch.float32 for state in opt.state.values())


@pytest.mark.parametrize("dtype, clipped", [("float32", 1.0), ("bfloat16", 0.0)])
def test_over_a_bfloat16_base_the_ratio_starts_from_log_probs_read_in_the_updates_passes(town_model, dtype, clipped):
    from sparring.lm.lora import add_lora

    model, tok = _load(town_model[0], dtype=dtype)
    policy = add_lora(model, 2)
    scorer = LineScorer(policy.base_model.model, tok)
    played = play_learners([scorer], learners_env(2, 5, [0], days=1), [0], 1.0, np.random.default_rng(1), turns=3)
    off = [dataclasses.replace(t, logp=t.logp - 1.0) for t in played.turns[0]]  # played numbers far from any pass's
    opt = torch.optim.AdamW([p for p in policy.parameters() if p.requires_grad], lr=0.0)  # the policy stays put
    cfg = GRPOConfig(kl=0.0, minibatch=4, microbatch=2, epochs=2, dtype=dtype)
    stats = update(scorer, None, opt, off, np.array([1.0, -1.0]), cfg, np.random.default_rng(0))
    assert stats["samples"] == len(off) > 4
    assert stats["clip_frac"] == clipped  # float32 reads the played ones (ratio e; all clipped), bfloat16 its own


def test_a_bfloat16_run_saves_float32_adapters_and_merges_in_float32(town_model, tmp_path):
    from safetensors.torch import load_file, save_file
    from transformers import AutoModelForCausalLM

    out = str(tmp_path / "bf16")
    cfg = GRPOConfig(group=2, groups=1, turns=2, iterations=1, threads=1, lora=2, merged=True, dtype="bfloat16")
    grpo(out, town_model[0], cfg, days=1)
    weights = os.path.join(out, "adapter", "adapter_model.safetensors")
    assert {v.dtype for v in load_file(weights).values()} == {torch.float32}
    adapter = {k: torch.randn_like(v) * 0.05 for k, v in load_file(weights).items()}  # a known, nonzero adapter
    save_file(adapter, weights)
    cfg.iterations, cfg.lr = 2, 0.0  # resumed over the bfloat16 base; lr 0: merged as loaded
    grpo(out, None, cfg, resume=True)
    merged = AutoModelForCausalLM.from_pretrained(os.path.join(out, "model"))
    assert {p.dtype for p in merged.parameters()} == {torch.float32}
    base = AutoModelForCausalLM.from_pretrained(town_model[0])
    prefix = "base_model.model.model.layers.0.self_attn.q_proj"
    delta = 2.0 * adapter[f"{prefix}.lora_B.weight"] @ adapter[f"{prefix}.lora_A.weight"]  # alpha / r = 2
    q = lambda m: m.model.layers[0].self_attn.q_proj.weight  # noqa: E731
    held = q(base).to(torch.bfloat16).float()  # the base as the run held it, widened before the merge
    assert torch.allclose(q(merged), held + delta, atol=1e-6)
    assert not torch.allclose(delta.to(torch.bfloat16).float(), delta, atol=1e-6)  # bf16 would have rounded it
    with pytest.raises(ValueError, match="--dtype bfloat16 trains LoRA adapters over a frozen bfloat16 base"):
        grpo(str(tmp_path / "full"), town_model[0], GRPOConfig(iterations=1, dtype="bfloat16"), days=1)
