"""Learning-curve PNGs from a run's metrics.jsonl (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import os

from sparring.train.metrics import STEP, read_jsonl


def plot_run(run_dir: str) -> list[str]:
    """Write ``plots/<group>.png`` for each metric group (env, loss, train, perf); returns the files."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = read_jsonl(os.path.join(run_dir, "metrics.jsonl"))
    if not records:
        return []
    out_dir = os.path.join(run_dir, "plots")
    os.makedirs(out_dir, exist_ok=True)
    keys = sorted({k for r in records for k, v in r.items() if isinstance(v, (int, float)) and k != STEP})
    written = []
    for group in ("env", "loss", "train", "perf", "selfplay"):
        names = [k for k in keys if k.split("/")[0] == group]
        if not names:
            continue
        cols = min(3, len(names))
        rows = (len(names) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.8 * rows), squeeze=False)
        for ax, name in zip(axes.flat, names):
            pts = [(r[STEP], r[name]) for r in records if r.get(name) is not None]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], lw=1.2)
            ax.set_title(name, fontsize=9)
            ax.set_xlabel("agent steps", fontsize=8)
            ax.tick_params(labelsize=7)
        for ax in list(axes.flat)[len(names):]:
            ax.axis("off")
        fig.tight_layout()
        path = os.path.join(out_dir, f"{group}.png")
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written
