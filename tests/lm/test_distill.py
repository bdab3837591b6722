"""Distillation: teacher turns, the choice loss it minimises, and the saved model folder."""

import json
import os

import numpy as np
import pytest
import torch

from sparring.lm.choice import LineScorer
from sparring.lm.distill import DistillConfig, choice_loss, collect_turns, distill, lr_at
from sparring.lm.model import ModelSize, build_model, train_tokenizer


def test_turns_record_the_teachers_legal_choice():
    samples = collect_turns("scripted:planner", 1, seed=4, days=1)
    assert 1 <= len(samples) <= 48 and {s.episode for s in samples} == {0}
    assert all(0 <= s.choice < len(s.turn.lines) for s in samples)
    assert any(s.choice > 0 for s in samples)  # the planner does more than wait
    houses = collect_turns("scripted:planner", 1, seed=4, goal="house", days=1)
    assert all("Your goal (house)" in s.turn.text for s in houses)


def test_plan_labels_are_the_noisy_teachers_action_before_its_noise():
    noisy = collect_turns("scripted:planner:1.0", 1, seed=4, days=1)  # every action random
    planned = collect_turns("scripted:planner:1.0", 1, seed=4, days=1, labels="plan")
    assert [s.turn for s in noisy] == [s.turn for s in planned]  # the same states: the teacher plays either way
    planner = collect_turns("scripted:planner", 1, seed=4, days=1)
    assert [s.choice for s in noisy] != [s.choice for s in planned]
    assert planned[0].choice == planner[0].choice  # the first state is the same; later ones follow the noise
    with pytest.raises(ValueError, match="plan needs a noisy scripted teacher"):
        collect_turns("scripted:planner", 1, seed=4, days=1, labels="plan")
    with pytest.raises(ValueError, match="labels must be one of"):
        collect_turns("scripted:planner:0.3", 1, seed=4, days=1, labels="soft")


def test_dagger_states_are_the_players_and_the_labels_the_teachers():
    from sparring.players.simple import RandomPlayer

    taught = collect_turns("scripted:planner:0", 1, seed=4, days=1, actor=RandomPlayer(1))
    planned = collect_turns("scripted:planner:1.0", 1, seed=4, days=1, labels="plan", actor=RandomPlayer(1))
    assert [s.turn for s in taught] == [s.turn for s in planned]  # the random player's states either way
    assert [s.choice for s in taught] == [s.choice for s in planned]  # a noiseless teacher's action is its plan
    own = collect_turns("scripted:planner:0", 1, seed=4, days=1)
    assert [s.turn for s in own][1:] != [s.turn for s in taught][1:]


def test_choice_loss_falls_when_trained_on_the_teachers_lines():
    samples = collect_turns("scripted:planner", 1, seed=4, days=1)[:6]
    tok = train_tokenizer([line for s in samples for line in s.turn.text.split("\n")], 400)
    torch.manual_seed(0)
    scorer = LineScorer(build_model(tok, ModelSize(32, 1, 2, 64, 2048)), tok, system="")
    opt = torch.optim.Adam(scorer.model.parameters(), lr=1e-2)
    losses = []
    for _ in range(8):
        loss = choice_loss(scorer, samples)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_distilled_folder_holds_model_tokenizer_and_report(town_model):
    out, report = town_model
    assert {"config.json", "tokenizer.json", "sparring.json"} <= set(os.listdir(out))
    with open(os.path.join(out, "sparring.json")) as f:
        assert json.load(f)["distill"]["held_out_turns"] == report["held_out_turns"] > 0
    assert 0.0 <= report["held_out_accuracy"] <= 1.0 and report["train_turns"] > 0
    measured = report["accuracy_decisions"]  # held-out and train turns, each a decision of the student
    assert measured["turns"] == measured["decisions"] >= report["held_out_turns"] and measured["decisions_per_s"] > 0
    assert not [p for p in os.listdir(os.path.dirname(out)) if ".partial" in p]


def test_a_dagger_round_adds_the_students_turns(tmp_path):
    cfg = DistillConfig(
        episodes=2,
        held_out=0.5,
        steps=1,
        batch_size=2,
        vocab=400,
        hidden=32,
        layers=1,
        heads=2,
        intermediate=64,
        context=2048,
        threads=1,
        labels="plan",
        teacher="scripted:planner:0.3",
        dagger=1,
        dagger_episodes=1,
        dagger_steps=1,
    )
    report = distill(str(tmp_path / "dagger"), cfg, days=1)
    assert report["dagger_turns"] > 0 and report["labels"] == "plan"


def test_distill_refuses_bad_input(town_model, tmp_path):
    with pytest.raises(FileExistsError, match="exists"):
        distill(town_model[0], DistillConfig())
    with pytest.raises(ValueError, match=r"distill setting 'episodes' \(--episodes\) is 1; valid: an integer in \[2, "):
        distill(str(tmp_path / "new"), DistillConfig(episodes=1))
    cfg = DistillConfig()
    cfg.dagger = -1  # changed after it was made: distill checks again
    with pytest.raises(ValueError, match=r"distill setting 'dagger' \(--dagger\) is -1; valid: an integer in \[0, "):
        distill(str(tmp_path / "new"), cfg)
    with pytest.raises(ValueError, match="--chat-template applies to a --base model only"):
        distill(str(tmp_path / "new"), DistillConfig(chat_template="plain"))


def test_learning_rate_warms_up_then_decays():
    rates = [lr_at(s, 100, 1.0) for s in range(100)]
    assert rates[0] < rates[4] == pytest.approx(1.0) and rates[-1] == pytest.approx(0.1, abs=0.01)
    assert np.all(np.diff(rates[5:]) <= 1e-12)


def test_a_pretrained_base_is_fine_tuned_with_lora_and_saved_merged(town_model, tmp_path):
    from sparring.lm.model_spec import load_model

    out = str(tmp_path / "from-base")
    cfg = DistillConfig(episodes=2, held_out=0.5, steps=2, batch_size=2, base=town_model[0], lora=2, threads=1)
    report = distill(out, cfg, days=1)
    assert report["base"] == town_model[0] and 0 < report["trained_parameters"] < report["parameters"]
    merged, base = load_model(out), load_model(town_model[0])  # a plain folder, the adapters merged in
    assert sum(p.numel() for p in merged.parameters()) == sum(p.numel() for p in base.parameters())
    with pytest.raises(ValueError, match="--lora must be a rank >= 1 with --base SPEC"):
        distill(str(tmp_path / "no-base"), DistillConfig(lora=2), days=1)
    with pytest.raises(ValueError, match="does not exist"):
        distill(str(tmp_path / "bad-base"), DistillConfig(base=str(tmp_path / "missing")), days=1)


def test_a_compact_distillation_records_only_decided_turns_and_saves_its_prompt(tmp_path):
    from sparring.lm.local import LocalModel

    full = collect_turns("scripted:planner", 2, seed=4, days=1)
    compact = collect_turns("scripted:planner", 2, seed=4, days=1, prompt="compact")
    assert 0 < len(compact) < len(full) and all("Legal actions" not in s.turn.text for s in compact)
    assert all(s.turn.lines[0] == "wait" for s in compact)
    cfg = DistillConfig(
        episodes=2, held_out=0.5, steps=2, batch_size=4, vocab=300, hidden=32, layers=1, heads=2, intermediate=64
    )
    out = str(tmp_path / "compact")
    distill(out, DistillConfig(**{**cfg.__dict__, "prompt": "compact"}), days=1)
    with open(os.path.join(out, "sparring.json"), encoding="utf-8") as f:
        assert json.load(f)["prompt"] == "compact"
    assert LocalModel(out).prompt == "compact" and LineScorer(LocalModel(out)).prompt == "compact"
    with pytest.raises(ValueError, match="prompt"):
        DistillConfig(prompt="short")
