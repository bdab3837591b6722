"""Env knobs that move during training: a curriculum (an easier opponent first) or shaping that fades away."""

from __future__ import annotations

import numpy as np


def parse_anneal(text: str) -> list[tuple[str, float, float]]:
    """``KNOB=START[@UNTIL],...`` -> [(knob, start value, fraction of the budget where it arrives)].

    With ``train.vec ray`` every data-parallel worker anneals its own envs at the run's progress.
    """
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        knob, eq, rest = part.partition("=")
        value, at, until = rest.partition("@")
        try:
            start, end = float(value), float(until) if at else 1.0
        except ValueError:
            raise ValueError(
                f"env_anneal entry {part!r}: expected KNOB=START or KNOB=START@UNTIL with numbers, "
                "e.g. 'reward_damage=1' or 'foresight=0@0.5'"
            ) from None
        if not eq or not knob.strip():
            raise ValueError(f"env_anneal entry {part!r}: expected KNOB=START[@UNTIL]")
        if not 0.0 < end <= 1.0:
            raise ValueError(f"env_anneal entry {part!r}: UNTIL must be in (0, 1], got {end}")
        out.append((knob.strip(), start, end))
    return out


class EnvAnneal:
    """Moves float env knobs linearly from a start value to their configured value as training progresses.

    The configured value (``--env.KNOB``) is where a knob arrives, so a checkpoint is evaluated
    in the env it was finally trained in. ``env`` is an in-process BatchedEnv; ``plan`` comes
    from :func:`parse_anneal`.
    """

    def __init__(self, env, plan: list[tuple[str, float, float]]):
        cfg = env.cfg
        self.cfg = cfg
        self.plan = []
        floats = [n for n in cfg.dtype.names if np.issubdtype(cfg.dtype[n], np.floating)]
        for knob, start, until in plan:
            if knob not in floats:
                raise ValueError(f"env_anneal: {knob!r} is not a float knob of this env; valid: {floats}")
            self.plan.append((knob, start, float(cfg[knob][0]), until))

    def apply(self, progress: float) -> dict:
        """Set every knob for ``progress`` in [0, 1]; returns ``env_knob/<name>`` metrics."""
        out = {}
        for knob, start, end, until in self.plan:
            t = min(1.0, progress / until)
            value = start + (end - start) * t
            self.cfg[knob] = value
            out[f"env_knob/{knob}"] = value
        return out
