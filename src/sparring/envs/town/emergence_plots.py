"""The town judge's emergence figures as PNGs (matplotlib's Agg canvas, no pyplot state), one file per question:

- ``specialization.png``: how concentrated each group's work is (work entropy) and how divided a town's work is
  (division of labour, against the same work shuffled among the characters), per pairing;
- ``work.png``: the share of work at each skill, for the focal and the background characters and by goal;
- ``trade_network.png``: who sold to whom by role (a group and a goal, e.g. focal house), per pairing: arrows as
  wide as their trades per town (goals are drawn per town, so roles show what seats cannot);
- ``prices.png``: the mean price of a trade per good over the episode, per pairing, with the market's prices;
- ``goal_rates.png``: each character's goal rate, when focal and when background, per pairing.

Every figure reads the report of :func:`~sparring.evaluate.town_judge.judge_town` run with ``emergence``; bands
and error bars are the report's 95% intervals.
"""

from __future__ import annotations

import os

import numpy as np

from sparring.envs.town.world import DAY, GOAL_NAMES, GOOD_NAMES, SKILL_NAMES

GROUPS = {"focal": "#4e79a7", "background": "#f28e2b"}
SKILLS = dict(zip(SKILL_NAMES, ("#d8c040", "#c08040", "#2f8f3f")))  # farming, baking, woodcutting
LINES = ["#4e79a7", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#edc948", "#9c755f", "#ff9da7"]


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _short(spec: str) -> str:
    """A brain's name for a plot: a checkpoint by its run folder's name, not its whole path."""
    kind, _, path = spec.partition(":")
    return f"checkpoint:{os.path.basename(os.path.normpath(path))}" if kind == "checkpoint" else spec


def _label(p: dict) -> str:
    return f"{_short(p['focal_brain'])}\namong {_short(p['background_brain'])}"


def _grid(fig, report: dict) -> dict:
    """One axes per pairing, rows by focal brain and columns by background brain: {(focal, background): axes}."""
    rows, cols = report["focal"], report["backgrounds"]
    axes = np.atleast_2d(fig.subplots(len(rows), len(cols), squeeze=False))
    return {(f, b): axes[i, j] for i, f in enumerate(rows) for j, b in enumerate(cols)}


def _err(figures: list) -> tuple[list, np.ndarray]:
    """Means and asymmetric error bars of bootstrap figures (None: nothing, drawn as 0 without a bar)."""
    means = [f["mean"] if f else 0.0 for f in figures]
    low = [f["mean"] - f["ci95"][0] if f else 0.0 for f in figures]
    high = [f["ci95"][1] - f["mean"] if f else 0.0 for f in figures]
    return means, np.array([low, high])


def specialization_figure(report: dict):
    """Work entropy per group and division of labour (observed and shuffled) per pairing, a row per pairing."""
    pairings = report["pairings"]
    fig = _figure(12.0, 1.8 + 0.55 * len(pairings))
    left, right = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(pairings))[::-1]
    for k, (group, colour) in enumerate(GROUPS.items()):
        means, err = _err([p["emergence"]["work"].get(group, {}).get("entropy") for p in pairings])
        left.barh(y - (k - 0.5) * 0.38, means, 0.38, xerr=err, color=colour, label=group, capsize=2)
    left.set_title("Work entropy per character\n(0: one skill, 1: all three equally)", fontsize=9)
    for k, (key, colour, label) in enumerate(
        (("mean", "#59a14f", "observed"), ("shuffled", "#bab0ac", "work shuffled among the town"))
    ):
        means, err = _err([p["emergence"]["division_of_labour"][key] for p in pairings])
        right.barh(y - (k - 0.5) * 0.38, means, 0.38, xerr=err, color=colour, label=label, capsize=2)
    right.set_title("Division of labour per town\nI(character; skill) / H(skill)", fontsize=9)
    left.set_yticks(y, [_label(p).replace("\n", " ") for p in pairings], fontsize=7)
    for ax in (left, right):
        ax.set_xlim(0, 1)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{report['env']}: specialization, {report['episodes_per_pairing']} towns per pairing (95% CI)")
    fig.tight_layout()
    return fig


def work_figure(report: dict):
    """Stacked shares of work per skill: focal, background, and by goal, one panel per pairing."""
    rows, cols = len(report["focal"]), len(report["backgrounds"])
    fig = _figure(4.2 * cols, 3.4 * rows)
    axes = _grid(fig, report)
    for p in report["pairings"]:
        ax, em = axes[p["focal_brain"], p["background_brain"]], p["emergence"]
        bars = {**{g: em["work"][g]["shares"] for g in GROUPS if g in em["work"]}, **em["work_by_goal"]}
        bottom = np.zeros(len(bars))
        for skill, colour in SKILLS.items():
            share = np.array([b[skill] or 0.0 for b in bars.values()])
            ax.bar(list(bars), share, bottom=bottom, color=colour, label=skill)
            bottom += share
        ax.set_title(_label(p).replace("\n", " "), fontsize=8)
        ax.set_ylim(0, 1)
        ax.tick_params(axis="x", labelsize=7, labelrotation=20)
    next(iter(axes.values())).legend(fontsize=7, loc="lower left")
    goals = ", ".join(GOAL_NAMES)
    fig.suptitle(f"{report['env']}: share of work at each skill, by group and by goal ({goals})")
    fig.tight_layout()
    return fig


def network_figure(report: dict):
    """Who sold to whom by role (group and goal): the roles on a circle, focal at left and background at right, an
    arrow per seller and buyer role as wide as their trades per town, one panel per pairing."""
    rows, cols = len(report["focal"]), len(report["backgrounds"])
    fig = _figure(max(7.0, 4.4 * cols), 4.4 * rows)
    axes = _grid(fig, report)
    for p in report["pairings"]:
        ax, em = axes[p["focal_brain"], p["background_brain"]], p["emergence"]
        net = em["trade_network"]
        flows, present = np.array(net["roles_per_town"]), np.array(net["characters_per_role"])
        turn = np.pi * (np.arange(len(present)) + 0.5) / len(present) * 2
        xy = np.stack([-np.sin(turn), np.cos(turn)], 1)  # focal roles down the left, background up the right
        top = flows.max() if flows.max() > 0 else 1.0
        for a, b in zip(*np.nonzero(flows)):
            if a == b:
                continue
            ax.annotate(
                "",
                xy=xy[b] * 0.85,
                xytext=xy[a] * 0.85,
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": "#4e79a7",
                    "lw": 0.3 + 5.0 * flows[a, b] / top,
                    "alpha": 0.75,
                    "connectionstyle": "arc3,rad=0.15",
                    "shrinkA": 8,
                    "shrinkB": 8,
                },
            )
        colours = [GROUPS["focal" if r.startswith("focal") else "background"] for r in net["roles"]]
        ax.scatter(xy[:, 0], xy[:, 1], s=80 + 160 * present, color=colours, zorder=3)
        for k, role in enumerate(net["roles"]):
            label = f"{role}\n{present[k]:.1f} each town" + (f", {flows[k, k]:.1f} within" if flows[k, k] else "")
            ax.text(xy[k, 0], xy[k, 1] - 0.14, label, ha="center", va="top", fontsize=6)
        ax.set_title(f"{_label(p).replace(chr(10), ' ')}\n{net['per_town']['mean']:.1f} trades per town", fontsize=8)
        ax.set_xlim(-1.6, 1.6)
        ax.set_ylim(-1.5, 1.5)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.suptitle(f"{report['env']}: trades from seller to buyer by role (group and goal), width: trades per town")
    fig.tight_layout()
    return fig


def prices_figure(report: dict):
    """Mean trade price per window over the episode, one panel per good, a line per pairing, the market's prices."""
    fig = _figure(5.0 * len(GOOD_NAMES), 4.2)
    axes = fig.subplots(1, len(GOOD_NAMES))
    for good, ax in zip(GOOD_NAMES, axes):
        for k, p in enumerate(report["pairings"]):
            prices = p["emergence"]["prices"]
            half = prices["window_ticks"] / 2
            windows = prices[good]["windows"]
            if not windows:
                continue
            t = np.array([(w["start_tick"] + half) / DAY for w in windows])
            colour = LINES[k % len(LINES)]
            ax.plot(t, [w["mean"] for w in windows], marker="o", ms=3, color=colour)
            ax.fill_between(
                t, [w["ci95"][0] for w in windows], [w["ci95"][1] for w in windows], color=colour, alpha=0.15
            )
        first = report["pairings"][0]["emergence"]["prices"][good]
        ax.axhline(first["market_pays"], color="#888888", ls="--", lw=1)
        ax.axhline(first["market_charges"], color="#444444", ls=":", lw=1)
        ax.set_title(f"{good}: mean price of a trade")
        ax.set_xlabel("day")
        ax.set_ylabel("coins")
    from matplotlib.lines import Line2D

    keys = [Line2D([], [], color=LINES[k % len(LINES)], marker="o", ms=3) for k in range(len(report["pairings"]))]
    keys += [Line2D([], [], color="#888888", ls="--"), Line2D([], [], color="#444444", ls=":")]
    labels = [_label(p).replace("\n", " ") for p in report["pairings"]] + ["the market pays", "the market charges"]
    fig.legend(keys, labels, loc="lower center", ncol=min(4, len(labels)), fontsize=7)
    fig.suptitle(f"{report['env']}: prices between characters over the episode (95% CI over the window's trades)")
    fig.tight_layout(rect=(0, 0.06 + 0.03 * (len(labels) // 4), 1, 1))
    return fig


def goal_rates_figure(report: dict):
    """Each character's goal rate when played by the focal brain and by the background brain, per pairing."""
    rows, cols = len(report["focal"]), len(report["backgrounds"])
    fig = _figure(4.2 * cols, 3.4 * rows)
    axes = _grid(fig, report)
    for p in report["pairings"]:
        ax, chars = axes[p["focal_brain"], p["background_brain"]], p["emergence"]["characters"]
        x = np.arange(len(chars))
        for k, (group, colour) in enumerate(GROUPS.items()):
            rates = [c[group]["goal_rate"] if group in c else None for c in chars]
            means = [r["rate"] if r and r["rate"] is not None else 0.0 for r in rates]
            err = np.array([[m - r["ci95"][0], r["ci95"][1] - m] if r else [0, 0] for m, r in zip(means, rates)]).T
            ax.bar(x + (k - 0.5) * 0.4, means, 0.4, yerr=err, color=colour, label=group, capsize=2)
        ax.set_xticks(x, [c["name"] for c in chars], fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_title(_label(p).replace("\n", " "), fontsize=8)
    next(iter(axes.values())).legend(fontsize=7)
    fig.suptitle(f"{report['env']}: goal rate per character, when focal and when background (95% Wilson)")
    fig.tight_layout()
    return fig


FIGURES = {
    "specialization.png": specialization_figure,
    "work.png": work_figure,
    "trade_network.png": network_figure,
    "prices.png": prices_figure,
    "goal_rates.png": goal_rates_figure,
}


def write_emergence_plots(report: dict, folder: str) -> list[str]:
    """Write every figure (see the module's doc) of a town judge report with emergence into ``folder``; returns
    the files written."""
    if report.get("kind") != "crowd" or not all("emergence" in p for p in report["pairings"]):
        raise ValueError("emergence plots need a town judge report made with emergence (sparring judge town)")
    os.makedirs(folder, exist_ok=True)
    written = []
    for name, make in FIGURES.items():
        path = os.path.join(folder, name)
        make(report).savefig(path, dpi=90)
        written.append(path)
    return written
