"""Training plots: PNGs in a run folder's ``plots/``, drawn from its metrics.jsonl (matplotlib's Agg canvas).

What a reader uses, each panel titled in words against training steps (agent steps):

- ``learning.png``, the learning curves: mean episode return, the outcome rates the env reports (win,
  success, draw, goal rate; else its first metric), mean episode length, the win rate against a self-play pool;
- ``episodes.png``: the env's other episode metrics, less those zero throughout (named under the panels);
- ``phases.png``: the share of episodes ending in each phase (only the phases some episode ended in), for an
  env whose episodes end in more than one phase;
- ``losses.png``: PPO's losses and diagnostics (and imitation's, when it ran), the learning rate;
- ``speed.png``: agent steps per second, and seconds per iteration by part;
- ``archive.png`` for a run with Go-Explore restarts, ``curriculum.png`` for one with a start-state curriculum.

Counters are not drawn: the iteration, elapsed seconds, episodes per iteration, pool size, restart totals.
"""

from __future__ import annotations

import json
import math
import os

from sparring.train.metrics import STEP, read_jsonl

STEPS = "training steps (agent steps)"
OUTCOMES = {"win": "Win rate", "success": "Success rate", "draw": "Draw rate", "goal_rate": "Goal rate"}
WORDS = {
    "env/episode_return": "Mean episode return",
    "env/episode_length": "Mean episode length (ticks)",
    "env/timed_out": "Share of episodes timed out",
    "selfplay/win_rate": "Win rate against the self-play pool",
    "loss/policy": "Policy loss",
    "loss/value": "Value loss",
    "loss/entropy": "Policy entropy",
    "loss/approx_kl": "Approximate KL divergence of an update",
    "loss/clipfrac": "Share of samples clipped",
    "loss/explained_variance": "Explained variance of the value",
    "loss/imitate_policy": "Imitation: policy loss",
    "loss/imitate_value": "Imitation: value loss",
    "loss/imitate_agree": "Imitation: agreement with the teacher",
    "train/lr": "Learning rate",
    "train/sps": "Agent steps per second",
    "archive/cells": "Cells in the archive",
    "archive/deepest": "Deepest progress in the archive",
    "archive/restarts": "Episodes restarted from the archive per rollout",
    "archive/restart_success": "Success of episodes restarted from the archive",
}
PARTS = {
    "perf/env_s": "env steps",
    "perf/infer_s": "policy inference",
    "perf/rollout_s": "whole rollout",
    "perf/update_s": "PPO update",
}
SPLIT = "Seconds per iteration by part (log scale), against training steps"
PHASE = "env/phase/"


def plot_run(run_dir: str) -> list[str]:
    """Write the run's plots (see the module's doc) into ``<run_dir>/plots``; returns the files written."""
    figs = figures(read_jsonl(os.path.join(run_dir, "metrics.jsonl")), _env_name(run_dir))
    out_dir = os.path.join(run_dir, "plots")
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, fig in figs.items():
        written.append(os.path.join(out_dir, f"{name}.png"))
        fig.savefig(written[-1], dpi=90)
    return written


def figures(records: list[dict], env: str = "") -> dict:
    """``{file stem: matplotlib Figure}`` of the records of a metrics.jsonl (nothing for no records)."""
    if not records:
        return {}
    numbers = {k for r in records for k, v in r.items() if _number(v)}
    keys = [k for k in dict.fromkeys(k for r in records for k in r) if k in numbers and k != STEP]
    shown = {"env/episodes", "env/episode_return", "env/episode_length"}  # a counter; two learning curves
    metrics = [k for k in keys if k.startswith("env/") and not k.startswith(PHASE) and k not in shown]
    outcomes = [k for k in metrics if k[4:] in OUTCOMES] or metrics[:1]
    others = [k for k in metrics if k not in outcomes]
    flat = [k for k in others if all(v == 0 for _, v in _series(records, k))]
    prefix = f"{env}: " if env else ""
    panels = {
        "learning": ["env/episode_return", *outcomes, "env/episode_length", "selfplay/win_rate"],
        "episodes": [k for k in others if k not in flat],
        "losses": sorted((k for k in keys if k.startswith("loss/")), key=_known_first) + ["train/lr"],
        "speed": ["train/sps", list(PARTS)],
        "archive": [k for k in WORDS if k.startswith("archive/")],
    }
    titles = {
        "learning": "learning curves",
        "episodes": "episode metrics (means per episode)",
        "losses": "losses and optimisation",
        "speed": "speed",
        "archive": "Go-Explore archive",
    }
    notes = {"episodes": f"left out, zero throughout: {', '.join(k[4:] for k in flat)}" if flat else ""}
    out = {}
    for name, wanted in panels.items():
        present = [p for p in wanted if (set(p) if isinstance(p, list) else {p}) & set(keys)]
        if present and (name != "speed" or "train/sps" in keys):
            out[name] = _grid(records, present, prefix + titles[name], notes.get(name, ""))
    phases = _phase_figure(records, [k for k in keys if k.startswith(PHASE)], prefix)
    if phases is not None:
        out["phases"] = phases
    curriculum = curriculum_figure(records, prefix)
    if curriculum is not None:
        out["curriculum"] = curriculum
    return out


def title(key: str) -> str:
    """A metric's panel title in words: ``env/win`` -> "Win rate against training steps"."""
    name = key.split("/", 1)[-1]
    if key in WORDS:
        words = WORDS[key]
    elif key.startswith("env/") and name in OUTCOMES:
        words = OUTCOMES[name]
    else:
        words = f"Mean {name.replace('_', ' ')} per episode" if key.startswith("env/") else name.replace("_", " ")
    return f"{words} against training steps"


def _grid(records: list[dict], panels: list, heading: str, note: str):
    """A figure of one panel per metric (a list of metrics: one panel with a line each), three to a row."""
    cols = min(3, len(panels))
    fig, axes = _figure((5 * cols, 3.2 * math.ceil(len(panels) / cols) + 0.6), math.ceil(len(panels) / cols), cols)
    for ax, panel in zip(axes, panels):
        if isinstance(panel, list):  # seconds per iteration by part
            for key in (k for k in panel if any(k in r for r in records)):
                ax.plot(*zip(*_series(records, key)), lw=1.2, label=PARTS[key])
            ax.set_title(SPLIT, fontsize=9)
            ax.set_yscale("log")  # the first iteration, which compiles, would flatten the rest
            ax.legend(fontsize=7)
        else:
            ax.plot(*zip(*_series(records, panel)), lw=1.2)
            ax.set_title(title(panel), fontsize=9)
        ax.set_xlabel(STEPS, fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes[len(panels) :]:
        ax.axis("off")
    fig.suptitle(heading)
    if note:
        fig.text(0.5, 0.005, note, ha="center", va="bottom", fontsize=8, wrap=True)
    fig.tight_layout(rect=(0, 0.03 if note else 0, 1, 1))
    return fig


def _phase_figure(records: list[dict], keys: list[str], prefix: str):
    """Heat map of the share of episodes ending in each phase some episode ended in; None for fewer than two."""
    ended = [k for k in keys if any(v > 0 for _, v in _series(records, k))]
    if len(ended) < 2:
        return None
    fig, (ax,) = _figure((12, 1.6 + 0.22 * len(ended)), 1, 1)
    _heatmap(fig, ax, records, ended, [k[len(PHASE) :] for k in ended], None)
    ax.set_title("Share of episodes ending in each phase, against training steps", fontsize=9)
    fig.suptitle(f"{prefix}where episodes end")
    if len(ended) < len(keys):
        left = len(keys) - len(ended)
        ax.set_xlabel(f"{STEPS}; {left} phase{'' if left == 1 else 's'} in which no episode ended left out", fontsize=8)
    fig.tight_layout()
    return fig


def _group_order(label: str) -> tuple:
    """``true`` first, then groups by their key's number (``wave_2`` before ``wave_10``)."""
    if label == "true":
        return (0, 0, label)
    number = label.rsplit("_", 1)[-1]
    return (1, int(number), label) if number.lstrip("-").isdigit() else (2, 0, label)


def curriculum_figure(records: list[dict], prefix: str = ""):
    """A start-state curriculum's draw share and recent success per group against training steps (heat maps, a
    row per group); None for a run without a curriculum."""
    parts = {}
    for part in ("share", "success"):
        start = f"curriculum/{part}/"
        parts[part] = sorted({k[len(start) :] for r in records for k in r if k.startswith(start)}, key=_group_order)
    if not parts["share"]:
        return None
    fig, axes = _figure((12, 1.2 + 0.22 * len(parts["share"])), 1, 2)
    for ax, part in zip(axes, ("share", "success")):
        labels = parts[part] or ["true"]
        _heatmap(fig, ax, records, [f"curriculum/{part}/{label}" for label in labels], labels, part == "success")
        ax.set_title(
            "Share of starts drawn from each group" if part == "share" else "Recent success from each group", fontsize=9
        )
    fig.suptitle(f"{prefix}start-state curriculum, against training steps")
    fig.tight_layout()
    return fig


def _heatmap(fig, ax, records: list[dict], keys: list[str], labels: list[str], unit_scale) -> None:
    """Rows ``keys`` (labelled ``labels``) by records, blank where a record lacks the key; colour scale 0..1 when
    ``unit_scale``, else 0..the largest value."""
    import numpy as np

    steps = [r[STEP] for r in records]
    right = steps[-1] if steps[-1] > steps[0] else steps[0] + 1  # one record still spans a column
    grid = np.array([[r.get(k) if _number(r.get(k)) else np.nan for r in records] for k in keys], np.float64)
    top = 1.0 if unit_scale else max(1e-9, float(np.nanmax(grid, initial=0)))
    image = ax.imshow(
        np.ma.masked_invalid(grid),
        aspect="auto",
        interpolation="nearest",
        cmap="viridis",
        vmin=0.0,
        vmax=top,
        extent=(steps[0], right, len(labels) - 0.5, -0.5),
    )
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlabel(STEPS, fontsize=8)
    ax.tick_params(labelsize=7)
    fig.colorbar(image, ax=ax, fraction=0.04)


def _figure(size: tuple[float, float], rows: int, cols: int):
    """A Figure on an Agg canvas (no pyplot state) and its axes as a flat list."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False)
    return fig, list(axes.flat)


def _known_first(key: str) -> int:
    """Keys in the order of :data:`WORDS`, others after them (sorted() keeps their order)."""
    return list(WORDS).index(key) if key in WORDS else len(WORDS)


def _series(records: list[dict], key: str) -> list[tuple[float, float]]:
    return [(r[STEP], r[key]) for r in records if _number(r.get(key))]


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _env_name(run_dir: str) -> str:
    """The env of the run (its config.json), or "" when that is missing or unreadable."""
    try:
        with open(os.path.join(run_dir, "config.json")) as fh:
            return str(json.load(fh).get("env", ""))
    except (OSError, ValueError, AttributeError):
        return ""
