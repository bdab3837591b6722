"""Slow paths of `gauntlet`: terminal picture, description, viewer shapes and invariants of one record."""

from __future__ import annotations

from sparring.envs.gauntlet.world import (
    ALIVE,
    BURROWED,
    COLS,
    DEAD,
    FINAL_WAVE,
    HEALS,
    HP,
    MAX_HP,
    PILLAR,
    PILLAR_C,
    PILLAR_HP,
    PILLAR_R,
    PILLARS,
    PRAY_MAX,
    RESTORES,
    ROWS,
    SHIELD_HALF,
    SHIELD_ROW,
    SLOTS,
    STAGE_NAMES,
    TYPE_LETTERS,
    TYPE_NAMES,
    WAVES,
    ZUK,
)

PRAYERS = ("no prayer", "protect from melee", "protect from ranged", "protect from magic")
GEARS = ("ranged", "magic")
STYLES = ("melee", "ranged", "magic")


def _stage(s) -> str:
    if int(s["wave"]) < FINAL_WAVE:
        return ""
    return " (" + STAGE_NAMES[max(0, int(s["phase"]) - (FINAL_WAVE - 1))] + ")"


def _tiles(s) -> list[list[str]]:
    """The arena: # pillar, = shield, monster letters (upper case while telegraphing), @ player."""
    grid = [["."] * COLS for _ in range(ROWS)]
    for p in range(PILLARS):
        if s["pil_hp"][p] > 0:
            for r in range(PILLAR_R[p], PILLAR_R[p] + PILLAR):
                for c in range(PILLAR_C[p], PILLAR_C[p] + PILLAR):
                    grid[r][c] = "#"
    if int(s["wave"]) == FINAL_WAVE:
        for c in range(int(s["shield_c"]) - SHIELD_HALF, int(s["shield_c"]) + SHIELD_HALF + 1):
            grid[SHIELD_ROW][c] = "="
    for k in range(SLOTS):
        if s["m_state"][k] == ALIVE and s["m_type"][k] != ZUK:
            letter = TYPE_LETTERS[int(s["m_type"][k])]
            grid[int(s["m_r"][k])][int(s["m_c"][k])] = letter.upper() if s["m_tele"][k] else letter
    grid[int(s["row"])][int(s["col"])] = "@"
    return grid


def _monster_lines(s) -> list[str]:
    lines = []
    for k in range(SLOTS):
        state = int(s["m_state"][k])
        if state not in (ALIVE, BURROWED):
            continue
        kind = int(s["m_type"][k])
        note = " burrowed" if state == BURROWED else ""
        if s["m_tele"][k]:
            note += f" {STYLES[int(s['m_tele'][k]) - 1]} in {int(s['m_atk'][k])}"
        mark = "*" if int(s["target"]) == k else " "
        lines.append(f"{mark}{k:>2} {TYPE_NAMES[kind]:<10} hp {int(s['m_hp'][k]):>3}/{HP[kind]}{note}")
    return lines


def render_ansi(s, cfg) -> str:
    """The arena (monsters by letter: n b o s M R G J h) beside the run's numbers and the monster list."""
    pillars = " ".join(str(int(v)) for v in s["pil_hp"])
    info = [
        f"tick {int(s['tick'])}/{cfg.max_ticks}  wave {int(s['wave'])}/{WAVES}{_stage(s)}",
        f"hp {int(s['hp'])}/{MAX_HP}  prayer {int(s['pp'])}/{PRAY_MAX}",
        f"{PRAYERS[int(s['prayer'])]}, {GEARS[int(s['gear'])]} gear",
        "weapon ready" if s["atk"] == 0 else f"weapon in {int(s['atk'])}",
        f"heals {int(s['heals'])}/{HEALS}  restores {int(s['restores'])}/{RESTORES}",
        f"pillars {pillars}",
    ]
    if int(s["wave"]) == FINAL_WAVE and s["m_state"][0] == ALIVE:
        info.append(f"final boss hp {int(s['m_hp'][0])}/{HP[ZUK]}, big hit in {int(s['m_atk'][0])}")
    info += _monster_lines(s)
    grid = _tiles(s)
    lines = ["".join(row) + ("   " + info[k] if k < len(info) else "") for k, row in enumerate(grid)]
    lines += ["   " + line for line in info[len(grid) :]]
    return "\n".join(lines)


def describe(s, cfg, agent: int = 0) -> str:
    """The run in words, from the player's side."""
    alive = [TYPE_NAMES[int(s["m_type"][k])] for k in range(SLOTS) if s["m_state"][k] == ALIVE]
    standing = sum(1 for p in range(PILLARS) if s["pil_hp"][p] > 0)
    return (
        f"Wave {int(s['wave'])} of {WAVES}{_stage(s)}. You stand at row {int(s['row'])}, column "
        f"{int(s['col'])} with {int(s['hp'])} of {MAX_HP} hp and {int(s['pp'])} prayer points "
        f"({PRAYERS[int(s['prayer'])]}), wearing {GEARS[int(s['gear'])]} gear. Monsters: "
        f"{', '.join(alive) or 'none'}. {standing} pillars stand. Heals {int(s['heals'])}, restores "
        f"{int(s['restores'])}. Tick {int(s['tick'])} of {cfg.max_ticks}."
    )


TYPE_FILL = (
    "#9a6324",
    "#f58231",
    "#3cb44b",
    "#bfef45",
    "#e6194b",
    "#4363d8",
    "#911eb4",
    "#000075",
    "#fabed4",
    "#800000",
)


def draw(s, cfg) -> list[dict]:
    """The run for the HTML viewer, one world unit per tile, the arena at (0, 2): floor, pillars, shield,
    monsters (coloured by type, letter inside), the player and hp/prayer/final-boss bars."""
    top = 2
    shapes = [{"type": "rect", "x": 0, "y": top, "w": COLS, "h": ROWS, "fill": "#8a7f6a"}]
    for p in range(PILLARS):
        if s["pil_hp"][p] > 0:
            shapes.append(
                {
                    "type": "rect",
                    "x": int(PILLAR_C[p]),
                    "y": int(PILLAR_R[p]) + top,
                    "w": PILLAR,
                    "h": PILLAR,
                    "fill": "#333",
                }
            )
            shapes.append(
                {
                    "type": "bar",
                    "x": int(PILLAR_C[p]),
                    "y": int(PILLAR_R[p]) + top - 0.5,
                    "w": PILLAR,
                    "h": 0.4,
                    "value": int(s["pil_hp"][p]),
                    "max": PILLAR_HP,
                    "fill": "#aaa",
                }
            )
    if int(s["wave"]) == FINAL_WAVE:
        shapes.append(
            {
                "type": "rect",
                "x": int(s["shield_c"]) - SHIELD_HALF,
                "y": SHIELD_ROW + top + 0.3,
                "w": 2 * SHIELD_HALF + 1,
                "h": 0.4,
                "fill": "#ffe119",
            }
        )
    for k in range(SLOTS):
        if s["m_state"][k] != ALIVE:
            continue
        kind = int(s["m_type"][k])
        x, y = int(s["m_c"][k]) + 0.5, int(s["m_r"][k]) + top + 0.5
        if kind == ZUK:
            x, y = COLS / 2, 0.8
        shapes.append(
            {
                "type": "circle",
                "x": x,
                "y": y,
                "r": 0.7 if kind == ZUK else 0.45,
                "fill": TYPE_FILL[kind],
                "stroke": "#fff" if int(s["target"]) == k else "#000",
                "width": 0.1,
            }
        )
        shapes.append(
            {"type": "text", "x": x - 0.25, "y": y + 0.25, "text": TYPE_LETTERS[kind], "size": 0.6, "fill": "#fff"}
        )
    shapes.append(
        {"type": "circle", "x": int(s["col"]) + 0.5, "y": int(s["row"]) + top + 0.5, "r": 0.45, "fill": "#f0f0f0"}
    )
    y = ROWS + top + 0.3
    bars = [("hp", int(s["hp"]), MAX_HP, "#3cb44b"), ("prayer", int(s["pp"]), PRAY_MAX, "#4363d8")]
    if int(s["wave"]) == FINAL_WAVE:
        bars.append(("final boss", int(s["m_hp"][0]), HP[ZUK], "#e6194b"))
    for label, value, top_value, fill in bars:
        shapes.append(
            {
                "type": "bar",
                "x": 0,
                "y": y,
                "w": COLS,
                "h": 0.5,
                "value": value,
                "max": top_value,
                "label": label,
                "fill": fill,
            }
        )
        y += 0.7
    return shapes


def invariants(s, cfg) -> list[str]:
    """Values inside their ranges; the player inside the arena, off standing pillars; slots consistent."""
    bad = []
    limits = {
        "hp": MAX_HP,
        "pp": PRAY_MAX,
        "heals": HEALS,
        "restores": RESTORES,
        "prayer": 3,
        "gear": 1,
        "row": ROWS - 1,
        "col": COLS - 1,
    }
    for field, top in limits.items():
        if not 0 <= s[field] <= top:
            bad.append(f"{field} {s[field]} outside [0, {top}]")
    if not 1 <= s["wave"] <= WAVES:
        bad.append(f"wave {s['wave']} outside [1, {WAVES}]")
    if not -1 <= s["target"] < SLOTS:
        bad.append(f"target {s['target']} outside [-1, {SLOTS - 1}]")
    for p in range(PILLARS):
        if not 0 <= s["pil_hp"][p] <= PILLAR_HP:
            bad.append(f"pillar {p} hp {s['pil_hp'][p]} outside [0, {PILLAR_HP}]")
        elif (
            s["pil_hp"][p] > 0
            and PILLAR_R[p] <= s["row"] < PILLAR_R[p] + PILLAR
            and PILLAR_C[p] <= s["col"] < PILLAR_C[p] + PILLAR
        ):
            bad.append(f"player at ({s['row']}, {s['col']}) inside standing pillar {p}")
    for k in range(SLOTS):
        state = int(s["m_state"][k])
        if state not in (0, ALIVE, DEAD, BURROWED):
            bad.append(f"slot {k} state {state} is not empty/alive/dead/burrowed")
        elif state == ALIVE and not 0 < s["m_hp"][k] <= HP[int(s["m_type"][k])]:
            bad.append(f"slot {k} ({TYPE_NAMES[int(s['m_type'][k])]}) alive with hp {s['m_hp'][k]}")
    return bad
