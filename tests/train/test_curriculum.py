"""The start-state curriculum: its draw, its true starts, restores, resume, recurrent policies, sources, --archive."""

import os

import numpy as np
import pytest
import torch

import sparring
from sparring.cli import main
from sparring.kit import Env, Heads, Obs, kernel, rand_float, register
from sparring.kit.state_set import save_state_set
from sparring.players.policy import policy_for
from sparring.train.checkpoint import restore_trainer, save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.curriculum import OTHER, TRUE, Curriculum, GroupSampler
from sparring.train.curriculum_sources import load_start_states, parse_spec
from sparring.train.imitate import imitate
from sparring.train.rollout import Rollout
from sparring.train.trainer import Trainer

TINY = {
    "num_envs": 32,
    "horizon": 8,
    "minibatch_size": 128,
    "hidden": 16,
    "threads": 1,
    "eval_episodes": 0,
    "tensorboard": False,
}


@kernel
def ladder_reset(s, cfg):
    s.level = 0


@kernel
def ladder_step(s, cfg, act, rew, term, trunc):
    # from level k the one-tick episode is won with chance k / 4: level 0 never, 2 half the time, 4 always
    rew[0] = 1.0 if rand_float(s) < 0.25 * s.level else -1.0
    s.metrics[0] = 1.0 if rew[0] > 0 else 0.0
    term[0] = True


@kernel
def ladder_observe(s, cfg, obs, mask):
    obs[0, 0] = s.level


@kernel
def ladder_first_move(s, cfg, agent, out):
    out[0] = 0


class Ladder(Env):
    """One-tick episodes won with chance level / 4; true starts are at level 0; start groups are levels."""

    name = "toy_ladder"
    obs = Obs(1, np.uint8, low=0, high=4)
    actions = Heads(move=2)
    state = {"level": "i4"}
    metrics = ("win",)
    reset, step, observe = ladder_reset, ladder_step, ladder_observe
    scripted = {"first": ladder_first_move}
    start_group_key = "level"

    @staticmethod
    def start_groups(records):
        return records["level"].astype(np.int64)

    @staticmethod
    def invariants(s, cfg):
        return [] if 0 <= s["level"] <= 4 else [f"level {s['level']} outside [0, 4]"]


register("toy_ladder", Ladder)


def ladder_set(path, levels=(0, 2, 4), per_level=4, group_key="level", groups=None):
    """A state set of ladder records at ``levels``; returns its path."""
    records = np.zeros(len(levels) * per_level, Ladder.record_dtype)
    records["level"] = np.repeat(levels, per_level)
    records["tick"] = np.arange(len(records))  # tells states apart
    records["rng"] = 1 + np.arange(len(records))  # a generator state of 0 is refused
    if groups is None and group_key == "level":
        groups = records["level"]
    save_state_set(path, Ladder, records, groups=groups, group_key=group_key)
    return str(path)


def curriculum_on(env, spec, recurrence="none", **kw):
    cfg = make_train_config(None, {"hidden": 8, "recurrence": recurrence})
    policy = policy_for(env, cfg)
    rollout = Rollout(env, policy, 4, np.arange(env.rows))
    curriculum = Curriculum(env, rollout.rows_np, rollout.state, load_start_states(spec, env.env_cls), **kw)
    rollout.episode_end = curriculum
    return rollout, curriculum


def test_the_draw_favours_a_group_of_middling_success():
    sampler = GroupSampler(3, floor=0.1, window=50)
    assert np.allclose(sampler.probabilities(), 1 / 3)  # untried groups are all at p = 0.5
    groups = np.repeat([0, 1, 2], 200)
    wins = np.concatenate([np.zeros(200), np.ones(200), np.arange(200) % 2])
    sampler.record(groups, wins.astype(bool))
    probs = sampler.probabilities()
    assert probs[2] > 0.75 and probs[0] == pytest.approx(probs[1])
    assert probs[0] >= 0.1 / (1 + 0.2) - 1e-9  # floor: a solved or hopeless group is still drawn
    assert sampler.rate()[0] == 0 and sampler.rate()[1] == 1 and sampler.rate()[2] == pytest.approx(0.5, abs=0.02)
    # one outcome at a time and the same outcomes at once agree on the rate's memory
    one = GroupSampler(1, window=10)
    for _ in range(5):
        one.record(np.zeros(1, np.int64), np.ones(1, bool))
    many = GroupSampler(1, window=10)
    many.record(np.zeros(5, np.int64), np.ones(5, bool))
    assert one.episodes == pytest.approx(many.episodes) and one.wins == pytest.approx(many.wins)


def test_a_curriculum_learns_which_group_to_draw_and_keeps_the_true_share(tmp_path):
    env = sparring.make("toy_ladder", num_envs=400, seed=3)
    rollout, curriculum = curriculum_on(env, "states:" + ladder_set(tmp_path / "s.npz"), true_share=0.3, window=200)
    for _ in range(15):
        rollout.collect()
    metrics = curriculum.metrics()
    assert metrics["curriculum/share/true"] == 0.3
    shares = [metrics[f"curriculum/share/level_{k}"] for k in (0, 2, 4)]
    assert shares[1] > 0.45 and shares[0] < 0.15 and shares[2] < 0.15 and sum(shares) == pytest.approx(0.7)
    assert metrics["curriculum/success/level_0"] == 0 and metrics["curriculum/success/level_4"] == 1
    assert metrics["curriculum/success/true"] == 0  # true starts are level 0
    # every env ends every tick: each rollout's end restores all but about the true share
    starts = np.array([curriculum.restart(np.arange(400))[0].size for _ in range(20)])
    assert abs(1 - starts.mean() / 400 - 0.3) < 0.02


def test_ended_envs_restart_from_the_drawn_states_with_zero_memory(tmp_path):
    env = sparring.make("toy_ladder", num_envs=16, seed=1)
    rollout, curriculum = curriculum_on(
        env, "states:" + ladder_set(tmp_path / "s.npz"), recurrence="lstm", true_share=0.25
    )
    drawn = []
    draw = curriculum.draw
    curriculum.draw = lambda n: drawn.append(draw(n)) or drawn[-1]
    before = env.snapshot()
    rollout.collect()
    ((groups, states),) = drawn
    restored = np.flatnonzero(curriculum.origin >= 0)
    assert restored.size == len(states) > 0 and (curriculum.origin[np.setdiff1d(np.arange(16), restored)] == TRUE).all()
    after = env.snapshot(restored)
    expected = states.copy()  # the drawn records, their return so far zeroed
    expected["rng"] = after["rng"]  # each env keeps its own generator, moved on by its own episodes
    assert after.tobytes() == expected.tobytes()
    assert not (after["rng"] == before["rng"][restored]).all()
    assert curriculum.origin[restored].tolist() == groups.tolist()
    assert not rollout.just_done[restored].any()  # they carry on at the next rollout ...
    for part in rollout.state:
        assert not part[restored].any()  # ... from zero memory, as a fresh episode does
    assert (env.obs[restored, 0] == states["level"]).all()


def test_a_set_saved_with_the_envs_key_keeps_its_groups_and_another_key_is_recomputed(tmp_path):
    own = ladder_set(tmp_path / "own.npz", levels=(1, 3), per_level=2, groups=np.array([7, 7, 9, 9]))
    other = ladder_set(
        tmp_path / "other.npz", levels=(1, 3), per_level=2, group_key="wave", groups=np.array([7, 7, 9, 9])
    )
    assert load_start_states("states:" + own, Ladder).keys.tolist() == [7, 9]
    starts = load_start_states(f"states:{other}, states:{own}", Ladder)
    assert starts.keys.tolist() == [1, 3, 7, 9] and starts.labels() == ["level_1", "level_3", "level_7", "level_9"]
    assert starts.group.tolist() == [0, 0, 1, 1, 2, 2, 3, 3] and len(starts.sources) == 2


def test_resume_continues_the_curriculum_exactly(tmp_path):
    spec = "states:" + ladder_set(tmp_path / "s.npz")
    cfg = make_train_config(None, {**TINY, "curriculum": spec, "recurrence": "mingru", "steps": 32 * 8 * 6})
    straight = Trainer("toy_ladder", cfg)
    for _ in range(3):
        straight.iterate()
    folder = save_checkpoint(str(tmp_path / "run"), straight)
    assert os.path.exists(os.path.join(folder, "curriculum.npz"))
    later = [straight.iterate() for _ in range(3)]

    resumed = Trainer("toy_ladder", cfg)
    restore_trainer(resumed, folder)
    again = [resumed.iterate() for _ in range(3)]
    for a, b in zip(later, again):
        assert {k: v for k, v in a.items() if k.startswith("curriculum/")} == {
            k: v for k, v in b.items() if k.startswith("curriculum/")
        }
    s, r = straight.curriculum, resumed.curriculum
    for name in ("episodes", "wins"):
        assert getattr(s.sampler, name).tobytes() == getattr(r.sampler, name).tobytes()
        assert getattr(s.truth, name).tobytes() == getattr(r.truth, name).tobytes()
    assert s.origin.tobytes() == r.origin.tobytes() and s.counters.tobytes() == r.counters.tobytes()
    assert s.rng.bit_generator.state == r.rng.bit_generator.state
    for a, b in zip(straight.policy.state_dict().values(), resumed.policy.state_dict().values()):
        assert torch.equal(a, b)


@pytest.mark.parametrize("recurrence", ["none", "lstm"])
def test_training_with_a_curriculum_writes_its_metrics_and_plot(tmp_path, recurrence):
    spec = "states:" + ladder_set(tmp_path / "s.npz")
    assert (
        main(
            [
                "train",
                "toy_ladder",
                "--steps",
                str(32 * 8 * 4),
                "--runs",
                str(tmp_path / "runs"),
                *[f"--train.{k}={v}" for k, v in TINY.items()],
                "--train.curriculum",
                spec,
                "--train.recurrence",
                recurrence,
            ]
        )
        == 0
    )
    (run,) = (tmp_path / "runs").iterdir()
    assert (run / "plots" / "curriculum.png").stat().st_size > 1000
    text = (run / "metrics.jsonl").read_text()
    assert '"curriculum/share/level_2"' in text and '"curriculum/success/level_0"' in text


def test_a_warm_start_plays_from_the_curriculums_states_too(tmp_path):
    cfg = make_train_config(
        None,
        {**TINY, "steps": 10**6, "imitate": "first", "imitate_steps": 32 * 8 * 3, "imitate_mix": 0.5}
        | {"curriculum": "states:" + ladder_set(tmp_path / "s.npz"), "curriculum_true": 0.0},
    )
    trainer = Trainer("toy_ladder", cfg)
    for _ in imitate(trainer):
        pass
    metrics = trainer.curriculum.metrics()
    # one-tick episodes: every env ends every step, each later episode starts from a drawn level
    assert metrics["curriculum/starts"] == 32 and metrics["curriculum/episodes"] > 32
    assert metrics["curriculum/success/level_0"] == 0.0 and metrics["curriculum/success/level_4"] == 1.0


def test_bad_sources_fail_with_one_line_before_training(tmp_path, capsys):
    good = ladder_set(tmp_path / "s.npz")
    broken = np.zeros(2, Ladder.record_dtype)
    broken["level"], broken["rng"] = [1, 9], 1
    save_state_set(tmp_path / "broken.npz", Ladder, broken)
    squared = sparring.make("squared", num_envs=2).snapshot()
    save_state_set(tmp_path / "squared.npz", sparring.kit.get("squared"), squared)
    cases = {
        f"states:{tmp_path / 'missing.npz'}": "no such file",
        f"archive:{tmp_path}/nowhere": "no such folder",
        f"states:{tmp_path / 'squared.npz'}": "holds 'squared' states, not 'toy_ladder' ones",
        f"states:{tmp_path / 'broken.npz'}": "state 1.*breaks its invariants: level 9 outside",
        "states": "is not KIND:PATH",
        f"tape:{good}": "is not KIND:PATH",
        ",": "names no source",
    }
    for spec, message in cases.items():
        with pytest.raises(ValueError, match=message):
            Trainer("toy_ladder", make_train_config(None, {**TINY, "curriculum": spec}))
    assert (
        main(
            [
                "train",
                "toy_ladder",
                "--steps",
                "64",
                "--runs",
                str(tmp_path / "runs"),
                "--train.curriculum",
                f"states:{tmp_path / 'squared.npz'}",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sparring: ") and not (tmp_path / "runs").exists()
    with pytest.raises(ValueError, match="KIND is one of|with KIND states"):
        parse_spec("states:a.npz,,")


def test_a_recording_and_an_archive_are_sources_too(tmp_path):
    from sparring.explore.archive import Archive
    from sparring.players import make_player
    from sparring.record import record_episodes

    serpent = sparring.kit.get("serpent")
    env = sparring.make("serpent", num_envs=4, seed=2)
    record_episodes(env, make_player("scripted:reference", env, 0), 4, str(tmp_path / "r.parquet"))
    starts = load_start_states(f"recording:{tmp_path / 'r.parquet'}", serpent)
    assert len(starts.records) > 100 and starts.keys[0] == 1 and len(starts.keys) > 3  # phases of the fights
    archive = Archive(serpent)
    archive.insert(starts.records, np.zeros(len(starts.records)))
    archive.save(str(tmp_path / "cells"))
    cells = load_start_states(f"archive:{tmp_path / 'cells'}", serpent)
    assert len(cells.records) == len(archive) and set(cells.keys) <= set(starts.keys)


def test_the_archive_and_a_curriculum_share_the_ended_episodes(tmp_path):
    serpent = sparring.kit.get("serpent")
    env = sparring.make("serpent", num_envs=8, seed=5)
    for _ in range(30):
        env.step(env.scripted_actions("reference"))
    save_state_set(tmp_path / "s.npz", serpent, env.snapshot(), group_key="phase")
    cfg = make_train_config(
        None,
        {
            **TINY,
            "num_envs": 16,
            "recurrence": "mingru",
            "archive_fraction": 0.5,
            "archive_every": 2,
            "curriculum": f"states:{tmp_path / 's.npz'}",
            "curriculum_true": 0.0,
        },
    )
    trainer = Trainer("serpent", cfg)
    curriculum, restarts = trainer.curriculum, trainer.restarts
    assert trainer.rollout.episode_end is curriculum and curriculum.archive is restarts
    ended = np.arange(16)
    envs, (states,) = curriculum.restart(ended)
    archived = np.flatnonzero(restarts.from_cell >= 0)
    assert envs.tolist() == ended.tolist() and 0 < archived.size < 16  # true share 0: the curriculum takes the rest
    assert (curriculum.origin[archived] == OTHER).all()
    assert (curriculum.origin[np.setdiff1d(ended, archived)] >= 0).all()
    cells = restarts.archive.states[restarts.from_cell[archived], 0, 0]
    assert np.array_equal(states[archived], cells) and not states[np.setdiff1d(ended, archived)].any()
    dying = env.snapshot()
    dying["hp"] = 1
    trainer.env.restore(None, dying[np.arange(16) % 8])
    for _ in range(4):
        metrics = trainer.iterate()
    assert "archive/cells" in metrics and metrics["curriculum/starts_total"] > 0


@kernel
def stairs_reset(s, cfg):
    s.level = 0


@kernel
def stairs_step(s, cfg, act, rew, term, trunc):
    # climb a level with action 1; every three-tick episode ends in a loss: only the progress tells runs apart
    if act[0, 0] == 1 and s.level < 4:
        s.level += 1
    if s.tick >= 2:
        rew[0] = -1.0
        term[0] = True


class Stairs(Env):
    """Three-tick episodes that always lose; action 1 climbs a level (the start group)."""

    name = "toy_stairs"
    obs = Obs(1, np.uint8, low=0, high=4)
    actions = Heads(move=2)
    state = {"level": "i4"}
    bounds = {"level": (0, 4)}
    reset, step, observe = stairs_reset, stairs_step, ladder_observe
    start_group_key = "level"

    @staticmethod
    def start_groups(records):
        return records["level"].astype(np.int64)


register("toy_stairs", Stairs)


@pytest.mark.parametrize("move, wins", [(1, True), (0, False)])
def test_an_episode_that_moves_on_to_a_later_group_is_a_success(tmp_path, move, wins):
    records = np.zeros(2, Stairs.record_dtype)
    records["rng"] = [1, 2]
    path = save_state_set(tmp_path / "s.npz", Stairs, records, groups=np.zeros(2), group_key="level")
    env = sparring.make("toy_stairs", num_envs=4)
    curriculum = Curriculum(env, np.arange(env.rows), (), load_start_states(f"states:{path}", Stairs), true_share=1.0)
    for _ in range(6):
        env.step(np.full((env.rows, 1), move, np.int32))
        curriculum.after_step(env.done, ())
        assert (np.asarray(env.ended_return)[env.done] < 0).all()  # every episode is lost by its return
    assert curriculum.truth.episodes[0] > 0
    assert (curriculum.truth.wins[0] > 0) == wins  # ... yet climbing from the start is progress
