"""The doctor runs Gymnasium's checker and PettingZoo's parallel and AEC tests on the adapters: an honest env passes
all three; an observation outside its space, which only the AEC test looks for, fails that one."""

from sparring.kit.check.adapters import check_adapters
from sparring.kit.check.report import Report
from tests.kit import toys


def _findings(cls) -> dict:
    report = Report(cls.name)
    check_adapters(report, cls, {}, cycles=100)
    return {f.check: f for f in report.findings}


def test_an_honest_env_passes_each_librarys_checker():
    found = _findings(toys.Walk)
    assert list(found) == ["gymnasium adapter", "pettingzoo adapter", "pettingzoo AEC adapter"]
    assert all(f.status == "pass" for f in found.values()), [f.line() for f in found.values()]


def test_the_aec_test_catches_an_observation_outside_its_space_that_the_parallel_test_lets_pass():
    found = _findings(toys.ExceedsBounds)
    assert found["pettingzoo adapter"].status == "pass"
    aec = found["pettingzoo AEC adapter"]
    assert aec.status == "fail" and aec.message.startswith("AssertionError: Out of bounds observation"), aec.line()
