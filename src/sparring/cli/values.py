"""Argument types with ranges: ``--episodes 0`` or ``--fps nan`` is a one-line error naming the flag and the range."""

from __future__ import annotations

import argparse
import math


def count(low: int = 1):
    """An argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def number(low: float = 0.0, high: float = math.inf, above: bool = False):
    """An argparse type: a finite number in [``low``, ``high``] (``(low, high]`` when ``above``)."""
    shown = (
        f"in {'(' if above else '['}{low:g}, {high:g}]" if math.isfinite(high) else f"{'>' if above else '>='} {low:g}"
    )

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value > low if above else value >= low) and value <= high):
            raise argparse.ArgumentTypeError(f"must be a finite number {shown}, got {text!r}")
        return value

    parse.__name__ = f"number {shown}"
    return parse
