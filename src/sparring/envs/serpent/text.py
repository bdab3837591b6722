"""The serpent fight in words: its text face :class:`SerpentText`.

The player's view is :func:`~sparring.envs.serpent.render.describe`; its
legal lines are one head at a time after "wait": supplies, prayer, gear, the
attack, the step. A scripted player's action (several heads at once) stands as
the line of its first head in that order.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.serpent import render
from sparring.envs.serpent.legal import write_mask
from sparring.envs.serpent.world import ATTACK, GEAR, MOVE, PRAYER, SIZES, SUPPLY
from sparring.kit.text import HeadsFace

WORDS = {
    SUPPLY: ("", "eat food", "drink a prayer dose", "drink antivenom"),
    PRAYER: ("", "pray to protect from ranged", "pray to protect from magic", "turn prayer off"),
    GEAR: ("", "wear ranged gear", "wear magic gear"),
    ATTACK: ("", "attack the serpent", "attack the nearest add"),
    MOVE: ("", "step north", "step south", "step west", "step east"),
}


class SerpentText(HeadsFace):
    """The serpent fight's text face: the player's view and its legal lines."""

    head_order = (SUPPLY, PRAYER, GEAR, ATTACK, MOVE)
    sizes = SIZES
    instructions = "You fight a serpent boss that changes form: defeat it before your hp or the time runs out."

    @staticmethod
    def describe(s, cfg, agent: int) -> str:
        """What the player sees (:func:`~sparring.envs.serpent.render.describe`)."""
        return render.describe(s, cfg, agent)

    @staticmethod
    def progress(s, cfg, agent: int) -> float:
        """The share of the serpent's hp taken (GRPO's opt-in shaping)."""
        return 1.0 - float(s["boss_hp"]) / cfg.boss_hp

    @staticmethod
    def mask_row(s, cfg, agent: int) -> np.ndarray:
        """The player's flat mask row, by the env's own rule."""
        mask = np.zeros(sum(SIZES), np.bool_)
        write_mask(s, mask)
        return mask

    @staticmethod
    def words(s, cfg, agent: int, head: int, value: int) -> str | None:
        """Words for one head's value; the prayer and gear already on are left out (choosing them changes
        nothing)."""
        if head == PRAYER and value == (int(s["prayer"]) or 3):
            return None
        if head == GEAR and value - 1 == int(s["gear"]):
            return None
        return WORDS[head][value]
