"""Allocations are counted per env-step exactly, put on the kernel that makes them, and the doctor warns about them."""

import pytest
from numba.core.runtime import _nrt_python

from sparring.kit.check.allocations import check_allocations, count_allocations, numba_allocations
from sparring.kit.check.report import Report
from sparring.kit.registry import get
from tests.kit import toys
from tests.kit.check import allocating


def test_a_clean_env_allocates_nothing_per_env_only_its_argument_wrappers():
    found = count_allocations(toys.Walk, {}, seed=0, num_envs=16, steps=100)
    assert (found.step_per_env, found.reset_per_env, found.observe_per_env) == (0, 0, 0)
    assert found.episodes_per_env_step > 0  # auto-resets ran inside the measured steps
    # one wrapper per array argument of each compiled call, whatever num_envs
    assert found.step_per_call > 0 and found.reset_per_call > 0 and found.observe_per_call > 0


def test_one_array_per_step_reads_exactly_one_per_env_step():
    clean = count_allocations(toys.Walk, {}, seed=0, num_envs=16, steps=100)
    found = count_allocations(allocating.StepAllocates, {}, seed=0, num_envs=16, steps=100)
    assert found.step_per_env == 1.0
    assert found.step_per_call == clean.step_per_call
    assert (found.reset_per_env, found.observe_per_env) == (0, 0)
    assert found.kernels() == {"step": 1.0, "observe": 0.0, "reset": 0.0}


def test_two_arrays_per_observation_count_on_every_path_that_observes():
    found = count_allocations(allocating.ObserveAllocates, {}, seed=0, num_envs=16, steps=100)
    assert (found.step_per_env, found.reset_per_env, found.observe_per_env) == (2.0, 2.0, 2.0)
    assert found.kernels() == {"step": 0.0, "observe": 2.0, "reset": 0.0}


def test_arrays_made_in_a_reset_helper_count_once_per_episode_end():
    found = count_allocations(allocating.ResetAllocates, {}, seed=0, num_envs=16, steps=100)
    assert (found.reset_per_env, found.observe_per_env) == (2.0, 0.0)
    assert found.episodes_per_env_step > 0
    assert found.step_per_env == pytest.approx(2.0 * found.episodes_per_env_step)
    assert found.kernels()["step"] == pytest.approx(0.0, abs=1e-12)


def test_counting_leaves_the_runtime_statistics_as_it_found_them():
    was_on = _nrt_python.memsys_stats_enabled()
    with numba_allocations() as count:
        assert _nrt_python.memsys_stats_enabled()
        assert count() >= 0
    assert _nrt_python.memsys_stats_enabled() == was_on


def _finding(cls, **config):
    report = Report(cls.name)
    check_allocations(report, cls, config, seed=0, num_envs=16, steps=100)
    [finding] = report.findings
    return report, finding


def test_the_doctor_warns_naming_the_kernel_the_count_and_the_remedy():
    report, finding = _finding(allocating.StepAllocates)
    assert finding.status == "warn" and report.ok  # a warning, not a failure
    assert "1.00 arrays per env-step" in finding.message
    assert "tests.kit.check.allocating.scratch_step (allocating.py:" in finding.message
    assert "preallocate" in finding.message


def test_the_doctor_warns_about_a_reset_that_allocates():
    _, finding = _finding(allocating.ResetAllocates)
    assert finding.status == "warn"
    assert "tests.kit.check.allocating.listing_reset (allocating.py:" in finding.message
    assert "2.00 arrays per reset" in finding.message


@pytest.mark.parametrize("name", ["squared", "duel", "serpent", "gauntlet", "town"])
def test_every_built_in_env_steps_without_allocating(name):
    _, finding = _finding(get(name))
    assert finding.status == "pass", finding.line()
