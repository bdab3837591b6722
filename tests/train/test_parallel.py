"""Data-parallel PPO on a local Ray instance: K shards compute the update of one, the ranks stay identical,
runs resume on another worker count, and what it does not run is refused in one line."""

import json
import sys

import numpy as np
import psutil
import pytest
import torch

ray = pytest.importorskip("ray", reason="data-parallel training needs the [ray] extra")

from sparring.kit import BatchedEnv, registry  # noqa: E402
from sparring.players.policy import policy_for  # noqa: E402
from sparring.train.config import make_train_config  # noqa: E402
from sparring.train.distributed import DataParallel, free_port, init_group  # noqa: E402
from sparring.train.optim import make_optimizer  # noqa: E402
from sparring.train.parallel import ParallelTrainer, merge_metrics  # noqa: E402
from sparring.train.ppo import ppo_update  # noqa: E402
from sparring.train.ray_cluster import init_ray, node_addresses  # noqa: E402
from sparring.train.rollout import Rollout  # noqa: E402
from sparring.train.run import train  # noqa: E402

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the shard tasks below run this module's code

SMALL = {"vec": "ray", "workers": 2, "num_envs": 64, "horizon": 16, "minibatch_size": 256, "eval_episodes": 0}


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A local Ray instance; it takes seconds to start, so it is left up for the session's other Ray tests
    (tests/sweep/test_sweep_ray.py joins it) and Ray stops it when the test process exits."""
    init_ray("", 2)


def test_a_local_instance_registers_its_node_on_this_machine_only():
    local = {a.address for addrs in psutil.net_if_addrs().values() for a in addrs}
    assert node_addresses() and set(node_addresses()) <= local
    assert node_addresses() == ["127.0.0.1"]


ROLLOUT = {"num_envs": 8, "horizon": 16, "minibatch_size": 128, "update_epochs": 2, "lr": 3e-3}
SHARDED = ("obs", "mask", "actions", "logprob", "values", "rewards", "dones", "truncated", "final_values", "resets")


def _collected(recurrence: str):
    """A policy, its optimizer and one rollout of it on squared, the same bytes in every process."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    cfg = make_train_config(registry.get("squared"), {**ROLLOUT, "recurrence": recurrence})
    env = BatchedEnv(registry.get("squared"), cfg.num_envs, seed=3, keep_final=True)
    policy = policy_for(env, cfg)
    rollout = Rollout(env, policy, cfg.horizon, np.arange(env.rows))
    rollout.collect()
    return policy, make_optimizer(policy, cfg.optimizer, cfg.lr), rollout, cfg


def _shard(rollout, cols: slice) -> None:
    """Keep the trained rows ``cols`` of a collected rollout (what a worker holding those envs would have)."""
    for name in SHARDED:
        setattr(rollout, name, getattr(rollout, name)[:, cols])
    rollout.last_value = rollout.last_value[cols]
    rollout.state0 = tuple(s[cols] for s in rollout.state0)


@ray.remote(num_cpus=1)
def _rank_update(rank: int, world: int, host: str, port: int, recurrence: str) -> dict:
    policy, optimizer, rollout, cfg = _collected(recurrence)
    per = cfg.num_envs // world
    _shard(rollout, slice(rank * per, (rank + 1) * per))
    init_group(host, port, rank, world)
    try:
        metrics = ppo_update(policy, optimizer, rollout, cfg, parallel=DataParallel())
    finally:
        torch.distributed.destroy_process_group()  # Ray reuses this process for other tasks
    return {k: v.clone() for k, v in policy.state_dict().items()}, metrics


@pytest.mark.parametrize("recurrence", ["none", "lstm"])
def test_two_shards_compute_the_update_of_the_whole_batch(recurrence):
    """One minibatch per epoch (so both sides see the same samples in it): two ranks, each with half the envs,
    end with the weights of one in-process update of the whole rollout, up to float reduction order."""
    policy, optimizer, rollout, cfg = _collected(recurrence)
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    metrics = ppo_update(policy, optimizer, rollout, cfg)
    port = free_port("127.0.0.1")
    ranks, shard_metrics = zip(*ray.get([_rank_update.remote(r, 2, "127.0.0.1", port, recurrence) for r in range(2)]))
    assert shard_metrics[0] == shard_metrics[1]
    assert shard_metrics[0] == pytest.approx(metrics, rel=1e-4, abs=1e-6)  # losses, KL, explained variance
    moved = False
    for name, want in policy.state_dict().items():
        assert torch.equal(ranks[0][name], ranks[1][name]), name  # identical on every rank
        torch.testing.assert_close(ranks[0][name], want, rtol=1e-4, atol=1e-5)
        moved |= not torch.allclose(want, before[name])
    assert moved


def test_workers_stay_identical_and_the_run_learns_on_squared():
    cfg = make_train_config(
        registry.get("squared"), {**SMALL, "num_envs": 256, "minibatch_size": 2048, "lr": 1e-2, "steps": 10**6}
    )
    trainer = ParallelTrainer("squared", cfg)
    try:
        first = [trainer.iterate() for _ in range(3)]
        for _ in range(40):
            last = trainer.iterate()
        weights = ray.get([w.weights.remote() for w in trainer._workers])
        for name, value in weights[0][0].items():
            assert torch.equal(value, weights[1][0][name]), name
        assert last["train/step"] == 43 * 256 * 16 and last["perf/comm_s"] >= 0
        assert first[-1]["env/success"] < 0.2 and last["env/success"] > 0.4  # the first iteration ends few episodes
    finally:
        trainer.close()


def test_metrics_merge_episodes_by_weight_and_timings_by_the_slowest():
    merged = merge_metrics(
        [
            {"env/episodes": 1, "env/success": 1.0, "perf/env_s": 2.0, "loss/value": 1.0},
            {"env/episodes": 3, "env/success": 0.0, "perf/env_s": 1.0, "loss/value": 3.0},
        ]
    )
    assert merged == {"env/episodes": 4, "env/success": 0.25, "perf/env_s": 2.0, "loss/value": 2.0}


def test_a_run_resumes_on_another_worker_count_and_in_process(tmp_path):
    run = train("duel", {**SMALL, "steps": 2048, "recurrence": "lstm"}, runs_dir=str(tmp_path))
    train(resume=run, overrides={"steps": 4096, "workers": 1})
    train(resume=run, overrides={"steps": 6144, "vec": "inprocess"})
    rows = [json.loads(line) for line in open(f"{run}/metrics.jsonl")]
    assert [r["train/step"] for r in rows] == [1024 * i for i in range(1, 7)]
    assert open(f"{run}/checkpoints/latest").read() == "step-000000006144"
    shaping = [r["env_knob/reward_damage"] for r in rows[:2]]  # duel's default anneal, in the workers too
    assert shaping == pytest.approx([1.0, 1 - 0.5 / 0.75])  # at progress 0 and 1/2 of the first 2048 steps


@pytest.mark.parametrize(
    "overrides, opponent, message",
    [
        ({"policies": "seat"}, None, "populations and leagues"),
        ({}, "self", "self-play"),
        ({"curriculum": "own:16"}, None, "start-state curricula"),
        ({"archive_fraction": 0.5}, None, "Go-Explore"),
        ({"imitate": "robot", "imitate_steps": 100}, None, "cloning warm start"),
        ({"kl_teacher": 0.1}, None, "KL teacher"),
        ({"num_envs": 63}, None, "divides it"),
    ],
)
def test_what_it_does_not_run_is_refused_in_one_line(tmp_path, overrides, opponent, message):
    with pytest.raises(ValueError, match=message) as caught:
        train("duel", {**SMALL, "steps": 1024, **overrides}, opponent=opponent, runs_dir=str(tmp_path))
    said = str(caught.value)
    assert "\n" not in said and ("--train.vec inprocess" in said or "divides it" in said)


def test_a_setting_a_worker_refuses_comes_back_as_its_own_one_line_error(tmp_path, capsys):
    from sparring.cli import main

    args = ["train", "duel", "--steps", "1024", "--runs", str(tmp_path), "--train.env_anneal", "nope=1"]
    assert main([*args, *(f"--train.{k}={v}" for k, v in SMALL.items())]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("sparring: env_anneal: 'nope' is not a float knob of this env; valid:")


def test_the_cli_says_a_lost_worker_in_one_line(monkeypatch, capsys):
    import sparring.train.run
    from sparring.cli import main
    from sparring.kit.remote import WorkerLost

    def lost(*args, **kwargs):
        raise WorkerLost("data-parallel worker 1 died: gone (after 3 restarts); sparring train --resume RUN")

    monkeypatch.setattr(sparring.train.run, "train", lost)
    assert main(["train", "duel", "--steps", "1024"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "sparring: train: data-parallel worker 1 died: gone (after 3 restarts); sparring train --resume RUN"
    )
