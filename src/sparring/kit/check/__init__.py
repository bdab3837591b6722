"""The env doctor: ``check(env)`` runs every check and returns a :class:`Report`."""

from __future__ import annotations

from sparring.kit.check.adapters import check_adapters
from sparring.kit.check.allocations import check_allocations
from sparring.kit.check.audit import reward_audit
from sparring.kit.check.bounds import check_state_bounds
from sparring.kit.check.honesty import check_mask_honesty
from sparring.kit.check.play_checks import check_determinism, check_random_play, check_snapshots
from sparring.kit.check.report import Finding, Report
from sparring.kit.check.stall import stall_audit
from sparring.kit.check.text_face import check_text_face
from sparring.kit.config import make_config
from sparring.kit.registry import get


def check(env, steps: int = 2000, seed: int = 0, audit_episodes: int = 200, **config) -> Report:
    """Check an env (a registered name or an Env class) and return the findings.

    ``steps`` random-policy steps drive the observation, mask, invariant and
    determinism checks; the allocation check counts the arrays stepping allocates
    (warns if any); the reward and stall audits play ``audit_episodes`` per policy.
    """
    cls = get(env) if isinstance(env, str) else env
    make_config(cls, config)  # bad keys fail here, before any check runs
    report = Report(cls.name)
    check_random_play(report, cls, config, steps, seed)
    check_state_bounds(report, cls, config, seed)
    check_determinism(report, cls, config, steps, seed)
    check_snapshots(report, cls, config, seed)
    check_mask_honesty(report, cls, config, seed)
    check_adapters(report, cls, config)
    check_text_face(report, cls, config, min(steps, 50), seed)
    check_allocations(report, cls, config, seed)
    reward_audit(report, cls, config, seed, episodes=audit_episodes)
    stall_audit(report, cls, config, seed, episodes=audit_episodes)
    return report


__all__ = ["Finding", "Report", "check"]
