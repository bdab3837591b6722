"""The models' turns and decisions a second: counted where a model chooses, read by the progress lines."""

from __future__ import annotations

import numpy as np

from sparring.lm.choice import LineScorer, choose_lines
from sparring.lm.decisions import COUNT, DecisionCount, Meter


class Clock:
    def __init__(self):
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_a_meter_counts_from_its_start_and_its_rate_stands_while_no_decision_is_made():
    clock = Clock()
    count = DecisionCount(clock)
    count.add(5, 5)  # before the meter: not its work
    meter = Meter(count)
    assert meter.figures() == {} and meter.summary() == ""
    clock.now += 4
    count.add(10, 6)  # ten turns, four of them went on undecided
    assert meter.figures() == {"model turns": 10, "decisions/s": 1.5}
    clock.now += 100  # nothing decided since: the figures do not move (no new progress line)
    assert meter.figures() == {"model turns": 10, "decisions/s": 1.5}
    assert meter.summary() == "model: 10 turns, 6 decisions in 4.0 s of play (1.5 decisions/s)"
    count.add(0, 0)
    assert count.read() == (15, 11, 54.0, 0.0)


def test_choose_lines_counts_every_prompt_as_a_decision(tiny_model):
    scorer = LineScorer(tiny_model.model, tiny_model.tokenizer)
    texts = ["go to the farm or sleep?", "go to the farm or sleep?", "wait"]  # a repeat, and a single legal line
    lines = [["1: go to the farm", "7: sleep"], ["1: go to the farm", "7: sleep"], ["0: wait"]]
    before = COUNT.read()
    choose_lines(scorer, texts, lines, 0.0, np.random.default_rng(0))
    after = COUNT.read()
    assert (after[0] - before[0], after[1] - before[1]) == (3, 3)


def test_loading_a_model_is_not_play_and_a_restart_counts_a_new_phase():
    clock = Clock()
    count = DecisionCount(clock)
    meter = Meter(count)
    with count.loading():
        clock.now += 30  # a judge loads the next pairing's model
    clock.now += 2
    count.add(4, 4)
    assert meter.read() == (4, 4, 2.0)
    assert meter.report() == {"turns": 4, "decisions": 4, "seconds": 2.0, "decisions_per_s": 2.0}
    clock.now += 60  # a GRPO update
    meter.restart()
    assert meter.figures() == {} and meter.report() == {}
    clock.now += 1
    count.add(3, 2)
    assert meter.figures() == {"model turns": 3, "decisions/s": 2.0}
