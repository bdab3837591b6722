"""The end of a sweep: a results table (CSV and text) and PNG plots, each written atomically into the sweep folder."""

from __future__ import annotations

import csv
import os

import optuna

from sparring.kit.atomic import atomic_file, atomic_path


def _rows(study: optuna.Study) -> tuple[list[str], list[list]]:
    keys = sorted({k for t in study.trials for k in t.params})
    header = ["trial", "state", "value", "rungs", *keys, "seconds"]
    rows = []
    for t in study.trials:
        seconds = (t.datetime_complete - t.datetime_start).total_seconds() if t.datetime_complete else None
        rows.append(
            [
                t.number,
                t.state.name.lower(),
                t.value,
                len(t.intermediate_values),
                *(t.params.get(k) for k in keys),
                seconds,
            ]
        )
    return header, rows


def _fmt(value) -> str:
    if value is None:
        return "-"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def results_table(study: optuna.Study, metric: str) -> str:
    """One line per trial (number, state, value, rungs scored, knobs, seconds), best trial last."""
    header, rows = _rows(study)
    cells = [header] + [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
    complete = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if complete:
        best = study.best_trial
        knobs = ", ".join(f"{k}={_fmt(v)}" for k, v in best.params.items())
        lines.append(f"best: trial {best.number}, {metric} = {best.value:.4g} with {knobs}")
    else:
        lines.append("best: none (no trial completed)")
    return "\n".join(lines)


def importances(study: optuna.Study) -> dict[str, float]:
    """PED-ANOVA parameter importances over completed trials ({} with fewer than two, or nothing varied).

    PED-ANOVA ships with Optuna and needs no scikit-learn (fANOVA, Optuna's default, does).
    """
    complete = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if len(complete) < 2 or len({tuple(sorted(t.params.items())) for t in complete}) < 2:
        return {}
    return optuna.importance.get_param_importances(study, evaluator=optuna.importance.PedAnovaImportanceEvaluator())


def write_report(study: optuna.Study, folder: str, metric: str) -> dict[str, str]:
    """``results.csv``, ``results.txt``, ``objective.png`` and (when computable) ``importance.png``; name -> path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    paths = {}
    header, rows = _rows(study)
    paths["csv"] = os.path.join(folder, "results.csv")
    with atomic_file(paths["csv"], newline="") as fh:
        csv.writer(fh).writerows([header, *rows])
    paths["table"] = os.path.join(folder, "results.txt")
    with atomic_file(paths["table"]) as fh:
        fh.write(results_table(study, metric) + "\n")

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for state, marker in ((optuna.trial.TrialState.COMPLETE, "o"), (optuna.trial.TrialState.PRUNED, "x")):
        pts = [
            (t.number, t.value if t.value is not None else t.intermediate_values[max(t.intermediate_values)])
            for t in study.trials
            if t.state == state and (t.value is not None or t.intermediate_values)
        ]
        ax.scatter(
            [p[0] for p in pts],
            [p[1] for p in pts],
            marker=marker,
            label=f"{state.name.lower()} ({'final' if state == optuna.trial.TrialState.COMPLETE else 'last rung'})",
        )
    done = sorted((t.number, t.value) for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE)
    if done:
        best, running = [], float("-inf")
        for _, value in done:
            running = max(running, value)
            best.append(running)
        ax.step([d[0] for d in done], best, where="post", color="k", lw=1, label="best so far")
    ax.set_xlabel("trial")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_ylabel(metric)
    ax.set_title("objective over trials")
    ax.legend(fontsize=7)
    fig.tight_layout()
    paths["objective"] = _save(fig, os.path.join(folder, "objective.png"))

    imp = importances(study)
    if imp:
        fig, ax = plt.subplots(figsize=(6, 1.2 + 0.4 * len(imp)))
        names = list(imp)[::-1]
        ax.barh(names, [imp[n] for n in names])
        complete = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
        ax.set_title(f"parameter importance (PED-ANOVA, {complete} completed trials)", fontsize=10)
        ax.set_xlabel("share of importance")
        fig.tight_layout()
        paths["importance"] = _save(fig, os.path.join(folder, "importance.png"))
    plt.close("all")
    return paths


def _save(fig, path: str) -> str:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=90, format="png")
    return path
