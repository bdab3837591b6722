"""Statistics that separate signal from noise: bootstrap intervals, two-sample tests, Holm's correction."""

from __future__ import annotations

import dataclasses

import numpy as np

from sparring.kit.stats import (
    bootstrap_ci,
)  # here too: compare, ablate and the benchmarks take it from sweep.stats

TESTS = ("welch", "mannwhitney")
NO_DIFFERENCE = "no detectable difference"


def two_sample_p(a, b, test: str = "welch") -> float:
    """Two-sided p-value that ``a`` and ``b`` come from the same distribution (``welch`` t or ``mannwhitney`` U).

    Identical constant samples give 1.0; different constants give 0.0 (no noise to hide behind).
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; valid: {', '.join(TESTS)}")
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.size < 2 or b.size < 2:
        raise ValueError(f"a significance test needs at least 2 values per side, got {a.size} and {b.size}")
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return 1.0 if a[0] == b[0] else 0.0
    from scipy import stats as sps  # lazy: scipy is slow to import and the CLI starts fast

    if test == "welch":
        return float(sps.ttest_ind(a, b, equal_var=False).pvalue)
    return float(sps.mannwhitneyu(a, b, alternative="two-sided").pvalue)


def holm(p_values) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given); controls the family-wise error rate.

    Written here: SciPy's ``false_discovery_control`` has only Benjamini-Hochberg/Yekutieli, and
    statsmodels' ``multipletests(method="holm")`` would be a large dependency for these few lines.
    """
    p = np.asarray(p_values, np.float64)
    order = np.argsort(p)
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted.tolist()


@dataclasses.dataclass
class Comparison:
    """One value against the base: means, 95% bootstrap intervals, raw and corrected p, verdict."""

    label: str
    mean: float
    ci95: tuple[float, float]
    base_mean: float
    p_value: float
    p_adjusted: float
    verdict: str


def verdict(
    mean: float, base_mean: float, p_adjusted: float, alpha: float = 0.05, higher: str = "higher", lower: str = "lower"
) -> str:
    """``higher``/``lower`` than the base with the corrected p when significant, else "no detectable difference"."""
    if p_adjusted >= alpha:
        return NO_DIFFERENCE
    return f"{higher if mean > base_mean else lower} (p={p_adjusted:.2g})"


def compare_to_base(base, others: dict, test: str = "welch", alpha: float = 0.05) -> list[Comparison]:
    """Each sample in ``others`` (label -> values) against ``base``, Holm-corrected over all of them."""
    base = np.asarray(base, np.float64)
    raw = [two_sample_p(values, base, test) for values in others.values()]
    adjusted = holm(raw) if raw else []
    out = []
    for (label, values), p, q in zip(others.items(), raw, adjusted):
        mean = float(np.mean(values))
        out.append(
            Comparison(
                label, mean, bootstrap_ci(values), float(base.mean()), p, q, verdict(mean, float(base.mean()), q, alpha)
            )
        )
    return out
