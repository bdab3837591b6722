"""Slow paths over one record: a text map, shapes for the HTML viewer, invariants."""

from __future__ import annotations

from sparring.envs.town.names import NAMES
from sparring.envs.town.world import (
    DAY,
    GOAL_NAMES,
    GOODS,
    HOME_COL,
    HOME_ROW,
    MAX_COINS,
    MAX_GOOD,
    MAX_PRICE,
    NEED_NAMES,
    NUM_ACTIONS,
    PLACE_COL,
    PLACE_NAMES,
    PLACE_ROW,
    SIZE,
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


def draw(s, cfg) -> list[dict]:
    """Shapes for the HTML viewer, one world unit per tile: places, homes, characters with a needs bar."""
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
    for a in range(n):
        if not s["alive"][a]:
            continue
        x, y = int(s["col"][a]) + 0.5, int(s["row"][a]) + 0.5
        colour = "#f0f0f0" if s["goal_done"][a] else "#f0c030"
        shapes.append({"type": "circle", "x": x, "y": y, "r": 0.3, "fill": colour})
        shapes.append(
            {
                "type": "bar",
                "x": x - 0.4,
                "y": y + 0.35,
                "w": 0.8,
                "h": 0.12,
                "value": float(min(s["needs"][a])),
                "max": 1.0,
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
