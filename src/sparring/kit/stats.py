"""Intervals for the figures the project reports (SciPy): Wilson for yes/no rates, the percentile bootstrap for
the rest. In the kit so that an env's own analyses (town's emergence) use the same statistics as evaluate's."""

from __future__ import annotations

import numbers

import numpy as np


def wilson_interval(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """(low, high) bounds of the proportion ``successes / trials`` at confidence ``level`` (95% by default).

    SciPy's ``binomtest(successes, trials).proportion_ci(method="wilson")``; (0, 1) when ``trials`` is 0,
    where SciPy refuses (no trials say nothing about the proportion).
    """
    if not all(isinstance(v, numbers.Integral) for v in (successes, trials)):
        raise ValueError(f"wilson_interval needs whole counts, got {successes!r}/{trials!r}")
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"wilson_interval needs 0 <= successes <= trials, got {successes}/{trials}")
    if not 0 < level < 1:
        raise ValueError(f"wilson_interval needs 0 < level < 1, got {level}")
    if trials == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest  # lazy: the CLI imports this module at start-up

    ci = binomtest(int(successes), int(trials)).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


def bootstrap_ci(
    values, statistic=np.mean, level: float = 0.95, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over ``values`` (a point interval for one value).

    ``scipy.stats.bootstrap`` with ``method="percentile"``, not its default BCa: BCa's jackknife
    degenerates (NaN bounds) on the medians with ties that ``sparring compare`` takes and on the
    few seeds of an ablation. One value, or all values equal, give the point interval (SciPy
    refuses a single value). ``statistic`` must take ``axis`` (NumPy reductions do).
    """
    from scipy.stats import bootstrap  # lazy: scipy is slow to import and the CLI starts fast

    data = np.asarray(values, np.float64)
    if data.size == 0:
        raise ValueError("bootstrap_ci needs at least one value")
    if data.size == 1 or np.all(data == data[0]):
        return float(data[0]), float(data[0])
    result = bootstrap(
        (data,),
        statistic,
        n_resamples=resamples,
        confidence_level=level,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
