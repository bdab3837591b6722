"""Slow paths over one record: a text map, shapes for the HTML viewer, invariants."""

from __future__ import annotations

import numpy as np

from sparring.envs.town.names import NAMES
from sparring.envs.town.metrics import TRADES
from sparring.envs.town.world import (
    ACCEPT,
    ARG,
    DAY,
    GIVE,
    GOAL_NAMES,
    GOOD,
    GOOD_NAMES,
    GOODS,
    HOME_COL,
    HOME_ROW,
    KIND,
    MAX_COINS,
    MAX_GOOD,
    MAX_PRICE,
    NEED_NAMES,
    NUM_ACTIONS,
    PLACE_COL,
    PLACE_NAMES,
    PLACE_ROW,
    SIZE,
    TALK,
)

PLACE_LETTERS = "WFBTMV"  # well, farm, bakery, forest (trees), market, tavern; homes are 'h'
PLACE_COLOURS = ("#3c8ce6", "#d8c040", "#c08040", "#2f8f3f", "#b050b0", "#e06040")


def _tile_chars(s) -> list[list[str]]:
    grid = [["." for _ in range(SIZE)] for _ in range(SIZE)]
    for a in range(len(s["alive"])):
        grid[HOME_ROW[a]][HOME_COL[a]] = "h"
    for p, letter in enumerate(PLACE_LETTERS):
        grid[PLACE_ROW[p]][PLACE_COL[p]] = letter
    return grid


def render_ansi(s, cfg) -> str:
    """The map (places as capitals, homes 'h', standing characters as letters a..z, A..Z) and one line each."""
    grid = _tile_chars(s)
    n = len(s["alive"])
    for a in range(n):
        if s["alive"][a]:
            grid[s["row"][a]][s["col"][a]] = _letter(a)
    t = int(s["tick"])
    lines = ["".join(row) for row in grid]
    lines.append(f"day {t // DAY + 1} of {cfg.days}, {_clock(t)}; W well F farm B bakery T forest M market V tavern")
    for a in range(n):
        needs = " ".join(f"{name[:4]} {s['needs'][a][k]:.2f}" for k, name in enumerate(NEED_NAMES))
        state = "fainted" if not s["alive"][a] else "goal done" if s["goal_done"][a] else "working on goal"
        goods = ", ".join(f"{int(v)} {g}" for g, v in zip(("wheat", "bread", "wood"), s["goods"][a]))
        lines.append(
            f"{_letter(a)} {NAMES[a]:<5} {GOAL_NAMES[s['goal'][a]]:<9} {state:<15} {needs} | "
            f"{int(s['coins'][a])} coins, {goods}"
        )
    return "\n".join(lines)


def _letter(a: int) -> str:
    return chr(ord("a") + a) if a < 26 else chr(ord("A") + a - 26) if a < 52 else str(a - 52)


def _clock(t: int) -> str:
    minutes = (t % DAY) * 30 + 6 * 60  # the day starts at 06:00
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


EVENT_COLOURS = {"trade": "#ffd84a", "gift": "#7ee07e", "talk": "#8fb8ff"}


def events(before, s) -> list[tuple[str, int, int, str]]:
    """The trades, gifts and talk carried out in the tick from record ``before`` to record ``s``, as
    (kind, from, to, words): a trade from seller to buyer, a gift from giver to receiver, talk from talker to
    listener.

    ``s.last`` holds each character's choice (legal when chosen), ``before.slots`` and ``before.inbox`` whom it
    addressed; a choice counts only where the records show its effect, as
    :class:`sparring.evaluate.town_tally.TownTally` counts them: the tick's trades (the env's count) go to the
    accepts whose buyer paid, then whose buyer holds more of the good, then in character order; a gift where the
    giver holds less of the good, less a unit it sold the same tick; talk where the talker's regard for the
    listener rose (or was already full).
    """
    kind = KIND[s["last"]]
    accepts = []
    for a in (a for a in range(len(kind)) if kind[a] == ACCEPT):
        seller = int(before["inbox"][a])
        good = int(before["out_good"][seller])
        paid = s["coins"][a] < before["coins"][a]
        got = s["goods"][a][good] > before["goods"][a][good]
        accepts.append((-(2 * int(paid) + int(got)), a, seller, good, int(before["out_price"][seller])))
    made = int(round(float(s["metrics"][TRADES] - before["metrics"][TRADES])))
    found, sold = [], {}
    for _, buyer, seller, good, price in sorted(accepts, key=lambda c: c[0])[:made]:
        sold[seller, good] = sold.get((seller, good), 0) + 1
        words = f"{NAMES[seller]} sold {NAMES[buyer]} 1 {GOOD_NAMES[good]} for {price} coin{'' if price == 1 else 's'}"
        found.append(("trade", seller, buyer, words))
    for a in range(len(kind)):
        if kind[a] not in (GIVE, TALK):
            continue
        b, good = int(before["slots"][a][ARG[s["last"][a]]]), int(GOOD[s["last"][a]])
        if kind[a] == GIVE and s["goods"][a][good] + sold.get((a, good), 0) < before["goods"][a][good]:
            found.append(("gift", a, b, f"{NAMES[a]} gave {NAMES[b]} 1 {GOOD_NAMES[good]}"))
        if kind[a] == TALK and (s["rel"][a][b] > before["rel"][a][b] or before["rel"][a][b] >= 1.0):
            found.append(("talk", a, b, f"{NAMES[a]} talked with {NAMES[b]}"))
    return found


def _spots(s) -> dict[int, tuple[float, float, float]]:
    """Where each standing character is drawn: (x, y, radius); several on one tile stand on a ring around it."""
    tiles: dict[tuple[int, int], list[int]] = {}
    for a in range(len(s["alive"])):
        if s["alive"][a]:
            tiles.setdefault((int(s["row"][a]), int(s["col"][a])), []).append(a)
    spots = {}
    for (row, col), here in tiles.items():
        for k, a in enumerate(here):
            if len(here) == 1:
                spots[a] = (col + 0.5, row + 0.5, 0.3)
            else:
                turn, ring = 2 * np.pi * k / len(here), min(0.75, 0.25 + 0.07 * len(here))  # room for arrows
                spots[a] = (col + 0.5 + ring * np.sin(turn), row + 0.5 - ring * np.cos(turn), 0.17)
    return spots


def draw(s, cfg, before=None) -> list[dict]:
    """Shapes for the HTML viewer, one world unit per tile: places, homes, characters with a needs bar; given the
    record ``before`` it (the previous tick), also an arrow per trade, gift and talk of the tick (:func:`events`),
    each with a ``log`` line for the viewer's event log."""
    shapes = [{"type": "rect", "x": 0, "y": 0, "w": SIZE, "h": SIZE, "fill": "#203020", "stroke": "#555"}]
    n = len(s["alive"])
    for a in range(n):
        shapes.append(
            {
                "type": "rect",
                "x": int(HOME_COL[a]),
                "y": int(HOME_ROW[a]),
                "w": 1,
                "h": 1,
                "fill": "#806040" if s["built"][a] else "#504030",
            }
        )
    for p, colour in enumerate(PLACE_COLOURS):
        shapes.append({"type": "rect", "x": int(PLACE_COL[p]), "y": int(PLACE_ROW[p]), "w": 1, "h": 1, "fill": colour})
        shapes.append(
            {
                "type": "text",
                "x": int(PLACE_COL[p]),
                "y": int(PLACE_ROW[p]) - 0.1,
                "size": 0.5,
                "text": PLACE_NAMES[p].removeprefix("the "),
            }
        )
    spots = _spots(s)
    for a, (x, y, r) in spots.items():
        colour = "#f0f0f0" if s["goal_done"][a] else "#f0c030"
        shapes.append({"type": "circle", "x": x, "y": y, "r": r, "fill": colour})
        shapes.append({"type": "text", "x": x - 0.12, "y": y, "size": 0.3, "text": NAMES[a][:2], "fill": "#202020"})
        shapes.append(
            {
                "type": "bar",
                "x": x - r,
                "y": y + r + 0.03,
                "w": 2 * r,
                "h": 0.1,
                "value": float(min(s["needs"][a])),
                "max": 1.0,
            }
        )
    for kind, a, b, words in events(before, s) if before is not None else []:
        (x1, y1, r1), (x2, y2, r2) = (spots.get(c, (s["col"][c] + 0.5, s["row"][c] + 0.5, 0.0)) for c in (a, b))
        length = max(float(np.hypot(x2 - x1, y2 - y1)), 1e-9)
        # from the edge of one sprite to the edge of the other (the middle third for sprites that touch)
        dx, dy = (x2 - x1) / length, (y2 - y1) / length
        r1, r2 = min(r1, length / 3), min(r2, length / 3)
        shapes.append(
            {
                "type": "arrow",
                "x1": x1 + r1 * dx,
                "y1": y1 + r1 * dy,
                "x2": x2 - r2 * dx,
                "y2": y2 - r2 * dy,
                "stroke": EVENT_COLOURS[kind],
                "width": 0.1,
                "log": words,
                "kind": kind,
            }
        )
    shapes.append(
        {
            "type": "text",
            "x": 0,
            "y": SIZE + 0.6,
            "size": 0.6,
            "text": f"day {int(s['tick']) // DAY + 1}, {_clock(int(s['tick']))}",
        }
    )
    return shapes


def invariants(s, cfg) -> list[str]:
    """Values in range; offers consistent both ways; fainted characters hold no offers; goals only when standing."""
    bad = []
    n = len(s["alive"])
    for a in range(n):
        who = f"character {a} ({NAMES[a]})"
        if not (0 <= s["row"][a] < SIZE and 0 <= s["col"][a] < SIZE):
            bad.append(f"{who} off the map at ({s['row'][a]}, {s['col'][a]})")
        if not ((s["needs"][a] >= 0).all() and (s["needs"][a] <= 1).all()):
            bad.append(f"{who} needs {s['needs'][a].tolist()} outside [0, 1]")
        if s["alive"][a] and (s["needs"][a] <= 0).any():
            bad.append(f"{who} stands with a need at 0")
        if not 0 <= s["coins"][a] <= MAX_COINS or not all(0 <= v <= MAX_GOOD for v in s["goods"][a][:GOODS]):
            bad.append(f"{who} holds {s['coins'][a]} coins and goods {s['goods'][a].tolist()}, outside the limits")
        if not 0 <= s["last"][a] < NUM_ACTIONS:
            bad.append(f"{who} last action {s['last'][a]} is not an action id")
        to = s["out_to"][a]
        if to >= 0:
            if s["inbox"][to] != a:
                bad.append(f"{who} offers to {to}, whose inbox holds {s['inbox'][to]}")
            if not 1 <= s["out_price"][a] <= MAX_PRICE:
                bad.append(f"{who} offers at price {s['out_price'][a]}, outside [1, {MAX_PRICE}]")
            if not s["alive"][a] or not s["alive"][to]:
                bad.append(f"{who} has an open offer involving a fainted character")
        frm = s["inbox"][a]
        if frm >= 0 and s["out_to"][frm] != a:
            bad.append(f"{who} has an offer from {frm}, who offers to {s['out_to'][frm]}")
    if ((s["rel"] < 0) | (s["rel"] > 1)).any():
        bad.append("a relationship outside [0, 1]")
    return bad
