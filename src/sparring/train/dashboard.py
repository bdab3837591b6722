"""What ``sparring train`` shows while it runs, on the one progress display of :mod:`sparring.kit.progress`.

The bar counts learner steps against the budget (steps, or the fraction of the minutes), with the
steps/s and the ETA; the key figures are the episode return and length, the env's episode metrics
and the policy and value losses; on a terminal a table under the bar holds the other losses, the
timings and the self-play figures. Per-phase metrics are left to ``metrics.jsonl`` and the plots.
"""

from __future__ import annotations

SHOWN_BY_THE_BAR = ("train/step", "train/sps", "train/elapsed_s", "train/iteration")
NAMES = {
    "env/episode_return": "return",
    "env/episode_length": "length",
    "loss/policy": "policy_loss",
    "loss/value": "value_loss",
}


def show(progress, metrics: dict, fraction: float) -> None:
    """Fold one iteration's ``metrics`` into ``progress``; ``fraction`` is the part of the budget used."""
    figures, table = dict(progress.figures), {}
    for key, value in metrics.items():
        if value is None or key in SHOWN_BY_THE_BAR or key == "env/episodes" or key.startswith("env/phase/"):
            continue
        if key.startswith("env/") or key in NAMES:
            figures[NAMES.get(key, key.removeprefix("env/"))] = value
        else:
            table[key] = value
    ordered = dict(sorted(figures.items(), key=lambda item: _rank(item[0])))  # stable: ties keep their order
    progress.update(metrics.get("train/step"), ordered, fraction=fraction, table=table)


def _rank(name: str) -> int:
    """Return and length first, then the env's metrics, the losses last."""
    return {"return": 0, "length": 1, "policy_loss": 3, "value_loss": 3}.get(name, 2)
