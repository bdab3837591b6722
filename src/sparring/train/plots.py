"""Learning-curve PNGs from a run's metrics.jsonl (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import os

from sparring.train.metrics import STEP, read_jsonl


def plot_run(run_dir: str) -> list[str]:
    """Write ``plots/<group>.png`` for each metric group (env, loss, train, perf, selfplay), and
    ``plots/curriculum.png`` for a run with a start-state curriculum; returns the files."""
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
        for ax in list(axes.flat)[len(names) :]:
            ax.axis("off")
        fig.tight_layout()
        path = os.path.join(out_dir, f"{group}.png")
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    curriculum = plot_curriculum(records, out_dir, plt)
    return written + ([curriculum] if curriculum else [])


def _group_order(label: str) -> tuple:
    """``true`` first, then groups by their key's number (``wave_2`` before ``wave_10``)."""
    if label == "true":
        return (0, 0, label)
    number = label.rsplit("_", 1)[-1]
    return (1, int(number), label) if number.lstrip("-").isdigit() else (2, 0, label)


def plot_curriculum(records: list[dict], out_dir: str, plt) -> str | None:
    """``plots/curriculum.png``: a start-state curriculum's draw share and recent success per group against
    training steps (heat maps, a row per group); None for a run without a curriculum."""
    import numpy as np

    parts = {}
    for part in ("share", "success"):
        prefix = f"curriculum/{part}/"
        labels = sorted({k[len(prefix) :] for r in records for k in r if k.startswith(prefix)}, key=_group_order)
        parts[part] = labels
    if not parts["share"]:
        return None
    steps = [r[STEP] for r in records]
    right = steps[-1] if steps[-1] > steps[0] else steps[0] + 1  # one record still spans a column
    fig, axes = plt.subplots(1, 2, figsize=(12, 1.2 + 0.22 * len(parts["share"])), squeeze=False)
    for ax, part in zip(axes[0], ("share", "success")):
        labels = parts[part] or ["true"]
        grid = np.array(
            [
                [
                    np.nan if r.get(f"curriculum/{part}/{label}") is None else r[f"curriculum/{part}/{label}"]
                    for r in records
                ]
                for label in labels
            ],
            np.float64,
        )
        image = ax.imshow(
            np.ma.masked_invalid(grid),
            aspect="auto",
            interpolation="nearest",
            cmap="viridis",
            vmin=0.0,
            vmax=1.0 if part == "success" else max(1e-9, float(np.nanmax(grid, initial=0))),
            extent=(steps[0], right, len(labels) - 0.5, -0.5),
        )
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title("share of starts drawn" if part == "share" else "recent success from the group", fontsize=9)
        ax.set_xlabel("agent steps", fontsize=8)
        ax.tick_params(labelsize=7)
        fig.colorbar(image, ax=ax, fraction=0.04)
    fig.tight_layout()
    path = os.path.join(out_dir, "curriculum.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
