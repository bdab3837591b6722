"""The text face's check: over random play, every state's description runs, every acting seat has legal lines,
every line is allowed by the mask and parses back to its own action, and ``line_of`` maps each line to itself."""

from __future__ import annotations

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.play import allowed_actions, uniform_table
from sparring.kit.check.report import Report
from sparring.kit.text import face

CHECK = "text face"


def _allowed(mask_row: np.ndarray, sizes: np.ndarray, offsets: np.ndarray, action: tuple) -> bool:
    return all(0 <= v < n and bool(mask_row[o + v]) for n, o, v in zip(sizes, offsets, action))


def _problem(text, env: BatchedEnv, e: int, agent: int) -> str | None:
    """What is wrong with the face of seat ``agent`` of env ``e`` now, or None."""
    s, cfg = env.records[e], env.config
    words = text.describe(s, cfg, agent)
    if not isinstance(words, str) or not words.strip():
        return f"describe gave {type(words).__name__} {str(words)[:40]!r}, not words"
    if not text.acting(s, cfg, agent):
        return None
    lines = text.lines(s, cfg, agent)
    if not lines:
        return "an acting seat has no legal line"
    offsets = env.heads.offsets
    row = env.mask[e * env.num_agents + agent]
    for i, line in enumerate(lines):
        if len(line.action) != len(offsets) or not _allowed(row, env.heads.sizes, offsets, line.action):
            return f"line {line.text(i)!r} is action {line.action}, not allowed by the mask"
        parsed = text.parse(line.text(i), s, cfg, agent)
        if parsed.index != i or tuple(parsed.action or ()) != tuple(line.action):
            return f"line {line.text(i)!r} parses back to {parsed.index} ({parsed.how}), not to itself"
        if text.line_of(s, cfg, agent, line.action) != i:
            return f"line_of maps line {line.text(i)!r}'s own action to line {text.line_of(s, cfg, agent, line.action)}"
    return None


def check_text_face(report: Report, cls, config: dict, steps: int, seed: int, num_envs: int = 4) -> None:
    """The face over ``steps`` random steps of ``num_envs`` envs, every seat fed from outside; no finding for an
    env without a face."""
    text = face(cls)
    if text is None:
        return
    env = BatchedEnv(cls, num_envs=num_envs, seed=seed, **config)
    seats = [int(a) for a in np.flatnonzero(env.learner_rows[: env.num_agents])]
    u = uniform_table(seed + 1, steps, env.rows, len(env.heads.sizes))
    turns = 0
    for t in range(steps + 1):
        for e in range(num_envs):
            for agent in seats:
                problem = _problem(text, env, e, agent)
                if problem:
                    report.add(CHECK, "fail", problem, f"step {t}, env {e}, seat {cls.seats[agent]}")
                    return
                turns += 1
        if t < steps:
            env.step(allowed_actions(env.mask, env.heads.sizes, u[t]))
    report.add(CHECK, "pass", f"describe ran and every legal line parsed back to its action over {turns} seat-turns")
