"""Wilson score intervals against published values, the closed form they replaced, and their edge cases."""

import math

import pytest

from sparring.kit.stats import wilson_interval


def _closed_form(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The score interval written out (Wilson 1927), as sparring computed it before it called SciPy."""
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def test_known_values():
    # Newcombe (1998), example: 81 of 263 -> 0.2553 to 0.3662
    low, high = wilson_interval(81, 263)
    assert low == pytest.approx(0.2553, abs=1e-4) and high == pytest.approx(0.3662, abs=1e-4)


@pytest.mark.parametrize("trials", [1, 2, 7, 50, 263, 1000, 3001])
def test_scipy_matches_the_closed_form_to_float_precision(trials):
    for successes in sorted({0, 1, trials // 3, trials // 2, trials - 1, trials}):
        low, high = wilson_interval(successes, trials)
        ref_low, ref_high = _closed_form(successes, trials)
        assert abs(low - ref_low) < 1e-12 and abs(high - ref_high) < 1e-12, (successes, trials)


def test_level_widens_the_interval():
    z99 = 2.5758293035489004  # the two-sided 99% normal quantile
    assert wilson_interval(30, 100, level=0.99) == pytest.approx(_closed_form(30, 100, z99), abs=1e-12)
    assert wilson_interval(30, 100, level=0.99)[0] < wilson_interval(30, 100)[0]


def test_edges_stay_inside_unit_interval():
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(900, 1000)  # so 90% of 1000 is just short of a 0.88 lower bound
    assert low == pytest.approx(0.87985, abs=1e-5) and high == pytest.approx(0.91709, abs=1e-5)


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="successes <= trials"):
        wilson_interval(5, 3)
    with pytest.raises(ValueError, match="whole counts"):
        wilson_interval(2.5, 10)
    with pytest.raises(ValueError, match="0 < level < 1"):
        wilson_interval(2, 10, level=95)
