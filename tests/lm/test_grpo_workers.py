"""GRPO whose groups are played by Ray workers: each worker's share and seed, the adapters it holds after a
broadcast, a run on two workers that trains and resumes, and what it cannot run refused in one line."""

import json
import os

import numpy as np
import pytest
import torch

ray = pytest.importorskip("ray", reason="grpo --workers needs the [ray] extra")

from sparring.cli import main  # noqa: E402
from sparring.lm.grpo import GRPOConfig, _load, grpo  # noqa: E402
from sparring.lm.grpo_worker import trainable_weights  # noqa: E402
from sparring.kit.remote import WorkerLost  # noqa: E402
from sparring.lm.grpo_workers import PlayerPool, shares, worker_seed  # noqa: E402
from sparring.lm.learners import learners_env  # noqa: E402
from sparring.lm.lora import add_lora  # noqa: E402
from sparring.train.ray_cluster import init_ray  # noqa: E402

SMALL = dict(group=2, groups=2, turns=2, lora=2, threads=1, workers=2)


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A local Ray instance on 127.0.0.1 (left up for the session's other Ray tests; Ray stops it at exit)."""
    init_ray("", 2)


def test_shares_are_whole_groups_when_they_go_round_and_seeds_differ_per_worker_and_iteration():
    assert shares(4, 3, 2) == [0, 6, 12] and shares(3, 2, 2) == [0, 2, 6]  # whole groups
    assert shares(1, 4, 3) == [0, 1, 2, 4]  # fewer groups than workers: one group's copies split
    draws = {(it, w): np.random.default_rng(worker_seed(5, it, w)).random() for it in range(3) for w in range(3)}
    driver = {np.random.default_rng([5, it]).random() for it in range(3)}
    assert len(set(draws.values()) | driver) == len(draws) + len(driver)
    assert draws[(1, 2)] == np.random.default_rng(worker_seed(5, 1, 2)).random()  # the same on every run


@pytest.mark.parametrize("lora", [2, 0])
def test_workers_hold_the_broadcast_weights_and_each_plays_its_share(town_model, lora):
    """LoRA: the adapters are sent; full fine-tuning (lora 0): every weight."""
    model = _load(town_model[0])[0]
    policy = add_lora(model, lora) if lora else model
    with torch.no_grad():  # weights unlike the base's (peft starts lora_B at zero)
        for p in policy.parameters():
            if p.requires_grad:
                p.add_(torch.randn_like(p) * 0.05)
    batch = learners_env(4, 0, [0], days=1)
    batch.restore(None, np.repeat(learners_env(2, 7, [0], days=1).snapshot(), 2))
    with PlayerPool(town_model[0], [0], "town", {"days": 1}, GRPOConfig(**{**SMALL, "lora": lora}), "full") as pool:
        pool.broadcast([policy])
        mine = trainable_weights(policy)
        for w in (0, 1):
            (theirs,) = pool.worker_weights(w)
            assert theirs.keys() == mine.keys() and all(torch.equal(theirs[k], mine[k]) for k in mine)
        played = pool.play(batch.snapshot(), 0, [policy])
        again = pool.play(batch.snapshot(), 0, [policy])
        ray.kill(pool.workers[1])
        with pytest.raises(WorkerLost, match=r"^grpo play worker 1 died: "):
            pool.play(batch.snapshot(), 1, [policy])
    turns = played.turns[0]
    assert len(turns) == 8 and {t.env // 2 for t in turns} == {0, 1}  # worker 0 played group 0, worker 1 group 1
    assert len(mine) == (len(list(model.parameters())) if not lora else 2 * 7)  # Llama's 7 projections, A and B
    assert played.success.shape == played.progress.shape == (4, 1) and played.decisions.tolist() == [8]
    assert [(t.env, t.choice, t.prompt) for t in turns] == [(t.env, t.choice, t.prompt) for t in again.turns[0]]


def test_a_run_on_two_workers_trains_the_adapters_and_resumes(town_model, tmp_path):
    out = str(tmp_path / "run")
    # near-uniform sampling over 12 ticks: at seed 0 the copies of a group part in the second iteration (rarely in
    # this untrained town's first ticks), so that iteration has turns to train
    knobs = {**SMALL, "group": 4, "turns": 12, "temperature": 100.0, "lr": 1e-2, "seed": 0}
    flags = [f"--{k}={v}" for k, v in {**knobs, "iterations": 1}.items()]
    assert main(["grpo", "town", "--model", town_model[0], "--out", out, *flags, "--env.days", "1"]) == 0
    history = grpo(out, None, GRPOConfig(**knobs, iterations=2), resume=True)  # the workers hold nothing to resume
    assert [h["iteration"] for h in history] == [0, 1] and [h["turns"] for h in history] == [96, 96]
    assert all(h["play_s"] > 0 and h["update_s"] > 0 for h in history)
    assert history[1]["trained_turns"] > 0
    from safetensors.torch import load_file

    adapter = load_file(os.path.join(out, "adapter", "adapter_model.safetensors"))
    assert any(v.abs().sum() > 0 for k, v in adapter.items() if "lora_B" in k)  # the driver's update moved them
    with open(os.path.join(out, "state.json")) as f:
        assert json.load(f)["iteration"] == 2


def test_what_workers_cannot_run_is_refused_in_one_line(town_model, tmp_path, monkeypatch, capsys):
    def refused(cfg: GRPOConfig) -> str:
        with pytest.raises(ValueError) as caught:
            grpo(str(tmp_path / "never"), town_model[0], cfg, days=1)
        assert "\n" not in str(caught.value) and not os.path.exists(tmp_path / "never")
        return str(caught.value)

    many = refused(GRPOConfig(**{**SMALL, "workers": 5}))
    assert (
        many
        == "--workers 5: more workers than an iteration's copies (--groups 2 x --group 2 = 4); use --workers 4 or fewer"
    )
    assert refused(GRPOConfig(**{**SMALL, "threads": 1024})).startswith("--workers 2 x --threads 1024 needs 2048 CPUs")
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    assert "connect first with sparring.train.ray_cluster.init_ray(address, 2)" in refused(GRPOConfig(**SMALL))
    monkeypatch.undo()
    args = ["grpo", "town", "--model", town_model[0], "--out", str(tmp_path / "cli"), "--ray-address", "127.0.0.1:1"]
    assert main(args) == 2
    assert "--ray-address is for --workers K > 1; add --workers or drop it" in capsys.readouterr().err
