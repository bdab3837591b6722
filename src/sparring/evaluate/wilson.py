"""The Wilson score interval for a binomial proportion."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """(low, high) bounds of the proportion ``successes / trials``; 95% by default; (0, 1) when trials is 0."""
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"wilson_interval needs 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
