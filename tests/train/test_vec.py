"""The multi-process env backend: same episodes as in-process, errors relayed, clean shutdown, trains."""

import multiprocessing
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from sparring.kit import BatchedEnv, registry
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer
from sparring.train.vec import MultiprocessEnv
from tests.train import toys  # also registers the toy envs


def test_matches_inprocess_step_for_step_and_shuts_down():
    cls = registry.get("duel")
    ref = BatchedEnv(cls, 20, seed=7, opponent="robot")
    with MultiprocessEnv(cls, 20, seed=7, workers=3, opponent="robot") as env:  # uneven slices: 6, 7, 7
        assert (env.rows, env.num_agents, env.heads.total) == (ref.rows, ref.num_agents, ref.heads.total)
        assert (env.learner_rows == ref.learner_rows).all() and env.config == ref.config
        episodes = 0
        for _ in range(300):
            actions = ref.scripted_actions("tribrid")
            assert (env.scripted_actions("tribrid") == actions).all()
            got, want = env.step(actions), ref.step(actions)
            for a, b in zip(got[:5], want[:5]):
                assert a.shape == b.shape and (a == b).all()
            assert got[5].keys() == want[5].keys()
            assert all(got[5][k] == pytest.approx(want[5][k]) for k in want[5])
            assert (env.done == ref.done).all() and (env.ended_return == ref.ended_return).all()
            episodes += want[5].get("episodes", 0)
        assert episodes > 20
        saved = env.snapshot()
        env.reset(3), ref.reset(3)
        assert (env.obs == ref.obs).all()
        env.restore([0, 19], saved[[0, 19]]), ref.restore([0, 19], saved[[0, 19]])
        assert (env.obs == ref.obs).all() and (env.snapshot() == ref.snapshot()).all()
        with pytest.raises(ValueError, match="action row 3"):
            bad = np.zeros((env.rows, len(env.heads.sizes)), np.int64)
            bad[3, 0] = 99
            env.step(bad)
        with pytest.raises(ValueError, match="no scripted policy 'nope'"):
            env.scripted_actions("nope")  # raised in the workers, relayed
        procs = list(env._procs)
        assert len(procs) == 2
    with pytest.raises(RuntimeError, match="closed"):
        env.step(actions)
    assert not any(p.is_alive() for p in procs) and not multiprocessing.active_children()


_ORPHAN = """
import os, sys
from sparring.kit import registry
from sparring.train.vec import MultiprocessEnv
if __name__ == "__main__":
    env = MultiprocessEnv(registry.get("squared"), 8, workers=2)
    print(" ".join(str(p.pid) for p in env._procs), flush=True)
    os.kill(os.getpid(), 9)
"""


def test_workers_exit_when_the_parent_is_killed():
    out = subprocess.run([sys.executable, "-c", _ORPHAN], capture_output=True, text=True, timeout=60)
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 1, out.stderr  # slice 0 runs in the parent itself
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie has exited
        return fh.read().split(")")[-1].split()[0] != "Z"


def test_training_smoke_with_the_multiprocess_backend():
    cfg = make_train_config(
        None,
        {
            "num_envs": 32,
            "horizon": 16,
            "minibatch_size": 256,
            "hidden": 32,
            "threads": 1,
            "steps": 32 * 16 * 4,
            "vec": "multiprocess",
            "workers": 2,
        },
    )
    trainer = Trainer("toy_match", cfg, opponent="always_zero")  # scripted seat computed in the workers
    try:
        while not trainer.finished():
            metrics = trainer.iterate()
        assert metrics["train/iteration"] == 4 and np.isfinite(metrics["loss/policy"])
        assert metrics.get("env/episodes", 0) > 0
        state = trainer.train_state()
        trainer.load_train_state(state)
        assert (trainer.env.snapshot() == state["records"]).all()
    finally:
        trainer.close()
    assert not multiprocessing.active_children()


def test_final_observations_match_inprocess_and_train_the_same():
    cls = toys.TimedPair  # two agents, terminations and truncations
    ref = BatchedEnv(cls, 10, seed=4, keep_final=True, limit=4)
    with MultiprocessEnv(cls, 10, seed=4, workers=2, keep_final=True, limit=4) as env:
        rng = np.random.default_rng(0)
        truncated = 0
        for _ in range(30):
            actions = rng.integers(0, 3, (env.rows, 1))
            env.step(actions), ref.step(actions)
            rows = np.repeat(ref.done, 2)  # final_obs means something in the rows of envs that just ended
            assert (env.done == ref.done).all() and (env.truncations == ref.truncations).all()
            assert (env.final_obs[rows] == ref.final_obs[rows]).all() and (env.obs == ref.obs).all()
            truncated += ref.truncations.sum()
        assert truncated > 4
    # the trainer bootstraps truncations from final_obs: both backends must learn the same weights
    weights = []
    for vec in ("inprocess", "multiprocess"):
        cfg = make_train_config(
            None,
            {
                "num_envs": 16,
                "horizon": 16,
                "minibatch_size": 128,
                "hidden": 16,
                "threads": 1,
                "steps": 16 * 16 * 2,
                "vec": vec,
                "workers": 2,
            },
        )
        trainer = Trainer("toy_timed_walk", cfg)
        try:
            while not trainer.finished():
                trainer.iterate()
            assert trainer.rollout.truncated.any()
            weights.append([p.detach().clone() for p in trainer.policy.parameters()])
        finally:
            trainer.close()
    assert all(torch.equal(a, b) for a, b in zip(*weights))


@pytest.mark.parametrize(
    "overrides, words",
    [({"vec": "threads"}, ["vec", "multiprocess"]), ({"vec": "multiprocess", "workers": 0}, ["workers", "num_envs"])],
)
def test_bad_backend_settings_are_named(overrides, words):
    with pytest.raises(ValueError) as err:
        Trainer("squared", make_train_config(None, {"num_envs": 4, **overrides}))
    assert all(w in str(err.value) for w in words), str(err.value)
