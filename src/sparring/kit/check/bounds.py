"""The state bounds check: every state the env reaches lies within its declared bounds, and they cover its
integer fields.

States read from files are refused when a value lies outside its field's bounds (:mod:`sparring.kit.trust`),
so bounds too tight would refuse an honest recording, and a field without bounds lets a file put any value
where a kernel may use it as an index.
"""

from __future__ import annotations

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.play import allowed_actions, uniform_table
from sparring.kit.check.report import Report
from sparring.kit.trust import BadState, unbounded_fields, validate_states


def check_state_bounds(report: Report, cls, config: dict, seed: int, steps: int = 300, num_envs: int = 16) -> None:
    """Random play without auto-reset (so the states episodes end in are seen too): every state passes
    ``validate_states`` (its ranges every step, its invariants at every end); warn of unbounded integer fields."""
    env = BatchedEnv(cls, num_envs=num_envs, seed=seed, autoreset=False, **config)
    u = uniform_table(seed + 4, steps, env.rows, len(env.heads.sizes))
    ends = 0
    try:
        for t in range(steps + 1):
            validate_states(cls, env.config, env.records, f"step {t}", lambda i: f"env {i}", invariants=False)
            if t == steps:
                break
            env.step(allowed_actions(env.mask, env.heads.sizes, u[t]))
            if env.done.any():
                ended = np.flatnonzero(env.done)
                validate_states(
                    cls, env.config, env.records[ended], f"step {t + 1}, an episode's end", lambda i: f"env {ended[i]}"
                )
                ends += len(ended)
                env.reset_envs(ended)
    except BadState as exc:
        report.add(
            "state bounds",
            "fail",
            f"a state the env reached is refused, so a recording of it would be: "
            f"{exc} (widen Env.bounds, or fix the rule that left the range)",
        )
        return
    loose = unbounded_fields(cls, env.config)
    if loose:
        report.add(
            "state bounds",
            "warn",
            f"integer state fields {loose} have no declared bounds: a file could "
            "hold any value there, out of range of any array a kernel indexes with "
            "it (declare them in Env.bounds)",
        )
        return
    ended = f"the {ends} states episodes ended in included" if ends else "no episode ended"
    report.add(
        "state bounds",
        "pass",
        f"every state of {steps} random steps x {num_envs} envs within the declared bounds ({ended})",
    )
