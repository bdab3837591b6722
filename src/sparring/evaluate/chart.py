"""The failure analysis as a PNG bar chart (Agg canvas, no pyplot state): losses by phase and by transition."""

from __future__ import annotations

import os


def write_failure_chart(failures: dict, title: str, out: str) -> str:
    """Write two bar charts (losses by phase; by last transition, split by the window) to ``out``; returns it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.2))
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    phases = list(failures["by_phase"])
    left.bar(phases, [failures["by_phase"][p] for p in phases], color="#c0504d")
    left.set_title("losses by final phase")
    left.set_ylabel("losses")
    labels = list(failures["by_transition"])
    within = [failures["by_transition"][t]["within"] for t in labels]
    later = [failures["by_transition"][t]["losses"] - w for t, w in zip(labels, within)]
    right.bar(labels, within, color="#c0504d", label=f"<= {failures['window']} ticks after it")
    right.bar(labels, later, bottom=within, color="#f2a19e", label="later")
    right.set_title("losses by last phase transition")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.suptitle(f"{title}: {failures['losses']} losses")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=90)
    return out
