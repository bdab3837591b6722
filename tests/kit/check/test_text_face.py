"""The checker's text-face check: it passes the built-in faces and names what a broken face gets wrong."""

import pytest

from sparring.envs.squared.env import Squared
from sparring.kit import registry
from sparring.kit.check.report import Report
from sparring.kit.check.text_face import check_text_face
from sparring.kit.text import Line, Parsed, TextFace


class Spoken(TextFace):
    @staticmethod
    def describe(s, cfg, agent):
        return f"You are at row {int(s['row'])}."

    @staticmethod
    def lines(s, cfg, agent):
        return [Line((0,), "wait"), Line((2,), "go up")]


class Deaf(Spoken):
    @classmethod
    def parse(cls, answer, s, cfg, agent):
        return Parsed(0, (0,), "exact", "wait")  # every answer is "wait"


class Unmasked(Spoken):
    @staticmethod
    def lines(s, cfg, agent):
        return [Line((0,), "wait"), Line((7,), "teleport")]  # squared's move head has 5 values


def _check(face) -> Report:
    cls = type("SpokenSquared", (Squared,), {"text": face, "__module__": __name__})
    report = Report(cls.name)
    check_text_face(report, cls, {}, steps=5, seed=0)
    return report


@pytest.mark.parametrize("name", ["town", "duel", "serpent"])
def test_the_built_in_faces_pass(name):
    report = Report(name)
    check_text_face(report, registry.get(name), {}, steps=5, seed=0)
    assert [f.status for f in report.findings] == ["pass"], report.text()


@pytest.mark.parametrize(
    "face, says",
    [(Spoken, None), (Deaf, "line '1: go up' parses back to 0 (exact), not to itself"), (Unmasked, "not allowed")],
)
def test_a_broken_face_fails_naming_the_line(face, says):
    report = _check(face)
    (finding,) = report.findings
    assert (finding.status == "pass") if says is None else (finding.status == "fail" and says in finding.message)
