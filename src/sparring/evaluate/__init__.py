"""Evaluation: win rates with Wilson intervals, per-phase outcome tables, failure analysis, live replays.

``sparring eval`` also clusters the losses by the phase they ended in and by the
last phase transition before them (:mod:`sparring.evaluate.failures`), can keep
the evaluated episodes as a recording (``--record FILE``) with HTML replays of
the worst ones (``--worst K``), and draws the loss clusters as a PNG bar chart.

Low-watermarks: an env may name state fields whose lowest value per episode is
worth reporting, in an optional class attribute ``watermarks`` mapping a
metric name to ``(state field, index or None)``: the index picks one entry of
an array field, ``None`` takes a scalar field. For example duel's
``watermarks = {"lowest_hp": ("hp", 0)}`` is seat 0's lowest hp. Eval reports
the mean of each over episodes, split by outcome (win, loss, draw).
"""

from sparring.kit.stats import wilson_interval

__all__ = ["wilson_interval"]
