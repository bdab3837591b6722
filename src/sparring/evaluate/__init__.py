"""Evaluation: win rates with Wilson intervals, per-phase outcome tables, live replays."""

from sparring.evaluate.wilson import wilson_interval

__all__ = ["wilson_interval"]
