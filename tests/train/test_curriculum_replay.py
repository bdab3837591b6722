"""Prioritized restarts (train.curriculum replay:N): the spec, the scoring, the draw, the fade, files, training."""

import os

import numpy as np
import pytest
import torch

import sparring
from sparring.kit import Env, Heads, Obs, kernel, register
from sparring.kit.files import DamagedFile
from sparring.players.policy import policy_for
from sparring.train import curriculum_replay
from sparring.train.checkpoint import restore_trainer, save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.curriculum_replay import ReplayRestarts
from sparring.train.curriculum_sources import load_start_states
from sparring.train.imitate import imitate
from sparring.train.rollout import Rollout
from sparring.train.trainer import Trainer

TINY = {"num_envs": 16, "horizon": 16, "minibatch_size": 64, "hidden": 16, "threads": 1, "eval_episodes": 0}
TINY |= {"tensorboard": False, "curriculum_every": 4}
TOP = 12  # a climb's episode ends on reaching this height


@kernel
def replay_climb_reset(s, cfg):
    s.height = 0


@kernel
def replay_climb_step(s, cfg, act, rew, term, trunc):
    # one step up per tick; the top ends the episode; a climber that steps up (action 1) above half way earns 1
    s.height += 1
    rew[0] = 1.0 if act[0] == 1 and s.height > TOP // 2 else 0.0
    term[0] = s.height >= TOP


@kernel
def replay_climb_observe(s, cfg, obs, mask):
    obs[0, 0] = s.height


@kernel
def replay_climb_up(s, cfg, agent, out):
    out[0] = 1


class ReplayClimb(Env):
    """A climb of ``TOP`` one-tick steps: the height tells every tick of an episode apart."""

    name = "toy_replay_climb"
    obs = Obs(1, np.uint8, low=0, high=TOP)
    actions = Heads(move=2)
    state = {"height": "i4"}
    reset, step, observe = replay_climb_reset, replay_climb_step, replay_climb_observe
    scripted = {"up": replay_climb_up}

    @staticmethod
    def invariants(s, cfg):
        return [] if 0 <= s["height"] <= TOP else [f"height {s['height']} outside [0, {TOP}]"]


register("toy_replay_climb", ReplayClimb)


def hooked(env, horizon, recurrence="none", **kw):
    """A rollout of ``env`` with a :class:`ReplayRestarts` hook."""
    cfg = make_train_config(None, {"hidden": 8, "recurrence": recurrence})
    rollout = Rollout(env, policy_for(env, cfg), horizon, np.arange(env.rows))
    hook = ReplayRestarts(env, rollout.rows_np, rollout.state, horizon=horizon, **kw)
    rollout.episode_end = hook
    return rollout, hook


def climb_at(env, heights):
    """Put every env of ``env`` at ``heights``."""
    records = env.snapshot()
    records["height"] = heights
    env.restore(np.arange(env.num_envs), records)


def kept(hook) -> dict:
    """The hook's kept states as {height: score}."""
    return dict(zip(hook.records["height"][: hook.size].tolist(), hook.score[: hook.size].round(6).tolist()))


@pytest.mark.parametrize(
    "spec, problem",
    [
        ("replay:0", "N must be a positive int"),
        ("replay:many", "N must be a positive int"),
        ("replay:8,own:4", "replay:N stands alone"),
    ],
)
def test_a_bad_replay_spec_names_what_is_wrong(spec, problem):
    with pytest.raises(ValueError, match=problem):
        load_start_states(spec, ReplayClimb)


def test_a_replay_spec_reads_its_capacity():
    starts = load_start_states("replay:4096", ReplayClimb)
    assert starts.replay == 4096 and starts.sources == [("replay:4096", 0)] and len(starts.records) == 0


def test_snapshots_are_scored_by_the_mean_advantage_of_their_segment_up_to_its_end(monkeypatch):
    env = sparring.make("toy_replay_climb", num_envs=4, seed=0)
    climb_at(env, [0, 1, 3, 4])  # the episodes end in ticks 11, 10, 8 and 7 of a 12-tick rollout
    rollout, hook = hooked(env, 12, capacity=3, every=4)
    rollout.collect()
    adv = np.zeros((12, 4), np.float32)
    adv[4:8] = [0.1, -0.2, 0.3, 0.4]  # the tick-4 snapshots, at heights 4, 5, 7 and 8
    adv[8:12, 0] = -0.5  # height 8, alive to the segment's end
    adv[8:11, 1], adv[11, 1] = 0.6, 100.0  # height 9: its episode ends in tick 10; tick 11 plays a fresh one
    adv[8, 2], adv[9:, 2] = 0.9, 100.0  # height 11: ends in the segment's first tick
    adv[8:12, 3] = 50.0  # env 3 ended in tick 7: its tick-8 snapshot is a true start, never kept
    monkeypatch.setattr(curriculum_replay, "advantages_and_returns", lambda *_: (torch.from_numpy(adv), None))
    hook.score_rollout(rollout, 0.99, 0.95)
    # the tick-0 snapshot is each env's first start; of the seven others the three best are kept
    assert kept(hook) == {11: 0.9, 9: 0.6, 8: 0.5}
    assert hook.metrics()["curriculum/replay/score_new"] == pytest.approx((0.1 + 0.2 + 0.3 + 0.4 + 0.5 + 0.6 + 0.9) / 7)
    assert hook.metrics()["curriculum/replay/kept"] == 3 and len(hook.pending) == 1
    # the next rollout's first snapshot: env 0 ended in the last tick and plays a true start, the others go on
    assert hook.pending[0][2].tolist() == [True, False, False, False]


def scored_hook(num_envs, **kw):
    """A hook over ``num_envs`` climbs holding heights 3, 6 and 9 scored 1, 2 and 1 (found by a rollout)."""
    env = sparring.make("toy_replay_climb", num_envs=num_envs, seed=2)
    rollout, hook = hooked(env, 8, every=4, **kw)
    rollout.collect()
    hook.score_rollout(rollout, 0.99, 0.95)
    hook.size = 0
    records = env.snapshot(np.zeros(3, np.int64))
    records["height"] = [3, 6, 9]
    hook._keep(records, np.array([1.0, 2.0, 1.0]))
    return env, rollout, hook


def test_ended_envs_restart_from_kept_states_drawn_by_score_and_their_scores_fade():
    env, _, hook = scored_hook(4000, capacity=3, true_share=0.0, fade=1.0)
    env.step(np.zeros((env.rows, 1), np.int32))
    before = env.snapshot()
    envs, memory = hook.restart(np.arange(4000))
    after = env.snapshot()
    assert envs.tolist() == list(range(4000)) and memory == ()
    heights, counts = np.unique(after["height"], return_counts=True)
    assert heights.tolist() == [3, 6, 9] and abs(counts[1] / 4000 - 0.5) < 0.03  # drawn in proportion 1:2:1
    assert (after["rng"] == before["rng"]).all() and (after["ep_return"] == 0).all()  # each env keeps its dice
    assert kept(hook) == {3: 1.0, 6: 2.0, 9: 1.0}  # fade 1: never fades

    env, _, hook = scored_hook(2, capacity=3, true_share=0.0, fade=0.5)
    hook.restart(np.arange(2))
    drawn = {int(h): int(c) for h, c in zip(*np.unique(env.snapshot()["height"], return_counts=True))}
    assert kept(hook) == {h: s * 0.5 ** drawn.get(h, 0) for h, s in {3: 1.0, 6: 2.0, 9: 1.0}.items()}
    assert hook.metrics()["curriculum/starts"] == 2 and hook.metrics()["curriculum/starts_total"] == 2


def test_true_starts_stay_true_and_restored_memory_starts_from_zeros():
    env, _, hook = scored_hook(400, capacity=3, true_share=1.0)
    envs, _ = hook.restart(np.arange(400))
    assert envs.size == 0 and hook.metrics()["curriculum/starts"] == 0
    env, _, hook = scored_hook(400, capacity=3, true_share=0.25, recurrence="lstm")
    ended = np.arange(0, 400, 2)
    envs, memory = hook.restart(ended)
    assert np.isin(envs, ended).all() and abs(envs.size / ended.size - 0.75) < 0.1
    assert len(memory) == 2 and all(part.shape == (envs.size, 8) and not part.any() for part in memory)


def test_its_file_round_trips_and_a_damaged_one_is_refused(tmp_path):
    _, rollout, hook = scored_hook(8, capacity=3, true_share=0.0)
    rollout.collect()  # every climb ends in it: each is restored from a kept state
    hook.score_rollout(rollout, 0.99, 0.95)
    assert hook.counters[0] == 8
    hook.save(str(tmp_path))
    *_, again = scored_hook(8, capacity=3)
    again.size = 0
    again.load(str(tmp_path))
    assert kept(again) == kept(hook) and again.rng.bit_generator.state == hook.rng.bit_generator.state
    assert again.counters.tolist() == hook.counters.tolist()
    assert again.pending[0][1].tobytes() == hook.pending[0][1].tobytes()
    path = tmp_path / curriculum_replay.FILE
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(DamagedFile, match="curriculum_replay.npz"):
        again.load(str(tmp_path))


def test_training_keeps_restores_and_resumes_its_states_exactly(tmp_path):
    cfg = make_train_config(None, TINY | {"curriculum": "replay:64", "steps": 16 * 16 * 8})
    straight = Trainer("toy_replay_climb", cfg)
    first = [straight.iterate() for _ in range(3)]
    assert first[-1]["curriculum/replay/kept"] == 64 and first[-1]["curriculum/starts_total"] > 0
    folder = save_checkpoint(str(tmp_path / "run"), straight)
    assert os.path.exists(os.path.join(folder, curriculum_replay.FILE))
    later = [straight.iterate() for _ in range(3)]
    resumed = Trainer("toy_replay_climb", cfg)
    restore_trainer(resumed, folder)
    again = [resumed.iterate() for _ in range(3)]
    for a, b in zip(later, again):
        assert {k: v for k, v in a.items() if k.startswith("curriculum/")} == {
            k: v for k, v in b.items() if k.startswith("curriculum/")
        }
    assert kept(straight.curriculum) == kept(resumed.curriculum)


def test_a_warm_start_and_a_two_seat_env_use_it_too():
    cfg = make_train_config(
        None, TINY | {"curriculum": "replay:32", "imitate": "up", "imitate_steps": 16 * 16 * 3, "steps": 10**6}
    )
    trainer = Trainer("toy_replay_climb", cfg)
    for _ in imitate(trainer):
        pass
    assert trainer.curriculum.size == 32 and trainer.curriculum.metrics()["curriculum/starts_total"] > 0
    duel = Trainer("duel", make_train_config(None, TINY | {"curriculum": "replay:32", "curriculum_every": 8}))
    metrics = [duel.iterate() for _ in range(2)][-1]
    assert metrics["curriculum/replay/kept"] > 0 and np.isfinite(metrics["curriculum/replay/score_kept"])
