"""Failure analysis: where losses happen (final phase, last phase transition) and low-watermarks.

:class:`PhaseTracker` follows every env of a ``BatchedEnv`` during eval play:
the phase it is in, the tick that phase began, the phase before it, and the
running minimum of each low-watermark field. :func:`summarize_failures` turns
the finished episodes into the loss clusters and the low-watermark means per
outcome that ``sparring eval`` prints (and adds to ``--json`` under
``"failures"``).
"""

from __future__ import annotations

import numpy as np

from sparring.evaluate.episodes import OUTCOMES, outcomes

NO_PHASE = -1  # "previous phase" of an episode that never changed phase


def watermark_spec(env_cls) -> dict[str, tuple[str, int | None]]:
    """The env's ``watermarks`` class attribute, checked: ``{name: (state field, index or None)}``."""
    spec = getattr(env_cls, "watermarks", {})
    if not isinstance(spec, dict):
        raise ValueError(
            f"env {env_cls.name!r}: watermarks must be a dict {{name: (field, index or None)}}, "
            f"got {type(spec).__name__}"
        )
    fields = dict(env_cls.state)
    out = {}
    for name, entry in spec.items():
        if not (isinstance(entry, tuple) and len(entry) == 2):
            raise ValueError(
                f"env {env_cls.name!r}: watermark {name!r} must be a (field, index or None) pair, got {entry!r}"
            )
        field, index = entry
        if field not in fields:
            raise ValueError(
                f"env {env_cls.name!r}: watermark {name!r} names state field {field!r}; the state "
                f"fields are {sorted(fields)}"
            )
        out[name] = (field, index)
    return out


class PhaseTracker:
    """Per env of ``env``: current phase, the tick it began, the phase before it, low-watermarks so far.

    Call :meth:`start` for envs whose episode just began (all of them first),
    :meth:`observe` after every step, and :meth:`finish` for envs whose episode
    just ended, before they are reset; :attr:`rows` then holds, per finished
    episode in order, ``[final phase, previous phase, tick the final phase
    began, watermark minima...]``.
    """

    def __init__(self, env):
        self.env = env
        self.watermarks = watermark_spec(env.env_cls)
        for name, (field, index) in self.watermarks.items():
            shape = env.records[field].shape[1:]
            if (index is None) != (shape == ()) or (index is not None and not 0 <= index < int(np.prod(shape))):
                raise ValueError(
                    f"env {env.env_cls.name!r}: watermark {name!r} index {index!r} does not fit "
                    f"state field {field!r} of shape {shape} (use None for a scalar field)"
                )
        n = env.num_envs
        self.phase = np.zeros(n, np.int64)
        self.previous = np.full(n, NO_PHASE, np.int64)
        self.began = np.zeros(n, np.int64)
        self.lows = np.zeros((n, len(self.watermarks)), np.float64)
        self.rows: list[np.ndarray] = []

    def _values(self) -> np.ndarray:
        recs = self.env.records
        cols = [recs[f].reshape(len(recs), -1)[:, 0 if i is None else i] for f, i in self.watermarks.values()]
        return np.stack(cols, 1).astype(np.float64) if cols else np.zeros((len(recs), 0))

    def start(self, idx) -> None:
        """Envs ``idx`` begin an episode: their phase history and minima start from their current state."""
        idx = np.asarray(idx, np.int64)
        recs = self.env.records[idx]
        self.phase[idx] = recs["phase"]
        self.previous[idx] = NO_PHASE
        self.began[idx] = recs["tick"]
        self.lows[idx] = self._values()[idx]

    def observe(self) -> None:
        """After a step: note phase changes and lower the minima (frozen finished envs do not change)."""
        recs = self.env.records
        changed = np.flatnonzero(recs["phase"] != self.phase)
        self.previous[changed] = self.phase[changed]
        self.phase[changed] = recs["phase"][changed]
        self.began[changed] = recs["tick"][changed]
        np.minimum(self.lows, self._values(), out=self.lows)

    def finish(self, idx) -> None:
        """Envs ``idx`` ended an episode: keep its row."""
        idx = np.asarray(idx, np.int64)
        head = np.stack([self.phase[idx], self.previous[idx], self.began[idx]], 1).astype(np.float64)
        self.rows.append(np.concatenate([head, self.lows[idx]], 1))

    def table(self) -> np.ndarray:
        """All finished episodes' rows, in the order they finished."""
        return np.concatenate(self.rows) if self.rows else np.zeros((0, 3 + len(self.watermarks)))


def transition_label(phases, previous: int, phase: int) -> str:
    """``"a -> b"``, or ``"start -> b"`` for an episode that never left its first phase."""
    return f"{'start' if previous == NO_PHASE else phases[previous]} -> {phases[phase]}"


def summarize_failures(env_cls, episodes: np.ndarray, tracked: np.ndarray, watermarks, window: int = 20) -> dict:
    """Losses by final phase and by last phase transition, and low-watermark means per outcome.

    ``episodes`` are :func:`~sparring.evaluate.episodes.play_episodes` rows and
    ``tracked`` the matching :meth:`PhaseTracker.table` rows; a loss counts as
    ``within`` when it came at most ``window`` ticks after its final phase began.
    """
    result = outcomes(env_cls, episodes)
    lost = result == OUTCOMES.index("loss")
    phases = env_cls.phases
    by_phase = {p: int((lost & (tracked[:, 0] == k)).sum()) for k, p in enumerate(phases)}
    by_transition: dict[str, dict] = {}
    for row, length in zip(tracked[lost], episodes[lost, 1]):
        label = transition_label(phases, int(row[1]), int(row[0]))
        entry = by_transition.setdefault(label, {"losses": 0, "within": 0})
        entry["losses"] += 1
        entry["within"] += int(length - row[2] <= window)
    by_transition = dict(sorted(by_transition.items(), key=lambda kv: -kv[1]["losses"]))
    lows = {}
    for m, name in enumerate(watermarks):
        lows[name] = {
            o: (float(tracked[result == k, 3 + m].mean()) if (result == k).any() else None)
            for k, o in enumerate(OUTCOMES)
        }
    return {
        "losses": int(lost.sum()),
        "window": window,
        "by_phase": by_phase,
        "by_transition": by_transition,
        "watermarks": lows,
    }


def format_failures(failures: dict) -> str:
    """The failure analysis as text tables: only the phases and transitions with losses (with a count of the
    phases without), and low-watermark means for the outcomes that happened."""
    lines = [f"  losses: {failures['losses']}"]
    if failures["losses"]:
        lost = {p: n for p, n in failures["by_phase"].items() if n}
        width = max([28, *map(len, lost), *map(len, failures["by_transition"])])
        w = failures["window"]
        lines.append(f"  {'lost in phase':<{width}} {'losses':>7}")
        lines += [f"  {p:<{width}} {n:>7}" for p, n in lost.items()]
        if len(lost) < len(failures["by_phase"]):
            spared = len(failures["by_phase"]) - len(lost)
            lines.append(f"  ... {spared} phase{'' if spared == 1 else 's'} without a loss")
        lines.append(f"  {'last transition':<{width}} {'losses':>7} {f'<={w} ticks after':>18}")
        lines += [f"  {t:<{width}} {e['losses']:>7} {e['within']:>18}" for t, e in failures["by_transition"].items()]
    marks = failures["watermarks"]
    happened = [o for o in OUTCOMES if any(per[o] is not None for per in marks.values())]
    if marks and happened:
        lines.append(f"  {'low-watermark (mean)':<28} " + " ".join(f"{o:>8}" for o in happened))
        for name, per in marks.items():
            lines.append(f"  {name:<28} " + " ".join(f"{per[o]:>8.4g}" for o in happened))
    return "\n".join(lines)
