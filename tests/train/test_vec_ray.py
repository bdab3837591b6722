"""The Ray env backend: same episodes as in-process, errors relayed, actors stopped, and it trains the same."""

import time

import numpy as np
import pytest
import torch

ray = pytest.importorskip("ray", reason="the ray backend needs the [ray] extra")

from sparring.kit import BatchedEnv, registry  # noqa: E402
from sparring.train.config import make_train_config  # noqa: E402
from sparring.train.trainer import Trainer  # noqa: E402
from sparring.train import vec_ray  # noqa: E402
from sparring.train.vec_ray import RayEnv, init_ray  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A local Ray instance; it takes seconds to start, so it is left up for the session's other Ray tests
    (tests/sweep/test_sweep_ray.py joins it) and Ray stops it when the test process exits."""
    init_ray("", 2)


def test_matches_inprocess_step_for_step_and_stops_its_actors():
    cls = registry.get("squared")
    ref = BatchedEnv(cls, 10, seed=7, size=5)
    with RayEnv(cls, 10, seed=7, workers=2, size=5) as env:
        assert (env.learner_rows == ref.learner_rows).all() and env.config == ref.config
        assert (env.obs == ref.obs).all() and (env.mask == ref.mask).all()
        episodes = 0
        for _ in range(40):
            actions = ref.scripted_actions("greedy")
            actions[::3] = 3  # some walk off the grid
            assert (env.scripted_actions("greedy") == ref.scripted_actions("greedy")).all()
            got, want = env.step(actions), ref.step(actions)
            for a, b in zip(got[:5], want[:5]):
                assert a.shape == b.shape and (a == b).all()
            assert all(got[5][k] == pytest.approx(want[5][k]) for k in want[5])
            assert (env.done == ref.done).all() and (env.ended_return == ref.ended_return).all()
            episodes += want[5].get("episodes", 0)
        assert episodes > 20
        saved = env.snapshot()
        env.reset(3), ref.reset(3)
        assert (env.obs == ref.obs).all()
        env.restore([0, 9], saved[[0, 9]]), ref.restore([0, 9], saved[[0, 9]])
        assert (env.obs == ref.obs).all() and (env.snapshot() == ref.snapshot()).all()
        with pytest.raises(ValueError, match="action row 3"):
            bad = np.zeros((env.rows, len(env.heads.sizes)), np.int64)
            bad[3, 0] = 99
            env.step(bad)
        with pytest.raises(ValueError, match="no scripted policy 'nope'"):
            env.scripted_actions("nope")  # raised in an actor, relayed as itself
        actors = list(env._actors)
    with pytest.raises(RuntimeError, match="closed"):
        env.step(actions)
    for actor in actors:
        assert_dies(actor)


def test_final_observations_match_inprocess():
    cls = registry.get("squared")
    ref = BatchedEnv(cls, 10, seed=7, keep_final=True, size=5)
    with RayEnv(cls, 10, seed=7, workers=2, keep_final=True, size=5) as env:
        ended = 0
        for _ in range(30):
            actions = ref.scripted_actions("greedy")
            actions[::3] = 3  # some walk off the grid
            env.step(actions), ref.step(actions)
            rows = ref.done  # one agent: a row per env; final_obs means something where the env just ended
            assert (env.done == ref.done).all() and (env.obs == ref.obs).all()
            assert (env.final_obs[rows] == ref.final_obs[rows]).all()
            ended += ref.done.sum()
        assert ended > 10


def assert_dies(actor, seconds: float = 30.0) -> None:
    """``ray.kill`` takes effect asynchronously: poll until the actor stops answering."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            ray.get(actor.snapshot.remote(), timeout=seconds)
        except ray.exceptions.RayActorError:
            return
        time.sleep(0.1)
    pytest.fail(f"an actor still answers {seconds} s after close()")


def test_ray_training_learns_exactly_like_inprocess():
    # same seed, same episodes for the same actions: the two backends must end with identical weights
    base = {
        "num_envs": 32,
        "horizon": 16,
        "steps": 32 * 16 * 4,
        "minibatch_size": 256,
        "hidden": 32,
        "threads": 1,
        "workers": 2,
    }
    weights = {}
    for vec in ("inprocess", "ray"):
        trainer = Trainer("squared", make_train_config(registry.get("squared"), {**base, "vec": vec}))
        try:
            while not trainer.finished():
                metrics = trainer.iterate()
        finally:
            trainer.close()
        assert metrics["train/step"] == 32 * 16 * 4 and np.isfinite(metrics["loss/policy"])
        weights[vec] = [p.detach().clone() for p in trainer.policy.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(weights["inprocess"], weights["ray"]))


def test_bad_worker_counts_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="workers must be an int in"):
        RayEnv(registry.get("squared"), 4, workers=5)
    # more one-CPU actors than the local instance's CPUs can never all start: an error, not a hang
    monkeypatch.setattr(vec_ray, "START_TIMEOUT_S", 2.0)
    cpus = int(ray.cluster_resources()["CPU"])
    with pytest.raises(
        RuntimeError, match=f"{cpus + 1} env actors .* did not start within 2.0 s; the Ray cluster has {cpus} CPUs"
    ):
        RayEnv(registry.get("squared"), 8, workers=cpus + 1)
