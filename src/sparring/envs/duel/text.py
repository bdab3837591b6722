"""The duel in words: its text face :class:`DuelText`.

A fighter's view is :func:`~sparring.envs.duel.render.describe`; its legal
lines are one head at a time (eat, pray, attack, step), plus a special attack
(the melee attack with special energy), after "wait". A scripted fighter's
action (several heads at once) stands as the line of its first head in that
order: eating, then prayer, then the attack, then the step.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.duel import render
from sparring.envs.duel.legal import write_mask
from sparring.envs.duel.world import FOOD, MAX_HP, MOVE, PRAYER, SIZES, SPEC, STYLE
from sparring.kit.text import HeadsFace, Line

STYLES = ("melee", "ranged", "magic")
FOOD_WORDS = ("", "eat food", "eat combo food", "eat food and combo food together", "drink a prayer potion dose")
MOVE_WORDS = ("", "step north", "step south", "step west", "step east")
SPECIAL = "special attack with melee (costs 50% special energy)"


class DuelText(HeadsFace):
    """The duel's text face: a fighter's view and its legal lines."""

    head_order = (FOOD, PRAYER, STYLE, MOVE)
    sizes = SIZES
    instructions = "You fight one opponent in an arena: bring its hp to 0 before it does yours or time runs out."

    @staticmethod
    def describe(s, cfg, agent: int) -> str:
        """What the fighter sees (:func:`~sparring.envs.duel.render.describe`)."""
        return render.describe(s, cfg, agent)

    @staticmethod
    def progress(s, cfg, agent: int) -> float:
        """The share of the opponent's hp taken (GRPO's opt-in shaping: a fight lost closer is worth more)."""
        return 1.0 - float(s["hp"][1 - agent]) / MAX_HP

    @staticmethod
    def mask_row(s, cfg, agent: int) -> np.ndarray:
        """The fighter's flat mask row, by the env's own rule."""
        mask = np.zeros(sum(SIZES), np.bool_)
        write_mask(s, agent, mask)
        return mask

    @staticmethod
    def words(s, cfg, agent: int, head: int, value: int) -> str | None:
        """Words for one head's value; the prayer already active is left out (choosing it changes nothing)."""
        if head == FOOD:
            return FOOD_WORDS[value]
        if head == PRAYER:
            if value == (int(s["prayer"][agent]) or 4):
                return None
            return "turn prayer off" if value == 4 else f"pray to protect from {STYLES[value - 1]}"
        if head == STYLE:
            return f"attack with {STYLES[value - 1]}"
        return MOVE_WORDS[value]

    @staticmethod
    def extra_lines(s, cfg, agent: int, mask: np.ndarray) -> list[Line]:
        """The special attack, where both the melee attack and the special are allowed."""
        style, spec = sum(SIZES[:STYLE]), sum(SIZES[:SPEC])
        if not (mask[style + 1] and mask[spec + 1]):
            return []
        action = [0] * len(SIZES)
        action[STYLE], action[SPEC] = 1, 1
        return [Line(tuple(action), SPECIAL)]
