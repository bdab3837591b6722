"""Wilson score intervals against published values and their edge cases."""

import pytest

from sparring.evaluate.wilson import wilson_interval


def test_known_values():
    # Newcombe (1998), example: 81 of 263 -> 0.2553 to 0.3662
    low, high = wilson_interval(81, 263)
    assert low == pytest.approx(0.2553, abs=1e-4) and high == pytest.approx(0.3662, abs=1e-4)


def test_edges_stay_inside_unit_interval():
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(900, 1000)  # so 90% of 1000 is just short of a 0.88 lower bound
    assert low == pytest.approx(0.87985, abs=1e-5) and high == pytest.approx(0.91709, abs=1e-5)


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="successes <= trials"):
        wilson_interval(5, 3)
