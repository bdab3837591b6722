"""The stall audit warns when reaching the time limit pays a seat more than losing sooner, and only then."""

import numpy as np
import pytest

from sparring.kit.check import check
from sparring.kit.check.report import Report
from sparring.kit.check.stall import first_endings, stall_audit
from tests.kit import toys


def audit(cls, **config):
    report = Report(cls.name)
    stall_audit(report, cls, config, seed=0, episodes=60)
    return [f for f in report.findings if f.check.startswith("stall audit")]


def test_a_limit_that_pays_more_than_the_pit_is_flagged_with_the_figures():
    found = audit(toys.PaysForStalling)
    assert [f.status for f in found] == ["warn"], found
    # random play wanders until the limit (0; a fall on the last tick counts as reaching it) or falls into the pit
    # (-1) sooner: both figures are printed
    assert "random: time limit -0.0" in found[0].message and "loss before it -1.000" in found[0].message


def test_a_limit_paid_as_a_terminal_is_still_a_limit():
    # no truncation flag: the audit knows the limit from the max_ticks knob
    found = audit(toys.PaysForStalling, limit_terminal=1)
    assert [f.status for f in found] == ["warn"], found


@pytest.mark.parametrize("terminal", [0, 1])
def test_a_limit_that_pays_like_a_loss_passes(terminal):
    found = audit(toys.LimitPaysLikeALoss, limit_terminal=terminal)
    assert [f.status for f in found] == ["pass"], found
    assert "random: time limit -1.000" in found[0].message


def test_first_endings_reads_the_seat_return_the_limit_and_the_outcome():
    idle = lambda env: np.zeros((env.rows, 1), np.int32)  # noqa: E731
    r, at_limit, outcome, left = first_endings(toys.PaysForStalling, {}, 0, 0, idle, 5, 100)
    assert left == 0 and at_limit.all() and (r == 0).all() and (outcome == 1).all()  # not won: a loss by "win"
    right = lambda env: np.full((env.rows, 1), toys.RIGHT, np.int32)  # noqa: E731
    r, at_limit, outcome, _ = first_endings(toys.PaysForStalling, {}, 0, 0, right, 5, 100)
    assert not at_limit.any() and (r == 1).all() and (outcome == 0).all()


def test_the_doctor_runs_the_stall_audit():
    report = check(toys.PaysForStalling, steps=100, audit_episodes=60)
    assert report.ok  # a warning, not a failure
    assert [f.status for f in report.findings if f.check == "stall audit"] == ["warn"], report.text()
