"""Bootstrap intervals: SciPy's percentile bootstrap, as sparring computed it by hand before."""

import numpy as np
import pytest

from sparring.kit.stats import bootstrap_ci


def test_bootstrap_interval_covers_the_mean_and_narrows_with_more_data():
    rng = np.random.default_rng(1)
    small, large = rng.normal(5, 1, 10), rng.normal(5, 1, 1000)
    lo_s, hi_s = bootstrap_ci(small)
    lo_l, hi_l = bootstrap_ci(large)
    assert lo_s < small.mean() < hi_s and lo_l < 5 < hi_l
    assert hi_l - lo_l < (hi_s - lo_s) / 3
    assert bootstrap_ci([2.0, 2.0]) == (2.0, 2.0)


def _hand_percentile(data, statistic, resamples=10_000, seed=0, level=0.95):
    """The percentile bootstrap as sparring wrote it before it called SciPy: same draws, same percentiles."""
    samples = data[np.random.default_rng(seed).integers(0, data.size, (resamples, data.size))]
    stats = statistic(samples, axis=1)
    tail = 100 * (1 - level) / 2
    return np.percentile(stats, tail), np.percentile(stats, 100 - tail)


@pytest.mark.parametrize("statistic", [np.mean, np.median])
def test_scipy_bootstrap_matches_the_hand_written_one(statistic):
    data = np.random.default_rng(3).lognormal(0, 1, 25)
    assert bootstrap_ci(data, statistic) == pytest.approx(_hand_percentile(data, statistic), abs=1e-12)
    assert bootstrap_ci(data, statistic, level=0.8, seed=4) == pytest.approx(
        _hand_percentile(data, statistic, seed=4, level=0.8), abs=1e-12
    )


def test_median_with_ties_gets_finite_bounds():
    assert bootstrap_ci([1.0, 1.0, 1.02, 1.0, 0.99], np.median) == pytest.approx((0.99, 1.02))  # BCa gives NaN here
