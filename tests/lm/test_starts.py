"""GRPO's start states: fresh episodes as before, recorded ticks, and clear errors for bad sources."""

import numpy as np
import pytest

from sparring.kit.batch import BatchedEnv
from sparring.kit import registry
from sparring.lm.grpo import GRPOConfig, grpo
from sparring.lm.learners import learners_env
from sparring.lm.starts import StartStates
from sparring.players import make_player
from sparring.record import record_episodes

LEARNER = 0


@pytest.fixture(scope="module")
def town_recording(tmp_path_factory):
    """Two one-day towns played by the planner, recorded."""
    out = str(tmp_path_factory.mktemp("rec") / "town.parquet")
    env = BatchedEnv(registry.get("town"), num_envs=2, seed=4, days=1)
    record_episodes(env, make_player("scripted:planner", env, 0), 2, out)
    return out


def test_fresh_starts_are_the_seeded_new_episodes():
    drawn = StartStates("fresh", "town", {"days": 1}).draw(2, np.random.default_rng(3), "gathering")
    seed = int(np.random.default_rng(3).integers(2**31))
    assert drawn.tobytes() == learners_env(2, seed, [LEARNER], "town", "gathering", days=1).snapshot().tobytes()


def test_recorded_starts_are_recorded_ticks_with_the_learner_in_play(town_recording):
    starts = StartStates(f"recording:{town_recording}", "town", {"days": 1})
    drawn = starts.draw(64, np.random.default_rng(0), "gathering")
    assert (drawn["alive"][:, LEARNER] == 1).all() and (drawn["goal_done"][:, LEARNER] == 0).all()
    assert (drawn["goal"][:, LEARNER] == 2).all()
    assert len(np.unique(drawn["tick"])) > 5  # ticks from across the day, not only the first

    def without_goal(records):
        out = records.copy()
        out["goal"][:, LEARNER] = 0
        return {r.tobytes() for r in out}

    assert without_goal(drawn) <= without_goal(starts.pool)  # recorded states, only the learner's goal set


def test_archived_starts_are_playable_archive_cells(tmp_path):
    from sparring.envs.town.env import Town
    from sparring.explore.archive import Archive

    batch = learners_env(4, 2, [LEARNER], "town", days=1)
    archive = Archive(Town)
    for _ in range(6):
        batch.step(np.zeros((batch.rows, 1), np.int32))
        archive.insert(batch.snapshot(), 0.0)
    archive.records["alive"][0, LEARNER] = 0  # a cell whose learner has fallen is never drawn
    archive.save(str(tmp_path / "arch"))
    starts = StartStates(f"archive:{tmp_path / 'arch'}", "town", {"days": 1})
    drawn = starts.draw(200, np.random.default_rng(0), "rich")
    assert (drawn["alive"][:, LEARNER] == 1).all() and (drawn["goal"][:, LEARNER] == 0).all()
    playable_ticks = set(archive.records["tick"][1:].tolist())  # one cell per game hour (two ticks)
    assert len(playable_ticks) == 3 and set(drawn["tick"].tolist()) == playable_ticks
    assert starts.archive.chosen.sum() == 200 and starts.archive.chosen[0] == 0


def test_bad_sources_are_refused_by_name(town_recording):
    with pytest.raises(ValueError, match="valid: fresh, recording:PATH or archive:DIR"):
        StartStates("checkpoint:x", "town", {})
    with pytest.raises(ValueError, match="days=1.*days=2"):
        StartStates(f"recording:{town_recording}", "town", {"days": 2})


def test_a_run_can_start_its_groups_from_a_recording(town_model, town_recording, tmp_path):
    cfg = GRPOConfig(group=2, groups=1, turns=2, iterations=1, kl=0.0, threads=1, starts=f"recording:{town_recording}")
    history = grpo(str(tmp_path / "run"), town_model[0], cfg, days=1)
    assert len(history) == 1 and history[0]["turns"] > 0
