"""The town in words, for language-model brains: ``describe``, ``legal_actions_text``, ``parse_action``.

``describe(s, cfg, agent)`` is what one character knows (the same facts as its
structured observation); ``legal_actions_text`` lists its legal actions as
``"<id>: <words>"`` lines; ``parse_action`` maps a free-text answer back to an
action id: exactly (a listed line, its words or its id), then tolerantly (the
words of exactly one legal action inside the answer, then the closest words),
and reports an answer it cannot map as unparseable instead of guessing.
"""

from __future__ import annotations

import dataclasses
import difflib
import re

import numpy as np

from sparring.envs.town.names import NAMES
from sparring.envs.town.render import _clock
from sparring.envs.town.legal import write_mask
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
    WORK,
)

FUZZY_CUTOFF = 0.75  # difflib ratio below which a guess is reported as unparseable


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


@dataclasses.dataclass(frozen=True)
class ParsedAction:
    """The outcome of :func:`parse_action`: ``action`` is None when ``how`` is "unparseable"."""

    action: int | None
    how: str  # "exact", "id", "contained", "fuzzy" or "unparseable"
    detail: str


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9' ]", " ", text.lower())).strip()


def parse_action(text: str, s, cfg, agent: int) -> ParsedAction:
    """Map a free-text answer to one of ``agent``'s legal actions, or report it unparseable (never a guess)."""
    if not isinstance(text, str):
        return ParsedAction(None, "unparseable", f"the answer must be text, got {type(text).__name__}")
    ids = legal_actions(s, cfg, agent)
    words = {a: action_text(s, agent, a) for a in ids}
    normed = {a: _norm(w) for a, w in words.items()}
    answer = _norm(text)
    exact = {**{_norm(f"{a}: {w}"): a for a, w in words.items()}, **{w: a for a, w in normed.items()}}
    if answer in exact:
        return ParsedAction(exact[answer], "exact", words[exact[answer]])
    number = re.fullmatch(r"\s*(?:action\s*)?(\d+)\s*[.:)]?.*", text.strip().lower())
    if number and not _norm(text[number.end(1) :]).strip():
        a = int(number.group(1))
        if a in words:
            return ParsedAction(a, "id", words[a])
        return ParsedAction(None, "unparseable", f"action {a} is not legal now; legal ids: {ids}")
    inside = [a for a, w in normed.items() if re.search(rf"\b{re.escape(w)}\b", answer)]
    # "give 1 wood to Ben" contains no other action's words, but "talk to Ben or talk to Cora" names two
    inside = [a for a in inside if not any(b != a and normed[a] in normed[b] for b in inside)]
    if len(inside) == 1:
        return ParsedAction(inside[0], "contained", words[inside[0]])
    close = difflib.get_close_matches(answer, list(normed.values()), n=2, cutoff=FUZZY_CUTOFF)
    if close and (
        len(close) == 1
        or difflib.SequenceMatcher(None, answer, close[0]).ratio()
        > difflib.SequenceMatcher(None, answer, close[1]).ratio()
    ):
        a = next(a for a, w in normed.items() if w == close[0])
        return ParsedAction(a, "fuzzy", words[a])
    reason = f"it names {len(inside)} legal actions at once" if len(inside) > 1 else "it matches no legal action"
    return ParsedAction(
        None, "unparseable", f"{reason}; answer with one id or line of:\n" + legal_actions_text(s, cfg, agent)
    )


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


def _need_words(value: float) -> str:
    return "critical" if value < 0.15 else "low" if value < 0.35 else "fine" if value < 0.75 else "good"


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


def _steps(s, agent: int, p: int) -> str:
    r, c = (HOME_ROW[agent], HOME_COL[agent]) if p == HOME else (PLACE_ROW[p], PLACE_COL[p])
    d = max(abs(int(r) - int(s["row"][agent])), abs(int(c) - int(s["col"][agent])))
    return "here" if d == 0 else f"{d} steps"
