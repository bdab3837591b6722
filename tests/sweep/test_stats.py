"""Two-sample tests, Holm's correction and verdict words."""

import numpy as np
import pytest

from sparring.sweep.stats import NO_DIFFERENCE, compare_to_base, holm, two_sample_p


def test_holm_matches_hand_computation():
    # sorted 0.01, 0.02, 0.04 -> 3*0.01, max(0.03, 2*0.02), max(0.04, 1*0.04)
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert holm([0.3, 0.2]) == pytest.approx([0.4, 0.4])  # 2*0.2, then max(0.4, 1*0.3)


@pytest.mark.parametrize("test", ["welch", "mannwhitney"])
def test_separated_samples_are_significant_and_same_distribution_is_not(test):
    rng = np.random.default_rng(2)
    base = rng.normal(0, 1, 12)
    result = compare_to_base(base, {"shifted": rng.normal(3, 1, 12), "same": rng.normal(0, 1, 12)}, test)
    shifted, same = result
    assert shifted.p_adjusted < 0.01 and shifted.verdict.startswith("higher")
    assert same.p_adjusted > 0.05 and same.verdict == NO_DIFFERENCE


def test_bad_inputs_name_what_is_valid():
    with pytest.raises(ValueError, match="welch, mannwhitney"):
        two_sample_p([1, 2], [3, 4], "ttest")
    with pytest.raises(ValueError, match="at least 2 values"):
        two_sample_p([1], [3, 4])
    assert two_sample_p([1, 1], [1, 1]) == 1.0 and two_sample_p([1, 1], [2, 2]) == 0.0
