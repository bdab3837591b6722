"""The doctor passes an honest env and catches each deliberately broken one where it broke."""

import pytest

from sparring.kit.check import check
from tests.kit import toys


def run(cls, **kw):
    return check(cls, steps=300, audit_episodes=60, **kw)


def test_honest_toy_passes_every_check():
    report = run(toys.Walk)
    assert report.ok, report.text()
    checks = {f.check for f in report.findings}
    assert {
        "observations",
        "masks",
        "invariants",
        "determinism",
        "snapshots",
        "mask honesty",
        "gymnasium adapter",
        "pettingzoo adapter",
        "pettingzoo AEC adapter",
        "allocations",
        "reward audit",
    } <= checks


def test_determinism_compares_thread_counts():
    finding = next(f for f in run(toys.Walk).findings if f.check == "determinism")
    assert finding.status == "pass" and "1 vs 3 threads" in finding.message


def test_squared_passes():
    report = check("squared", steps=500, audit_episodes=100)
    assert report.ok, report.text()
    assert not [f for f in report.findings if f.status == "warn"], report.text()


@pytest.mark.parametrize(
    "cls, failing, where",
    [
        (toys.UsesNpRandom, "determinism", "env"),
        (toys.HidesState, "hidden state", "step 1"),
        (toys.HidesState, "determinism", "step"),
        (toys.LiesInMask, "mask honesty", "tick"),
        (toys.EmitsNaN, "observations", "obs[0]"),
        (toys.ExceedsBounds, "observations", "obs[1]"),
        (toys.ForbidsEverything, "masks", "tick 3"),
        (toys.BreaksInvariant, "invariants", "env"),
    ],
)
def test_broken_env_fails_the_right_check(cls, failing, where):
    report = run(cls)
    assert not report.ok
    hits = [f for f in report.findings if f.check == failing and f.status == "fail"]
    assert hits, report.text()
    assert where in hits[0].where, hits[0].line()


def test_nan_report_names_the_tick():
    finding = next(f for f in run(toys.EmitsNaN).findings if f.check == "observations")
    assert "tick 5" in finding.where and "not finite" in finding.message


def test_dishonest_reward_is_flagged():
    report = run(toys.RewardsIdling)
    audit = [f for f in report.findings if f.check == "reward audit"]
    assert audit and audit[0].status == "warn" and "noop" in audit[0].message


def test_text_report_ends_with_a_verdict():
    text = run(toys.LiesInMask).text()
    assert text.splitlines()[-1].startswith("FAILED")
    assert "FAIL mask honesty" in text


def test_the_audit_plays_each_seat_taken_from_outside_and_reads_that_seats_return():
    # the runner standing still is caught (its return -1) while the chaser's return is +1: read from the chaser's
    # seat, idling would look better than running away; read from the runner's own seat, it is worse
    report = run(toys.Chase)
    audit = [f for f in report.findings if f.check.startswith("reward audit")]
    assert [f.check for f in audit] == ["reward audit (runner)"], report.text()
    assert "noop -1.000" in audit[0].message and "scripted:run +1.000" in audit[0].message
    assert "'noop'" not in audit[0].message  # idling is not among the policies that match the script
