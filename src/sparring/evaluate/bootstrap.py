"""Bootstrap intervals (SciPy) for figures that are not yes/no: trades per character, a run's scores."""

from __future__ import annotations

import numpy as np


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
