"""Slow paths of `serpent`: terminal picture, plain-English description and invariants of one record."""

from __future__ import annotations

from sparring.envs.serpent.world import (
    ADD_HP,
    ADD_SLOTS,
    ANTIVENOM_DOSES,
    BLOCKED,
    BOSS_COL,
    BOSS_ROW,
    CLOUD_SLOTS,
    CLOUD_TICKS,
    GRID,
    MAX_HP,
    PHASES,
    PRAY_MAX,
    PRAYER_DOSES,
    ROT_NAMES,
    VENOM_MAX,
)

FORMS = ("ranged", "magic", "melee")
POSITIONS = ("north", "east", "south", "west")
PRAYERS = ("no prayer", "protect from ranged", "protect from magic")
GEARS = ("ranged", "magic")
FORM_LETTERS = "RMX"


def _tiles(s) -> list[list[str]]:
    """The platform with a one-tile water border: # blocked, ~ cloud, ! smash, a add, @ player, boss letter."""
    size = GRID + 2
    grid = [[" "] * size for _ in range(size)]
    for r in range(GRID):
        for c in range(GRID):
            grid[r + 1][c + 1] = "#" if BLOCKED[r, c] else "."
    for k in range(CLOUD_SLOTS):
        if s["cloud_t"][k] > 0:
            grid[int(s["cloud_r"][k]) + 1][int(s["cloud_c"][k]) + 1] = "~"
    if s["stare"] > 0:
        for dr, dc in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
            r, c = int(s["stare_r"]) + dr, int(s["stare_c"]) + dc
            if 0 <= r < GRID and 0 <= c < GRID and not BLOCKED[r, c]:
                grid[r + 1][c + 1] = "!"
    for k in range(ADD_SLOTS):
        if s["add_hp"][k] > 0:
            grid[int(s["add_r"][k]) + 1][int(s["add_c"][k]) + 1] = "a"
    grid[int(s["row"]) + 1][int(s["col"]) + 1] = "@"
    if s["surfaced"]:
        pos = int(s["pos"])
        grid[int(BOSS_ROW[pos]) + 1][int(BOSS_COL[pos]) + 1] = FORM_LETTERS[int(s["form"])]
    return grid


def _boss_line(s) -> str:
    if not s["surfaced"]:
        return f"boss under water, surfaces in {int(s['timer'])}"
    line = f"boss {FORMS[int(s['form'])]} form at {POSITIONS[int(s['pos'])]}, dives in {int(s['timer'])}"
    if s["stare"] > 0:
        line += f", smash in {int(s['stare'])}"
    return line


def render_ansi(s, cfg) -> str:
    """The platform (boss letter R/M/X on the water) beside the fight's numbers."""
    rotation, stage = int(s["rotation"]), int(s["stage"])
    info = [
        f"tick {int(s['tick'])}/{cfg.max_ticks}  phase {ROT_NAMES[rotation]}/{stage + 1}",
        f"boss hp {int(s['boss_hp'])}/{cfg.boss_hp}",
        _boss_line(s),
        f"hp {int(s['hp'])}/{MAX_HP}  prayer {int(s['pp'])}/{PRAY_MAX}",
        f"{PRAYERS[int(s['prayer'])]}, {GEARS[int(s['gear'])]} gear",
        "weapon ready" if s["atk"] == 0 else f"weapon in {int(s['atk'])}",
        f"food {int(s['food'])}/{cfg.food}  prayer doses {int(s['doses'])}/{PRAYER_DOSES}  "
        f"antivenom {int(s['antivenom'])}/{ANTIVENOM_DOSES}",
        f"venom {int(s['venom'])}" if s["venom"] else "not venomed",
    ]
    grid = _tiles(s)
    lines = []
    for k, row in enumerate(grid):
        lines.append("".join(row) + ("   " + info[k] if k < len(info) else ""))
    return "\n".join(lines)


def describe(s, cfg, agent: int = 0) -> str:
    """The fight in words, from the player's side."""
    clouds = sum(1 for k in range(CLOUD_SLOTS) if s["cloud_t"][k] > 0)
    adds = sum(1 for k in range(ADD_SLOTS) if s["add_hp"][k] > 0)
    seen = [
        f"{FORMS[int(s['seen_form'][p])]} {POSITIONS[int(s['seen_pos'][p])]}"
        for p in range(PHASES)
        if s["seen_form"][p] >= 0
    ]
    return (
        f"You stand at row {int(s['row'])}, column {int(s['col'])} with {int(s['hp'])} of {MAX_HP} hp and "
        f"{int(s['pp'])} prayer points ({PRAYERS[int(s['prayer'])]}), wearing {GEARS[int(s['gear'])]} gear. "
        f"The {_boss_line(s)}; it has {int(s['boss_hp'])} of {cfg.boss_hp} hp. "
        f"Phase {int(s['stage']) + 1}. Seen so far: {', '.join(seen) or 'nothing'}. "
        f"{clouds} venom clouds, {adds} adds. Food {int(s['food'])}, prayer doses {int(s['doses'])}, "
        f"antivenom {int(s['antivenom'])}; {'venomed' if s['venom'] else 'not venomed'}. "
        f"Tick {int(s['tick'])} of {cfg.max_ticks}."
    )


FORM_FILL = ("#3cb44b", "#4363d8", "#e6194b")


def draw(s, cfg) -> list[dict]:
    """The fight for the HTML viewer, one world unit per tile, the platform at (1, 1): water, tiles, pillars,
    clouds, the smash zone, adds, the player, the boss (coloured by form) and hp bars."""
    shapes = [{"type": "rect", "x": 0, "y": 0, "w": GRID + 2, "h": GRID + 2, "fill": "#10324a"}]
    for r in range(GRID):
        for c in range(GRID):
            shapes.append(
                {
                    "type": "rect",
                    "x": c + 1,
                    "y": r + 1,
                    "w": 1,
                    "h": 1,
                    "stroke": "#444",
                    "fill": "#222" if BLOCKED[r, c] else "#8a7f6a",
                }
            )
    for k in range(CLOUD_SLOTS):
        if s["cloud_t"][k] > 0:
            shapes.append(
                {
                    "type": "rect",
                    "x": int(s["cloud_c"][k]) + 1.1,
                    "y": int(s["cloud_r"][k]) + 1.1,
                    "w": 0.8,
                    "h": 0.8,
                    "fill": "#7fbf3f",
                }
            )
    if s["stare"] > 0:
        for dr, dc in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
            r, c = int(s["stare_r"]) + dr, int(s["stare_c"]) + dc
            if 0 <= r < GRID and 0 <= c < GRID:
                shapes.append(
                    {"type": "rect", "x": c + 1, "y": r + 1, "w": 1, "h": 1, "stroke": "#e6194b", "width": 0.12}
                )
    for k in range(ADD_SLOTS):
        if s["add_hp"][k] > 0:
            shapes.append(
                {
                    "type": "circle",
                    "x": int(s["add_c"][k]) + 1.5,
                    "y": int(s["add_r"][k]) + 1.5,
                    "r": 0.25,
                    "fill": "#f58231",
                }
            )
    shapes.append({"type": "circle", "x": int(s["col"]) + 1.5, "y": int(s["row"]) + 1.5, "r": 0.4, "fill": "#f0f0f0"})
    if s["surfaced"]:
        pos = int(s["pos"])
        x, y = int(BOSS_COL[pos]) + 1.5, int(BOSS_ROW[pos]) + 1.5
        shapes.append({"type": "circle", "x": x, "y": y, "r": 0.6, "fill": FORM_FILL[int(s["form"])]})
        shapes.append(
            {
                "type": "text",
                "x": x - 0.25,
                "y": y + 0.25,
                "text": FORM_LETTERS[int(s["form"])],
                "size": 0.7,
                "fill": "#fff",
            }
        )
    shapes.append(
        {
            "type": "bar",
            "x": 0,
            "y": GRID + 2.3,
            "w": GRID + 2,
            "h": 0.5,
            "value": int(s["boss_hp"]),
            "max": cfg.boss_hp,
            "label": "boss",
            "fill": "#e6194b",
        }
    )
    shapes.append(
        {
            "type": "bar",
            "x": 0,
            "y": GRID + 3.0,
            "w": GRID + 2,
            "h": 0.5,
            "value": int(s["hp"]),
            "max": MAX_HP,
            "label": "hp",
            "fill": "#3cb44b",
        }
    )
    shapes.append(
        {
            "type": "bar",
            "x": 0,
            "y": GRID + 3.7,
            "w": GRID + 2,
            "h": 0.5,
            "value": int(s["pp"]),
            "max": PRAY_MAX,
            "label": "prayer",
            "fill": "#4363d8",
        }
    )
    return shapes


def invariants(s, cfg) -> list[str]:
    """Values inside their ranges; the player on a walkable tile; form and position only while up."""
    bad = []
    limits = {
        "hp": MAX_HP,
        "pp": PRAY_MAX,
        "food": cfg.food,
        "doses": PRAYER_DOSES,
        "antivenom": ANTIVENOM_DOSES,
        "venom": VENOM_MAX,
        "boss_hp": cfg.boss_hp,
        "prayer": 2,
        "gear": 1,
        "stage": PHASES - 1,
        "rotation": 3,
        "row": GRID - 1,
        "col": GRID - 1,
    }
    for field, top in limits.items():
        if not 0 <= s[field] <= top:
            bad.append(f"{field} {s[field]} outside [0, {top}]")
    if not bad and BLOCKED[int(s["row"]), int(s["col"])]:
        bad.append(f"player on blocked tile ({s['row']}, {s['col']})")
    if s["surfaced"] not in (0, 1) or (s["surfaced"] == 1) != (s["form"] >= 0 and s["pos"] >= 0):
        bad.append(f"surfaced {s['surfaced']} with form {s['form']} and position {s['pos']}")
    for k in range(ADD_SLOTS):
        if not 0 <= s["add_hp"][k] <= ADD_HP:
            bad.append(f"add {k} hp {s['add_hp'][k]} outside [0, {ADD_HP}]")
    for k in range(CLOUD_SLOTS):
        if not 0 <= s["cloud_t"][k] <= CLOUD_TICKS:
            bad.append(f"cloud {k} timer {s['cloud_t'][k]} outside [0, {CLOUD_TICKS}]")
    return bad
