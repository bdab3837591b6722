"""Slow paths of `duel`: terminal picture, RGB image, viewer shapes and plain-English description of one record."""

from __future__ import annotations

import textwrap

import numpy as np

from sparring.envs.duel.legal import delay
from sparring.envs.duel.world import (
    ARENA,
    COMBO,
    COMBOS,
    EAST,
    EAT,
    EAT_BOTH,
    FOOD,
    FOODS,
    MAX_HP,
    MOVE,
    NORTH,
    POTION,
    POTS,
    PRAY_MAX,
    PRAY_OFF,
    PRAYER,
    SOUTH,
    SPEC,
    SPEC_MAX,
    STYLE,
    WEST,
)

STYLES = ("melee", "ranged", "magic")
# (head, value) -> the action in words; value 0 of every head (do nothing) has none
ACTION_WORDS = {
    (MOVE, NORTH): "step north",
    (MOVE, SOUTH): "step south",
    (MOVE, WEST): "step west",
    (MOVE, EAST): "step east",
    (STYLE, 1): "attack with melee",
    (STYLE, 2): "attack with ranged",
    (STYLE, 3): "attack with magic",
    (PRAYER, 1): "protect from melee",
    (PRAYER, 2): "protect from ranged",
    (PRAYER, 3): "protect from magic",
    (PRAYER, PRAY_OFF): "prayer off",
    (FOOD, EAT): "eat food",
    (FOOD, COMBO): "eat combo food",
    (FOOD, EAT_BOTH): "eat food and combo food",
    (FOOD, POTION): "drink a prayer potion",
    (SPEC, 1): "special attack",
}
MOVES = ("stay", "north", "south", "west", "east")
FOODS_DONE = ("nothing", "food", "combo food", "food and combo food", "a prayer potion")
LETTERS = ("A", "B")
GEAR_RGB = ((210, 70, 60), (70, 180, 80), (70, 110, 220))


def _bar(value: int, top: int, width: int = 20) -> str:
    filled = int(round(width * max(0, value) / top))
    return "[" + "#" * filled + "." * (width - filled) + "]"


def _prayer(s, a) -> str:
    p = int(s["prayer"][a])
    return f"protect {STYLES[p - 1]}" if p else "no prayer"


def _timers(s, a) -> str:
    atk = int(s["atk"][a])
    parts = ["weapon ready" if atk == 0 else f"weapon in {atk}"]
    if s["eat"][a]:
        parts.append(f"eat in {int(s['eat'][a])}")
    if s["frozen"][a]:
        parts.append(f"FROZEN {int(s['frozen'][a])}")
    elif s["immune"][a]:
        parts.append(f"immune {int(s['immune'][a])}")
    return ", ".join(parts)


def _projectile(s, a) -> str:
    left = int(s["p_left"][a])
    return f"{STYLES[int(s['p_style'][a])]} hit lands in {left}" if left else "nothing in flight"


def _fighter_lines(s, a) -> list[str]:
    return [
        f"{LETTERS[a]} fighter {a}",
        f"  hp {_bar(int(s['hp'][a]), MAX_HP)} {int(s['hp'][a]):>2}/{MAX_HP}",
        f"  {STYLES[int(s['gear'][a])]} gear, {_prayer(s, a)} ({int(s['pp'][a])}/{PRAY_MAX} pts)",
        f"  {_timers(s, a)}",
        f"  food {int(s['food'][a])}/{FOODS} combo {int(s['combo'][a])}/{COMBOS} "
        f"pots {int(s['pots'][a])}/{POTS} spec {int(s['spec'][a])}%",
        f"  outgoing: {_projectile(s, a)}",
    ]


def render_ansi(s, cfg) -> str:
    """The arena (A and B, lower case when frozen) beside each fighter's hp bar, gear, prayer, timers, supplies."""
    grid = [["." for _ in range(ARENA)] for _ in range(ARENA)]
    for a in range(2):
        letter = LETTERS[a].lower() if s["frozen"][a] else LETTERS[a]
        grid[int(s["row"][a])][int(s["col"][a])] = letter
    info = _fighter_lines(s, 0) + _fighter_lines(s, 1)
    lines = [f"tick {int(s['tick'])}/{cfg.max_ticks}"]
    for r in range(max(ARENA, len(info))):
        left = " ".join(grid[r]) if r < ARENA else " " * (2 * ARENA - 1)
        lines.append(f"{left}   {info[r] if r < len(info) else ''}".rstrip())
    return "\n".join(lines)


def render_rgb(s, cfg, tile: int = 16) -> np.ndarray:
    """The arena as an RGB image: fighters coloured by gear (dark when frozen), hp bars on top."""
    bar = tile // 2
    img = np.full((bar * 2 + ARENA * tile, ARENA * tile, 3), 25, np.uint8)
    width = ARENA * tile
    for a in range(2):
        hp = int(width * max(0, int(s["hp"][a])) / MAX_HP)
        img[a * bar : (a + 1) * bar - 1, :] = (60, 20, 20)
        img[a * bar : (a + 1) * bar - 1, :hp] = (40, 200, 60)
        colour = np.array(GEAR_RGB[int(s["gear"][a])], np.uint8)
        if s["frozen"][a]:
            colour = colour // 2
        r, c = 2 * bar + int(s["row"][a]) * tile, int(s["col"][a]) * tile
        img[r + 1 : r + tile - 1, c + 1 : c + tile - 1] = colour
        if s["prayer"][a]:
            img[r + 1 : r + 4, c + 1 : c + tile - 1] = GEAR_RGB[int(s["prayer"][a]) - 1]
    return img


# the viewer's picture: the arena at (0, 0), one world unit per tile, each fighter's panel below it
STYLE_FILL = tuple("#%02x%02x%02x" % rgb for rgb in GEAR_RGB)
STYLE_TAGS = ("Me", "Ra", "Ma")
ICE = "#9be7ff"
PANEL_Y = ARENA + 0.4
LINE = 0.55
TRAIL_SIDE = 0.1  # how far a hit's trail runs beside the line between the fighters
PANEL_H = 5.6  # the panel's bars, four lines of text, the supplies row and up to three lines of actions


def _centre(s, a) -> tuple[float, float]:
    return int(s["col"][a]) + 0.5, int(s["row"][a]) + 0.55


def _fighter_shapes(s, a) -> list[dict]:
    """A fighter on its tile: ice when frozen, hp bar, body in its gear's colour with its letter, overhead prayer."""
    x, y = _centre(s, a)
    c, r = int(s["col"][a]), int(s["row"][a])
    shapes = []
    if s["frozen"][a]:
        shapes.append(
            {
                "type": "rect",
                "x": c,
                "y": r,
                "w": 1,
                "h": 1,
                "fill": "rgba(155,231,255,0.3)",
                "stroke": ICE,
                "width": 0.08,
            }
        )
    shapes.append(
        {"type": "bar", "x": c + 0.08, "y": r + 0.03, "w": 0.84, "h": 0.14, "value": int(s["hp"][a]), "max": MAX_HP}
    )
    edge = "#ffffff" if a == 0 else "#15171c"
    shapes.append(
        {
            "type": "circle",
            "x": x,
            "y": y,
            "r": 0.32,
            "fill": STYLE_FILL[int(s["gear"][a])],
            "stroke": edge,
            "width": 0.06,
        }
    )
    shapes.append({"type": "text", "x": x - 0.13, "y": y + 0.02, "text": LETTERS[a], "size": 0.4, "fill": "#ffffff"})
    prayer = int(s["prayer"][a])
    if prayer:
        icon = {"type": "circle", "x": x, "y": r - 0.3, "r": 0.27, "fill": "#15171c", "width": 0.08}
        shapes.append({**icon, "stroke": STYLE_FILL[prayer - 1]})
        shapes.append(
            {"type": "text", "x": x - 0.17, "y": r - 0.29, "text": STYLE_TAGS[prayer - 1], "size": 0.26, "fill": "#fff"}
        )
    return shapes


def _flight(s, a) -> list[dict]:
    """Fighter ``a``'s hit in flight: a trail from ``a`` to the projectile, and the ticks it has left (none on
    the tick before it lands, when the projectile is at the target). Each trail keeps to its own side of the
    line between the fighters, so two hits of one style stay apart."""
    left = int(s["p_left"][a])
    if not left:
        return []
    style = int(s["p_style"][a])
    (x0, y0), (x1, y1) = _centre(s, a), _centre(s, 1 - a)
    length = max(1e-9, ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5)
    side_x, side_y = -(y1 - y0) / length, (x1 - x0) / length
    x0, y0 = x0 + TRAIL_SIDE * side_x, y0 + TRAIL_SIDE * side_y
    d = max(abs(int(s["row"][0]) - int(s["row"][1])), abs(int(s["col"][0]) - int(s["col"][1])))
    travelled = 1 - (left - 1) / max(left, delay.py_func(style, d))
    x, y = x0 + (x1 - x0) * travelled, y0 + (y1 - y0) * travelled
    colour = ICE if s["p_freeze"][a] else STYLE_FILL[style]
    shapes = [
        {"type": "line", "x1": x0, "y1": y0, "x2": x, "y2": y, "stroke": colour, "width": 0.06},
        {"type": "circle", "x": x, "y": y, "r": 0.13, "fill": colour, "stroke": "#ffffff", "width": 0.03},
    ]
    if left > 1:
        tx, ty = x + 0.32 * side_x, y + 0.32 * side_y
        shapes.append({"type": "text", "x": tx - 0.09, "y": ty, "text": str(left), "size": 0.34, "fill": "#ffffff"})
    return shapes


def _splat(s, a) -> list[dict]:
    """Fighter ``a``'s hit landing next tick: its damage in a splat on the target (red, blue for 0; an ice rim
    when it freezes)."""
    if int(s["p_left"][a]) != 1:
        return []
    x, y = _centre(s, 1 - a)
    x, y = x + 0.34, y + 0.28
    dmg = int(s["p_dmg"][a])
    rim = ICE if s["p_freeze"][a] else "#ffffff"
    return [
        {
            "type": "circle",
            "x": x,
            "y": y,
            "r": 0.25,
            "fill": "#b3261e" if dmg else "#2d5fb0",
            "stroke": rim,
            "width": 0.05,
        },
        {"type": "text", "x": x - 0.085 * len(str(dmg)), "y": y, "text": str(dmg), "size": 0.3},
    ]


def _supplies(x: float, y: float, left: int, top: int, fill: str, kind: str) -> list[dict]:
    """``top`` icons from ``x``: the first ``left`` filled, the eaten ones hollow."""
    out = []
    for k in range(top):
        colour = {"fill": fill} if k < left else {"stroke": "#5a606b", "width": 0.04}
        if kind == "rect":
            out.append({"type": "rect", "x": x + 0.36 * k, "y": y, "w": 0.28, "h": 0.28, **colour})
        else:
            out.append({"type": "circle", "x": x + 0.36 * k + 0.14, "y": y + 0.14, "r": 0.14, **colour})
    return out


def _panel(s, cfg, a) -> list[dict]:
    """Fighter ``a``'s numbers under the arena: hp, prayer and special bars, gear, prayer, timers, supplies."""
    x, y, w = (0.0 if a == 0 else ARENA / 2 + 0.2), PANEL_Y, ARENA / 2 - 0.2
    who = "player" if a == 0 else f"opponent ({cfg.opponent})"
    text = {"type": "text", "x": x, "size": 0.36, "fill": "#e6e6e6"}
    shapes = [{**text, "y": y + 0.2, "text": f"{LETTERS[a]}  {who}", "fill": STYLE_FILL[int(s["gear"][a])]}]
    bars = (
        ("hp", "hp", MAX_HP, "#3cb44b"),
        ("prayer", "pp", PRAY_MAX, "#4aa3df"),
        ("spec", "spec", SPEC_MAX, "#d9a13b"),
    )
    for k, (label, field, top, fill) in enumerate(bars):
        shapes.append(
            {
                "type": "bar",
                "x": x,
                "y": y + 0.5 + 0.5 * k,
                "w": w,
                "h": 0.42,
                "value": int(s[field][a]),
                "max": top,
                "label": label,
                "fill": fill,
            }
        )
    y += 2.25
    shapes.append({**text, "y": y, "text": f"{STYLES[int(s['gear'][a])]} gear, {_prayer(s, a)}"})
    shapes.append({**text, "y": y + LINE, "text": _timers(s, a)})
    shapes.append(
        {
            **text,
            "y": y + 2 * LINE,
            "text": f"food {int(s['food'][a])}/{FOODS}  combo {int(s['combo'][a])}/{COMBOS}  "
            f"pots {int(s['pots'][a])}/{POTS}",
        }
    )
    icons = y + 2.5 * LINE
    shapes += _supplies(x, icons, int(s["food"][a]), FOODS, "#e08a3c", "rect")
    shapes += _supplies(x + 0.36 * FOODS + 0.2, icons, int(s["combo"][a]), COMBOS, "#a0603a", "rect")
    shapes += _supplies(x + 0.36 * (FOODS + COMBOS) + 0.4, icons, int(s["pots"][a]), POTS, "#9b6bd6", "circle")
    did = [ACTION_WORDS[(h, int(v))] for h, v in enumerate(s["last"][a]) if v]
    lines = textwrap.wrap("last tick: " + (", ".join(did) or "nothing"), 38)
    for k, line in enumerate(lines):  # at most three: every action at once is 100 characters
        shapes.append({**text, "y": y + (3.5 + 0.9 * k) * LINE, "text": line, "size": 0.3, "fill": "#b8bcc4"})
    return shapes


def draw(s, cfg) -> list[dict]:
    """The fight for the HTML viewer: the arena with both fighters (coloured by gear, hp bar above, overhead
    prayer, ice when frozen), hits in flight (trail, projectile, ticks left) and about to land (damage splat),
    and under the arena a panel per fighter (hp, prayer and special bars; gear, prayer, timers, supplies left,
    last tick's actions)."""
    shapes = [
        {"type": "rect", "x": -0.2, "y": -0.7, "w": ARENA + 0.4, "h": PANEL_Y + PANEL_H + 0.7, "fill": "#15171c"},
        {"type": "rect", "x": 0, "y": 0, "w": ARENA, "h": ARENA, "fill": "#4a4536"},
    ]
    for k in range(1, ARENA):
        shapes.append({"type": "line", "x1": k, "y1": 0, "x2": k, "y2": ARENA, "stroke": "#5a5443", "width": 0.02})
        shapes.append({"type": "line", "x1": 0, "y1": k, "x2": ARENA, "y2": k, "stroke": "#5a5443", "width": 0.02})
    for a in range(2):
        shapes += _flight(s, a)
    for a in range(2):
        shapes += _fighter_shapes(s, a)
    for a in range(2):
        shapes += _splat(s, a) + _panel(s, cfg, a)
    return shapes


def _last_actions(s, o) -> str:
    move, style, prayer, food, spec = (int(v) for v in s["last"][o])
    done = []
    if style:
        done.append(("special-attacked" if spec and style == 1 else "attacked") + f" with {STYLES[style - 1]}")
    if prayer == 4:
        done.append("turned prayer off")
    elif prayer:
        done.append(f"prayed against {STYLES[prayer - 1]}")
    if food:
        done.append(f"ate {FOODS_DONE[food]}" if food < 4 else "drank a prayer potion")
    if move:
        done.append(f"stepped {MOVES[move]}")
    return ", ".join(done) if done else "nothing visible"


def describe(s, cfg, agent: int = 0) -> str:
    """What fighter ``agent`` sees, in plain English."""
    a, o = agent, 1 - agent
    dr, dc = int(s["row"][o]) - int(s["row"][a]), int(s["col"][o]) - int(s["col"][a])
    where = ", ".join(
        p
        for p in (
            f"{abs(dr)} {'south' if dr > 0 else 'north'}" if dr else "",
            f"{abs(dc)} {'east' if dc > 0 else 'west'}" if dc else "",
        )
        if p
    )
    dist = max(abs(dr), abs(dc))
    return (
        f"Tick {int(s['tick'])} of {cfg.max_ticks}. "
        f"You have {int(s['hp'][a])}/{MAX_HP} hp and {int(s['pp'][a])}/{PRAY_MAX} prayer points; you wear "
        f"{STYLES[int(s['gear'][a])]} gear, {_prayer(s, a)}; {_timers(s, a)}. "
        f"Supplies: {int(s['food'][a])} food, {int(s['combo'][a])} combo food, {int(s['pots'][a])} potion doses, "
        f"{int(s['spec'][a])}% special energy. "
        f"The opponent is {dist} tile{'s' if dist != 1 else ''} away ({where}) with {int(s['hp'][o])}/{MAX_HP} "
        f"hp, {STYLES[int(s['gear'][o])]} gear, {_prayer(s, o)}; {_timers(s, o)}. "
        f"Incoming: {_projectile(s, o)}. Yours: {_projectile(s, a)}. "
        f"Last tick the opponent: {_last_actions(s, o)}."
    )
