"""The failure analysis as a PNG bar chart (Agg canvas, no pyplot state): losses by phase and by transition."""

from __future__ import annotations

import os


def failure_figure(failures: dict, title: str):
    """A matplotlib Figure of two bar charts: losses by the phase they ended in (only phases with losses; the
    x label counts the others) and by the last phase change before them, split by the window."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.2))
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    lost = {p: n for p, n in failures["by_phase"].items() if n}
    left.bar(list(lost), list(lost.values()), color="#c0504d")
    left.set_title("Losses by the phase they ended in")
    left.set_ylabel("losses")
    spared = len(failures["by_phase"]) - len(lost)
    if spared:
        left.set_xlabel(f"{spared} phase{'' if spared == 1 else 's'} without a loss left out", fontsize=8)
    labels = list(failures["by_transition"])
    within = [failures["by_transition"][t]["within"] for t in labels]
    later = [failures["by_transition"][t]["losses"] - w for t, w in zip(labels, within)]
    right.bar(labels, within, color="#c0504d", label=f"within {failures['window']} ticks of the change")
    right.bar(labels, later, bottom=within, color="#f2a19e", label=f"more than {failures['window']} ticks after")
    right.set_title("Losses by the last phase change before them")
    if labels:
        right.legend(fontsize=8)
    for ax in (left, right):
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        if not failures["losses"]:
            ax.text(0.5, 0.5, "no losses", ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(f"{title}: {failures['losses']} losses")
    fig.tight_layout()
    return fig


def write_failure_chart(failures: dict, title: str, out: str) -> str:
    """Write :func:`failure_figure` to the PNG ``out``; returns it."""
    fig = failure_figure(failures, title)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=90)
    return out
