"""The town in words: its text face :class:`TownText` (``describe``, the legal lines, goals and progress).

``describe(s, cfg, agent)`` is what one character knows (the same facts as its
structured observation); ``legal_actions_text`` lists its legal actions as
``"<id>: <words>"`` lines, each labelled with its action id; the kit's
:meth:`~sparring.kit.text.TextFace.parse` maps a free-text answer back to one.
A character decides while it stands, succeeds by completing its goal, and its
progress towards the goal is GRPO's opt-in shaping.
"""

from __future__ import annotations

import numpy as np

from sparring.envs.town.names import NAMES
from sparring.envs.town.render import _clock
from sparring.envs.town.legal import write_mask
from sparring.kit.text import Line, TextFace
from sparring.envs.town.world import (
    ACCEPT,
    ARG,
    BAKERY,
    BUY,
    BUY_PRICE,
    DAY,
    DRINK_ACT,
    EAT,
    FARM,
    FOREST,
    GATHER_OTHERS,
    GIVE,
    GO_CHAR,
    GO_PLACE,
    GOAL_COINS,
    GOAL_NAMES,
    GOOD,
    GOOD_NAMES,
    HOME,
    HOME_COL,
    HOME_ROW,
    HOUSE,
    HOUSE_COINS,
    HOUSE_WOOD,
    KIND,
    NEED_NAMES,
    NIGHT,
    NOOP,
    NUM_ACTIONS,
    OFFER,
    PLACE_COL,
    PLACE_NAMES,
    PLACE_ROW,
    PLACES,
    PRICE,
    REJECT,
    RICH,
    SELL,
    SELL_PRICE,
    SKILL_NAMES,
    SLEEP,
    SLOTS,
    TALK,
    TAVERN,
    WOOD,
    WORK,
)


def legal_actions(s, cfg, agent: int) -> list[int]:
    """Ids of the actions character ``agent`` may take now (the mask's rule)."""
    _check_agent(s, agent)
    ok = np.zeros(NUM_ACTIONS, np.bool_)
    write_mask(s, agent, int(s["tick"]), ok)
    return np.flatnonzero(ok).tolist()


def action_text(s, agent: int, action: int) -> str:
    """Short words for ``action`` by character ``agent`` in record ``s``."""
    kind, arg, good = int(KIND[action]), int(ARG[action]), GOOD_NAMES[GOOD[action]]
    slot = int(s["slots"][agent][arg]) if arg < SLOTS else -1
    other = NAMES[slot] if slot >= 0 else f"nobody (slot {arg})"
    offerer = int(s["inbox"][agent])
    if kind == NOOP:
        return "wait"
    if kind == GO_PLACE:
        return "go home" if arg == HOME else f"go to {PLACE_NAMES[arg]}"
    if kind == GO_CHAR:
        return f"go to {other}"
    if kind == WORK:
        return f"work: {_work_words(s, agent)}"
    if kind == EAT:
        return f"eat {good}"
    if kind == DRINK_ACT:
        return "drink"
    if kind == SLEEP:
        return "sleep"
    if kind == TALK:
        return f"talk to {other}"
    if kind == GIVE:
        return f"give 1 {good} to {other}"
    if kind == OFFER:
        return f"offer 1 {good} to {other} for {int(PRICE[action])} coins"
    if kind in (ACCEPT, REJECT):
        who = NAMES[offerer] if offerer >= 0 else "nobody"
        return f"{'accept' if kind == ACCEPT else 'reject'} {who}'s offer"
    if kind == SELL:
        return f"sell 1 {good} for {int(SELL_PRICE[GOOD[action]])} coins"
    if kind == BUY:
        return f"buy 1 {good} for {int(BUY_PRICE[GOOD[action]])} coins"
    return "build my house"


def _work_words(s, agent: int) -> str:
    at = (int(s["row"][agent]), int(s["col"][agent]))
    if at == (PLACE_ROW[FARM], PLACE_COL[FARM]):
        return "farm wheat"
    if at == (PLACE_ROW[FOREST], PLACE_COL[FOREST]):
        return "chop wood"
    if at == (PLACE_ROW[BAKERY], PLACE_COL[BAKERY]):
        return "bake 1 wheat into bread"
    return "nothing to do here"


def legal_actions_text(s, cfg, agent: int) -> str:
    """Character ``agent``'s legal actions, one ``"<id>: <words>"`` line each."""
    return "\n".join(f"{a}: {action_text(s, agent, a)}" for a in legal_actions(s, cfg, agent))


def _check_agent(s, agent) -> None:
    n = len(s["alive"])
    if not isinstance(agent, (int, np.integer)) or not 0 <= agent < n:
        raise ValueError(f"agent must be a character index in [0, {n}), got {agent!r}")


def _place_here(s, agent: int) -> str:
    at = (int(s["row"][agent]), int(s["col"][agent]))
    if at == (HOME_ROW[agent], HOME_COL[agent]):
        return "at home"
    for p in range(PLACES - 1):
        if at == (PLACE_ROW[p], PLACE_COL[p]):
            return f"at {PLACE_NAMES[p]}"
    return f"on the road at row {at[0]}, column {at[1]}"


def _goal_words(s, agent: int) -> str:
    goal = int(s["goal"][agent])
    if goal == RICH:
        what = f"hold {GOAL_COINS} coins"
    elif goal == HOUSE:
        what = f"build your house at home ({HOUSE_WOOD} wood and {HOUSE_COINS} coins)"
    else:
        what = f"gather with at least {GATHER_OTHERS} others at the tavern"
    done = " You have completed it." if s["goal_done"][agent] else ""
    return f"Your goal ({GOAL_NAMES[goal]}): {what} before the end of day {{days}}.{done}"


CRITICAL = 0.15  # a need below this is "critical"


def _need_words(value: float) -> str:
    return "critical" if value < CRITICAL else "low" if value < 0.35 else "fine" if value < 0.75 else "good"


def describe(s, cfg, agent: int = 0) -> str:
    """What character ``agent`` knows, in plain English (its structured observation, in words)."""
    _check_agent(s, agent)
    t, name = int(s["tick"]), NAMES[agent]
    night = " (night: work and the market are closed)" if t % DAY >= NIGHT else ""
    when = f"Day {t // DAY + 1} of {cfg.days}, {_clock(t)}{night}."
    if not s["alive"][agent]:
        return f"You are {name}. {when} You fainted and are out for the rest of the episode."
    needs = ", ".join(
        f"{n} {100 * s['needs'][agent][k]:.0f}% ({_need_words(s['needs'][agent][k])})" for k, n in enumerate(NEED_NAMES)
    )
    goods = ", ".join(f"{int(v)} {g}" for g, v in zip(GOOD_NAMES, s["goods"][agent]))
    skills = ", ".join(f"{n} {s['skill'][agent][k]:.2f}" for k, n in enumerate(SKILL_NAMES))
    lines = [
        f"You are {name}. {when} You are {_place_here(s, agent)}.",
        f"Needs: {needs}.",
        f"You carry {int(s['coins'][agent])} coins, {goods}. Skills: {skills}.",
        _goal_words(s, agent).format(days=cfg.days),
    ]
    for k in range(SLOTS):
        b = int(s["slots"][agent][k])
        if b < 0:
            continue
        d = max(abs(int(s["row"][b]) - int(s["row"][agent])), abs(int(s["col"][b]) - int(s["col"][agent])))
        carry = ", ".join(f"{int(v)} {g}" for g, v in zip(GOOD_NAMES, s["goods"][b]))
        lines.append(
            f"{NAMES[b]} is {'next to you' if d <= 1 else f'{d} steps away'}, carrying {carry}; "
            f"goal {GOAL_NAMES[s['goal'][b]]}{' (done)' if s['goal_done'][b] else ''}; "
            f"your regard {s['rel'][agent][b]:.2f}."
        )
    offerer = int(s["inbox"][agent])
    if offerer >= 0:
        lines.append(
            f"{NAMES[offerer]} offers you 1 {GOOD_NAMES[s['out_good'][offerer]]} for "
            f"{int(s['out_price'][offerer])} coins."
        )
    if s["out_to"][agent] >= 0:
        lines.append(
            f"You offered 1 {GOOD_NAMES[s['out_good'][agent]]} to {NAMES[s['out_to'][agent]]} for "
            f"{int(s['out_price'][agent])} coins; no answer yet."
        )
    tavern = sum(
        1
        for b in range(len(s["alive"]))
        if b != agent and s["alive"][b] and (s["row"][b], s["col"][b]) == (PLACE_ROW[TAVERN], PLACE_COL[TAVERN])
    )
    lines.append(
        f"{tavern} other(s) at the tavern. "
        + "; ".join(f"{PLACE_NAMES[p]} {_steps(s, agent, p)}" for p in range(PLACES))
        + "."
    )
    return "\n".join(lines)


def brief(s, cfg, agent: int = 0) -> str:
    """:func:`describe`'s facts in fewer tokens (the compact prompt of small local models): needs as words, no
    zero counts, no coordinates on the road, regard only where it is not 0, steps as bare numbers."""
    _check_agent(s, agent)
    t, name = int(s["tick"]), NAMES[agent]
    night = ", night (work and market closed)" if t % DAY >= NIGHT else ""
    when = f"{name}, day {t // DAY + 1} of {cfg.days}, {_clock(t)}{night}"
    if not s["alive"][agent]:
        return f"{when}: fainted, out for the rest of the episode."
    here = _place_here(s, agent).split(" at row")[0]
    needs = ", ".join(f"{n} {_need_words(s['needs'][agent][k])}" for k, n in enumerate(NEED_NAMES))
    skills = ", ".join(f"{n} {s['skill'][agent][k]:.1f}" for k, n in enumerate(SKILL_NAMES))
    goal = _goal_words(s, agent).format(days=cfg.days)
    lines = [
        f"{when}, {here}. Needs: {needs}.",
        f"Carry: {int(s['coins'][agent])} coins{_goods_words(s, agent)}. Skills: {skills}.",
        goal.replace("Your goal", "Goal").replace(" before the end of", " by the end of"),
    ]
    near = []
    for k in range(SLOTS):
        b = int(s["slots"][agent][k])
        if b < 0:
            continue
        d = max(abs(int(s["row"][b]) - int(s["row"][agent])), abs(int(s["col"][b]) - int(s["col"][agent])))
        regard = f", regard {s['rel'][agent][b]:.1f}" if round(float(s["rel"][agent][b]), 1) else ""
        done = " done" if s["goal_done"][b] else ""
        near.append(
            f"{NAMES[b]} ({'next to you' if d <= 1 else f'{d} away'}{_goods_words(s, b)}, "
            f"{GOAL_NAMES[s['goal'][b]]}{done}{regard})"
        )
    if near:
        lines.append("Near: " + ", ".join(near) + ".")
    offerer = int(s["inbox"][agent])
    if offerer >= 0:
        good, price = GOOD_NAMES[s["out_good"][offerer]], int(s["out_price"][offerer])
        lines.append(f"{NAMES[offerer]} offers you 1 {good} for {price} coins.")
    if s["out_to"][agent] >= 0:
        good, price = GOOD_NAMES[s["out_good"][agent]], int(s["out_price"][agent])
        lines.append(f"You offered 1 {good} to {NAMES[s['out_to'][agent]]} for {price} coins.")
    tavern = sum(
        1
        for b in range(len(s["alive"]))
        if b != agent and s["alive"][b] and (s["row"][b], s["col"][b]) == (PLACE_ROW[TAVERN], PLACE_COL[TAVERN])
    )
    steps = ", ".join(f"{PLACE_NAMES[p].removeprefix('the ')} {_distance(s, agent, p)}" for p in range(PLACES))
    lines.append(f"Steps to: {steps}. Others at the tavern: {tavern}.")
    return "\n".join(lines)


def _goods_words(s, agent: int) -> str:
    """ ", 2 bread, 1 wood": the goods character ``agent`` carries, none left out but zeros."""
    return "".join(f", {int(v)} {g}" for g, v in zip(GOOD_NAMES, s["goods"][agent]) if v)


def _steps(s, agent: int, p: int) -> str:
    d = _distance(s, agent, p)
    return "here" if d == 0 else f"{d} steps"


def _distance(s, agent: int, p: int) -> int:
    r, c = (HOME_ROW[agent], HOME_COL[agent]) if p == HOME else (PLACE_ROW[p], PLACE_COL[p])
    return max(abs(int(r) - int(s["row"][agent])), abs(int(c) - int(s["col"][agent])))


def progress(s, agent: int) -> float:
    """How far character ``agent`` is towards its goal now, in [0, 0.9] (1 once it is done): coins held (rich),
    wood and coins held (house), being at the tavern and the others there with it (gathering)."""
    if s["goal_done"][agent]:
        return 1.0
    goal = int(s["goal"][agent])
    coins = float(s["coins"][agent])
    if goal == RICH:
        return min(coins / GOAL_COINS, 1.0) * 0.9
    if goal == HOUSE:
        return 0.45 * (min(float(s["goods"][agent][WOOD]) / HOUSE_WOOD, 1.0) + min(coins / HOUSE_COINS, 1.0))
    here = (s["row"] == s["row"][agent]) & (s["col"] == s["col"][agent]) & (s["alive"] == 1)
    at_tavern = s["row"][agent] == PLACE_ROW[TAVERN] and s["col"][agent] == PLACE_COL[TAVERN]
    return 0.3 + 0.6 * min((int(here.sum()) - 1) / GATHER_OTHERS, 1.0) if at_tavern else 0.0


class TownText(TextFace):
    """The town's text face: a character's view and legal lines (labelled by action id), its goal and progress."""

    goals = GOAL_NAMES
    instructions = "You live in a small town: keep your needs up and complete your goal before the days run out."

    @staticmethod
    def describe(s, cfg, agent: int) -> str:
        """What the character knows (:func:`describe`)."""
        return describe(s, cfg, agent)

    @staticmethod
    def brief(s, cfg, agent: int) -> str:
        """The same facts in fewer words (:func:`brief`)."""
        return brief(s, cfg, agent)

    @staticmethod
    def lines(s, cfg, agent: int) -> list[Line]:
        """The character's legal actions, labelled with their action ids."""
        return [Line((a,), action_text(s, agent, a), str(a)) for a in legal_actions(s, cfg, agent)]

    @staticmethod
    def continues(s, cfg, agent: int, action) -> bool:
        """A walk on the road (a go-to still allowed) goes on undecided, unless an offer waits or a need is
        critical."""
        a = int(np.atleast_1d(action)[0])
        if KIND[a] not in (GO_PLACE, GO_CHAR) or not _place_here(s, agent).startswith("on the road"):
            return False
        if int(s["inbox"][agent]) >= 0 or (s["needs"][agent] < CRITICAL).any():
            return False
        return a in legal_actions(s, cfg, agent)

    @staticmethod
    def acting(s, cfg, agent: int) -> bool:
        """A character decides while it stands (a fainted one can only wait)."""
        return bool(s["alive"][agent])

    @classmethod
    def success(cls, env_cls, s, cfg, agent: int) -> bool:
        """The character completed its goal."""
        return bool(s["goal_done"][agent])

    @staticmethod
    def progress(s, cfg, agent: int) -> float:
        """:func:`progress` towards its goal."""
        return progress(s, agent)

    @classmethod
    def seat_names(cls, env_cls) -> tuple[str, ...]:
        """The characters' names."""
        return tuple(NAMES[: env_cls.num_agents])

    @classmethod
    def goal_of(cls, s, agent: int) -> str:
        """The name of the character's goal."""
        return GOAL_NAMES[int(s["goal"][agent])]

    @classmethod
    def set_goal(cls, records: np.ndarray, agent: int, goal: str) -> None:
        """Character ``agent`` of every record gets goal ``goal`` (a name of :data:`GOAL_NAMES`)."""
        if goal not in GOAL_NAMES:
            raise ValueError(f"goal must be one of {['any', *GOAL_NAMES]}, got {goal!r}")
        records["goal"][:, agent] = GOAL_NAMES.index(goal)

    @staticmethod
    def configure(env_cls, config: dict, learners: list[int]) -> dict:
        """The planner inside the env plays every character after the last learner (``background``)."""
        return {**config, "background": env_cls.num_agents - 1 - max(learners)}
