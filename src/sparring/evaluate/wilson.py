"""The Wilson score interval for a binomial proportion, computed by SciPy."""

from __future__ import annotations

import numbers


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
