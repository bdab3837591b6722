"""Training plots: which figures and panels a run gets (by their titles), never their pixels."""

import json

from sparring.train.plots import figures, plot_run, title

PHASES = ("A/1", "A/2", "A/3", "B/1")


def _records(n=5, **extra):
    """metrics.jsonl records as the trainer writes them: counters, losses, speed, an env with four phases."""
    out = []
    for i in range(n):
        record = {"train/step": 1000 * (i + 1), "train/iteration": i + 1, "train/elapsed_s": 2.0 * i}
        record |= {"train/lr": 3e-4, "train/sps": 900.0 + i, "perf/env_s": 0.1, "perf/update_s": 0.5}
        record |= {"loss/policy": None if i == 0 else -0.01, "loss/value": 0.5, "loss/entropy": 1.2}
        record |= {"env/episodes": 40, "env/episode_return": i / n, "env/episode_length": 30.0 + i}
        record |= {"env/win": i / n, "env/damage_dealt": 10.0 * i, "env/shaping_hp": 0.0}
        record |= {"env/phase/A/1": 0.0, "env/phase/A/2": 0.5, "env/phase/A/3": 0.0, "env/phase/B/1": 0.5}
        out.append(record | extra)
    return out


def _titles(fig):
    return [ax.get_title() for ax in fig.axes if ax.get_title()]


def test_a_run_gets_learning_curves_episode_metrics_phases_losses_and_speed():
    figs = figures(_records(), "serpent")
    assert list(figs) == ["learning", "episodes", "losses", "speed", "phases"]
    assert _titles(figs["learning"]) == [
        "Mean episode return against training steps",
        "Win rate against training steps",
        "Mean episode length (ticks) against training steps",
    ]
    assert _titles(figs["episodes"]) == ["Mean damage dealt per episode against training steps"]
    assert figs["episodes"].texts[-1].get_text() == "left out, zero throughout: shaping_hp"
    assert _titles(figs["losses"]) == [
        "Policy loss against training steps",
        "Value loss against training steps",
        "Policy entropy against training steps",
        "Learning rate against training steps",
    ]
    assert _titles(figs["speed"]) == [
        "Agent steps per second against training steps",
        "Seconds per iteration by part (log scale), against training steps",
    ]
    assert figs["learning"].texts[0].get_text() == "serpent: learning curves"
    every = [t for fig in figs.values() for t in _titles(fig)]
    assert not any(word in t.lower() for t in every for word in ("iteration against", "elapsed", "episodes against"))


def test_the_phase_map_shows_only_phases_episodes_ended_in():
    (ax, _colorbar) = figures(_records())["phases"].axes
    assert ax.get_title() == "Share of episodes ending in each phase, against training steps"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A/2", "B/1"]
    assert "2 phases in which no episode ended left out" in ax.get_xlabel()


def test_one_phase_no_map_and_other_groups_when_they_ran():
    one_phase = [
        {k: v for k, v in r.items() if not k.startswith("env/phase/")} | {"env/phase/play": 1.0} for r in _records()
    ]
    assert "phases" not in figures(one_phase)
    extra = {"selfplay/win_rate": 0.6, "selfplay/pool": 3, "archive/cells": 12, "archive/restarts_total": 40}
    extra |= {"curriculum/share/true": 0.5, "curriculum/share/wave_2": 0.5, "curriculum/success/wave_2": 0.25}
    figs = figures(_records(**extra))
    assert "Win rate against the self-play pool against training steps" in _titles(figs["learning"])
    assert _titles(figs["archive"]) == ["Cells in the archive against training steps"]
    assert _titles(figs["curriculum"]) == ["Share of starts drawn from each group", "Recent success from each group"]


def test_titles_in_words():
    assert title("env/success") == "Success rate against training steps"
    assert title("env/kill_time") == "Mean kill time per episode against training steps"
    assert title("loss/clipfrac") == "Share of samples clipped against training steps"


def test_plot_run_writes_the_figures_named_after_the_run_env(tmp_path):
    assert plot_run(str(tmp_path)) == []  # no metrics yet
    with open(tmp_path / "metrics.jsonl", "w") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in _records())
    (tmp_path / "config.json").write_text(json.dumps({"env": "duel"}))
    written = plot_run(str(tmp_path))
    assert sorted(p.split("/")[-1] for p in written) == sorted(
        ["learning.png", "episodes.png", "losses.png", "speed.png", "phases.png"]
    )
    assert all(open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for p in written)
