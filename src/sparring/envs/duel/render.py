"""Slow paths of `duel`: terminal picture, RGB image and plain-English description of one record."""

from __future__ import annotations

import numpy as np

from sparring.envs.duel.world import ARENA, COMBOS, FOODS, MAX_HP, POTS, PRAY_MAX

STYLES = ("melee", "ranged", "magic")
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
