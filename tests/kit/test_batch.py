"""BatchedEnv: buffers, auto-reset, episode info, validation, snapshots, reset pools, determinism."""

import numpy as np
import pytest

from sparring.kit import BatchedEnv
from tests.kit import toys


def to_goal(env):
    return env.scripted_actions("to_goal")


def test_buffers_are_agent_rows():
    env = BatchedEnv(toys.Pair, num_envs=3)
    assert env.rows == 6
    assert env.obs.shape == (6, 2) and env.obs.dtype == np.float32
    assert env.mask.shape == (6, 3) and env.rewards.shape == (6,)
    assert env.learner_rows.all()


def test_learner_seats_pick_rows_and_weight_the_return():
    env = BatchedEnv(toys.PairVsIdle, num_envs=2)
    assert env.learner_rows.tolist() == [True, False, True, False]
    acts = np.zeros((4, 1), np.int32)
    acts[0::2] = toys.RIGHT  # seat 0 walks, seat 1 idles until the time limit
    info = {}
    while not info:
        *_, info = env.step(acts)
    assert info["episode_return"] == 1.0  # seat 0's return only; seat 1 scored nothing


def test_step_returns_the_env_buffers():
    env = BatchedEnv(toys.Walk, num_envs=4)
    obs, rew, term, trunc, mask, info = env.step(np.zeros((4, 1), np.int32))
    assert obs is env.obs and rew is env.rewards and mask is env.mask and term is env.terminals


def test_reset_observes_the_fresh_records():
    env = BatchedEnv(toys.Walk, num_envs=5, seed=3)
    obs, mask = env.reset()
    assert np.allclose(obs[:, 1], env.records["goal"] / toys.LENGTH)
    assert (env.records["tick"] == 0).all() and (env.records["pos"] == 0).all()
    assert not mask[:, toys.LEFT].any() and mask[:, toys.RIGHT].all()


def test_autoreset_and_episode_info_match_the_episodes_that_ended():
    env = BatchedEnv(toys.Walk, num_envs=16, seed=1)
    total, lengths = 0, []
    for _ in range(40):
        goals_before = env.records["goal"].copy()
        _, rew, term, _, _, info = env.step(to_goal(env))
        lengths += goals_before[term].tolist()  # walking right from 0, an episode lasts `goal` ticks
        if info:
            total += info["episodes"]
            assert info["episode_return"] == 1.0 and info["reached"] == 1.0
            assert info["phase/near"] == info["episodes"] and info["phase/far"] == 0
            assert info["episode_length"] == pytest.approx(np.mean(goals_before[term]))
        assert (env.records["tick"][term] == 0).all()  # finished envs restarted in the same call
    assert total == len(lengths) > 16


def test_without_autoreset_finished_envs_keep_their_final_state():
    env = BatchedEnv(toys.Walk, num_envs=4, autoreset=False)
    for _ in range(30):
        env.step(to_goal(env))
    assert env.done.all()
    assert (env.records["pos"] == env.records["goal"]).all()


def test_keep_final_writes_the_last_observation_before_reset():
    env = BatchedEnv(toys.Walk, num_envs=8, keep_final=True)
    while True:
        _, _, term, _, _, _ = env.step(to_goal(env))
        if term.any():
            break
    row = int(np.argmax(term))
    assert env.final_obs[row, 0] == env.final_obs[row, 1]  # ended on the goal
    assert env.obs[row, 0] == 0.0  # and the buffer already shows the new episode


@pytest.mark.parametrize(
    "actions, error, match",
    [
        (np.zeros((3, 1), np.int32), ValueError, r"shape \(4, 1\)"),
        (np.zeros((4, 1), np.float32), TypeError, "integers"),
        (np.array([[0], [1], [3], [0]], np.int32), ValueError, r"action row 2 is \[3\].*move"),
        (np.array([[0], [0], [0], [-1]], np.int64), ValueError, "action row 3"),
        (np.array([[0], [0], [2**40], [0]], np.int64), ValueError, "action row 2"),
    ],
)
def test_bad_actions_fail_before_any_kernel_runs(actions, error, match):
    env = BatchedEnv(toys.Walk, num_envs=4)
    before = env.records.copy()
    with pytest.raises(error, match=match):
        env.step(actions)
    assert env.records.tobytes() == before.tobytes()


def test_one_head_accepts_flat_actions():
    env = BatchedEnv(toys.Walk, num_envs=4)
    env.step([2, 2, 2, 2])
    assert (env.records["pos"] == 1).all()


def test_an_env_does_not_depend_on_its_batch():
    small, large = BatchedEnv(toys.Walk, num_envs=4, seed=9), BatchedEnv(toys.Walk, num_envs=32, seed=9)
    rng = np.random.default_rng(0)
    for _ in range(200):
        acts = rng.integers(0, 3, (32, 1))
        small.step(acts[:4])
        large.step(acts)
        assert small.records.tobytes() == large.records[:4].tobytes()


def test_snapshot_restore_replays_exactly_and_refreshes_obs():
    env = BatchedEnv(toys.Walk, num_envs=8, seed=2)
    rng = np.random.default_rng(1)
    acts = [rng.integers(0, 3, (8, 1)) for _ in range(60)]
    for a in acts[:10]:
        env.step(a)
    snap, obs = env.snapshot(), env.obs.copy()
    later = []
    for a in acts[10:]:
        env.step(a)
        later.append(env.records.copy())
    env.restore(None, snap)
    assert np.array_equal(env.obs, obs)
    for a, expect in zip(acts[10:], later):
        env.step(a)
        assert env.records.tobytes() == expect.tobytes()


def test_restore_and_clone_of_some_envs():
    env = BatchedEnv(toys.Walk, num_envs=4, seed=5)
    env.step(np.full((4, 1), toys.RIGHT))
    env.clone(0, [2, 3])
    assert env.records[2].tobytes() == env.records[0].tobytes() == env.records[3].tobytes()
    assert np.array_equal(env.obs[2], env.obs[0])
    with pytest.raises(TypeError, match="record dtype"):
        env.restore([1], np.zeros(1, np.float32))
    with pytest.raises(ValueError, match="2 records for 1 indices"):
        env.restore([1], env.snapshot([0, 1]))
    with pytest.raises(IndexError, match=r"\[0, 4\)"):
        env.snapshot([4])


def test_reset_pool_restarts_from_stored_states_with_fresh_randomness():
    env = BatchedEnv(toys.Walk, num_envs=16, seed=4)
    for _ in range(2):
        env.step(np.full((16, 1), toys.RIGHT))
    start = env.snapshot([0])
    env.set_reset_pool(start, prob=1.0)
    for _ in range(30):
        _, _, term, trunc, _, _ = env.step(to_goal(env))
    restarted = env.records[env.records["goal"] == start["goal"][0]]
    assert len(restarted) > 0
    assert (env.records["goal"] == start["goal"][0]).all()  # every restart came from the pool
    assert len(set(env.records["rng"].tolist())) == 16  # each env kept its own generator
    env.set_reset_pool(None)
    with pytest.raises(ValueError, match=r"prob must be in \[0, 1\]"):
        env.set_reset_pool(start, prob=1.5)


def test_reset_envs_fresh_or_from_records():
    env = BatchedEnv(toys.Walk, num_envs=4, seed=6)
    env.step(np.full((4, 1), toys.RIGHT))
    env.reset_envs([1])
    assert env.records["tick"][1] == 0 and env.records["tick"][0] == 1
    env.reset_envs([2], records=env.snapshot([0]))
    assert env.records[2].tobytes() == env.records[0].tobytes()


def test_reset_envs_starts_the_next_episode_not_the_first_again():
    env = BatchedEnv(toys.Walk, num_envs=64, seed=7)
    first = env.records["goal"].copy()
    env.reset_envs(np.arange(64))
    assert (env.records["goal"] != first).any()
    again = BatchedEnv(toys.Walk, num_envs=64, seed=7)
    again.reset_envs(np.arange(64))
    assert env.records.tobytes() == again.records.tobytes()  # still deterministic


def test_equal_states_have_equal_bytes_after_compiled_copies():
    env = BatchedEnv(toys.Pair, num_envs=8, seed=1)
    for _ in range(40):  # auto-resets copy the blank record over finished envs
        env.step(np.full((16, 1), toys.RIGHT))
    fresh = BatchedEnv(toys.Pair, num_envs=8, seed=1)
    fresh.restore(None, env.snapshot())
    assert fresh.records.tobytes() == env.records.tobytes()
    assert all(not rec[n].any() for rec in env.records for n in env.records.dtype.names if n.startswith("_pad"))


def test_unknown_scripted_policy():
    env = BatchedEnv(toys.Walk, num_envs=1)
    with pytest.raises(ValueError, match=r"no scripted policy 'x'; known: \['to_goal'\]"):
        env.scripted_actions("x")


def test_bad_num_envs():
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        BatchedEnv(toys.Walk, num_envs=0)


def test_multi_agent_episode_ends_when_every_agent_is_done():
    env = BatchedEnv(toys.Pair, num_envs=1, seed=0)
    goal = int(env.records["goal"][0])
    acts = np.array([[toys.RIGHT], [toys.STAY]], np.int32)
    for _ in range(goal):
        _, rew, term, _, _, info = env.step(acts)
    assert term.tolist() == [True, False] and rew.tolist() == [1.0, 0.0] and not info
    _, _, term, _, mask, _ = env.step(acts)
    assert term[0] and not mask[0, toys.RIGHT]  # arrived agent: terminated, may only stay


# -- the packed step's buffers and the threaded step ----------------------------------------------


def _random_run(cls, threads: int, steps: int = 120, num_envs: int = 61, **kw):
    """Every buffer and info of ``steps`` random steps, with a reset pool and reset_envs on the way."""
    env = BatchedEnv(cls, num_envs=num_envs, seed=5, num_threads=threads, **kw)
    rng = np.random.default_rng(1)
    seen = []
    for t in range(steps):
        if t == 40:
            env.set_reset_pool(env.snapshot([3, 7]), prob=0.5)
        if t == 80:
            env.reset_envs([0, 17, 60])
        *_, info = env.step(rng.integers(0, 3, (env.rows, 1)))
        seen.append(
            (
                env.records.tobytes(),
                env.obs.tobytes(),
                env.rewards.tobytes(),
                env.terminals.tobytes(),
                env.truncations.tobytes(),
                env.done.tobytes(),
                env.ended_return.tobytes(),
                env.final_obs.tobytes(),
                sorted(info.items()),
            )
        )
    return env, seen


@pytest.mark.parametrize("cls", [toys.Walk, toys.Pair])
@pytest.mark.parametrize("keep_final", [False, True])
def test_thread_counts_give_the_same_bytes(cls, keep_final):
    one, reference = _random_run(cls, 1, keep_final=keep_final)
    assert one.num_threads == 1 and any(step[-1] for step in reference)  # episodes ended, info was filled
    for threads in (2, 3):
        env, seen = _random_run(cls, threads, keep_final=keep_final)
        assert env.num_threads == threads  # 61 envs are 4 chunks of 16: 4 pieces of 16, 16, 16 and 13 envs
        for t, (a, b) in enumerate(zip(reference, seen)):
            assert a == b, f"{threads} threads differ from 1 at step {t}"


def test_thread_counts_agree_without_autoreset():
    runs = []
    for threads in (1, 3):
        env = BatchedEnv(toys.Walk, num_envs=50, seed=2, autoreset=False, num_threads=threads)
        rng = np.random.default_rng(0)
        for t in range(60):
            env.step(rng.integers(0, 3, (50, 1)))
            if t % 10 == 9:
                env.reset_envs(np.flatnonzero(env.done))
        runs.append(env.records.tobytes() + env.done.tobytes())
    assert runs[0] == runs[1]


def test_threads_are_capped_by_chunks_of_envs():
    from sparring.kit.batch import thread_bounds

    assert thread_bounds(61, 3).tolist() == [0, 16, 32, 48, 61]  # 4 chunks: 4 pieces
    assert thread_bounds(200, 2).tolist() == [*range(0, 200, 16), 200]  # 13 chunks: up to 8 pieces a thread
    assert len(thread_bounds(4096, 2)) == 17  # 256 chunks: 8 pieces a thread
    assert thread_bounds(20, 8).tolist() == [0, 16, 20]  # two chunks: two threads at most
    assert thread_bounds(5, 4).tolist() == [0, 5]
    assert thread_bounds(1000, 1).tolist() == [0, 1000]
    assert BatchedEnv(toys.Walk, num_envs=20, num_threads=8).num_threads == 2


def test_every_row_is_written_by_some_thread():
    env = BatchedEnv(toys.Pair, num_envs=77, num_threads=3)
    env.rewards[:] = np.nan
    env.terminals[:] = True
    env.records["tick"] = 5  # stays under the time limit: no env restarts
    env.step(np.zeros((env.rows, 1), np.int64))
    assert not np.isnan(env.rewards).any() and not env.terminals.any()
    assert (env.records["tick"] == 6).all()


@pytest.mark.parametrize("threads", [1, 3])
def test_bad_actions_are_rejected_alike_whatever_the_threads(threads):
    env = BatchedEnv(toys.Walk, num_envs=40, num_threads=threads)
    before = env.records.copy()
    acts = np.zeros((40, 1), np.int32)
    acts[35] = 3  # in the last slice
    with pytest.raises(ValueError, match=r"action row 35 is \[3\]; head sizes are \{'move': 3\}"):
        env.step(acts)
    acts[35], acts[2] = 0, -1
    with pytest.raises(ValueError, match=r"action row 2 is \[-1\]"):
        env.step(acts)
    assert env.records.tobytes() == before.tobytes()  # no slice stepped


def test_a_replaced_buffer_is_checked_and_then_written():
    env = BatchedEnv(toys.Walk, num_envs=4, num_threads=2)
    with pytest.raises(ValueError, match=r"BatchedEnv.obs must be a float32 array of shape \(4, 2\)"):
        env.obs = np.zeros((3, 2), np.float32)
    with pytest.raises(ValueError, match=r"BatchedEnv.rewards must be a float32 array"):
        env.rewards = np.zeros(4, np.float64)
    with pytest.raises(ValueError, match="C-contiguous"):
        env.obs = np.zeros((4, 4), np.float32)[:, ::2]
    with pytest.raises(ValueError, match=r"BatchedEnv.cfg must be a"):
        env.cfg = np.zeros(2, env.cfg.dtype)
    with pytest.raises(ValueError, match="writeable"):
        frozen = np.zeros((4, 2), np.float32)
        frozen.flags.writeable = False
        env.obs = frozen
    old, new = env.obs, np.full((4, 2), -1.0, np.float32)
    old_copy = old.copy()
    env.obs = new
    env.step(np.full((4, 1), toys.RIGHT))
    assert env.obs is new and (new >= 0).all()  # the step wrote to the new array
    assert np.array_equal(old, old_copy)  # and never to the old one


def test_autoreset_can_be_switched_after_construction():
    env = BatchedEnv(toys.Walk, num_envs=8, num_threads=2)
    env.autoreset = False
    for _ in range(2 * toys.LENGTH):
        env.step(env.scripted_actions("to_goal"))
    assert env.done.all() and (env.records["pos"] == env.records["goal"]).all()  # all wait at their goal
