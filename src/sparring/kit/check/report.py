"""Findings of the env doctor and the report that collects them."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class Finding:
    """One check's verdict: ``status`` is "pass", "warn" or "fail"; ``where`` locates a failure."""

    check: str
    status: str
    message: str
    where: str = ""

    def line(self) -> str:
        """One printable line."""
        tag = {"pass": "PASS", "warn": "WARN", "fail": "FAIL"}[self.status]
        loc = f" [{self.where}]" if self.where else ""
        return f"{tag} {self.check}: {self.message}{loc}"


@dataclasses.dataclass
class Report:
    """All findings for one env; ``ok`` is False if any check failed."""

    env: str
    findings: list[Finding] = dataclasses.field(default_factory=list)

    def add(self, check: str, status: str, message: str, where: str = "") -> None:
        """Record a finding."""
        self.findings.append(Finding(check, status, message, where))

    @property
    def ok(self) -> bool:
        """True when no check failed (warnings allowed)."""
        return all(f.status != "fail" for f in self.findings)

    def failed(self, check: str) -> bool:
        """True if the named check failed."""
        return any(f.check == check and f.status == "fail" for f in self.findings)

    def text(self) -> str:
        """The report as printable lines, with a verdict at the end."""
        lines = [f"sparring check {self.env}"] + ["  " + f.line() for f in self.findings]
        n_fail = sum(f.status == "fail" for f in self.findings)
        n_warn = sum(f.status == "warn" for f in self.findings)
        lines.append(
            f"{'OK' if self.ok else 'FAILED'}: {n_fail} failed, {n_warn} warning(s), "
            f"{len(self.findings) - n_fail - n_warn} passed"
        )
        return "\n".join(lines)


def first_difference(a, b) -> str:
    """Name of the first record field that differs between records ``a`` and ``b`` (or "")."""
    for name in a.dtype.names:
        if a[name].tobytes() != b[name].tobytes():
            return name
    return ""
