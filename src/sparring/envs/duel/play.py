"""``sparring play duel``: a person plays seat 0 from the terminal, one tick per line of keys."""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from sparring.envs.duel.world import (
    COMBO,
    EAT,
    EAT_BOTH,
    EAT_DELAY,
    EAT_TICKS,
    EAST,
    FOOD,
    HEADS,
    MOVE,
    NORTH,
    POTION,
    PRAY_OFF,
    PRAYER,
    SOUTH,
    SPEC,
    SPEC_COST,
    STYLE,
    TIMED_OUT,
    WEST,
)
from sparring.kit.batch import BatchedEnv

# key -> (head, value); within one line, a later key for the same head wins
KEYS = {
    "w": (MOVE, NORTH),
    "s": (MOVE, SOUTH),
    "a": (MOVE, WEST),
    "d": (MOVE, EAST),
    "1": (STYLE, 1),
    "2": (STYLE, 2),
    "3": (STYLE, 3),
    "q": (PRAYER, 1),
    "e": (PRAYER, 2),
    "r": (PRAYER, 3),
    "o": (PRAYER, PRAY_OFF),
    "f": (FOOD, EAT),
    "c": (FOOD, COMBO),
    "b": (FOOD, EAT_BOTH),
    "p": (FOOD, POTION),
    "x": (SPEC, 1),
}
HELP = f"""Keys (type any of them on one line, then Enter; an empty line waits a tick):
  move      w north, s south, a west, d east
  attack    1 melee, 2 ranged, 3 magic (only when your weapon is ready and in range)
  prayer    q protect melee, e protect ranged, r protect magic, o prayer off
  eat       f food, c combo food, b both at once, p prayer potion
  special   x with a melee attack ({SPEC_COST}% energy)
  ? this help, quit to leave.
Eating blocks eating for {EAT_TICKS} ticks and delays your attack to at least {EAT_DELAY} ticks."""


def parse(line: str) -> np.ndarray:
    """One line of keys as a row of head values; unknown keys raise ValueError naming them."""
    row = np.zeros(HEADS, np.int32)
    unknown = []
    for key in line.strip().lower().replace(" ", ""):
        if key in KEYS:
            head, value = KEYS[key]
            row[head] = value
        else:
            unknown.append(key)
    if unknown:
        raise ValueError(f"unknown key(s) {''.join(unknown)!r}; valid keys: {''.join(KEYS)} (? for help)")
    return row


def _forbidden(env: BatchedEnv, row: np.ndarray) -> list[str]:
    """Names of the keys in ``row`` that the mask forbids now."""
    names = {v: k for k, v in KEYS.items()}
    out = []
    for h, (size, off) in enumerate(zip(env.heads.sizes, env.heads.offsets)):
        if row[h] and not env.mask[0, off + row[h]]:
            out.append(names[(h, int(row[h]))])
    return out


def play(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, seed: int = 0, players=None, **config) -> float:
    """Play one fight as seat 0 against the env's ``opponent``, or against a player; returns seat 0's reward.

    Reads one line per tick from ``stdin`` and writes the arena, a description
    and prompts to ``stdout``. End of input or ``quit`` leaves early (reward 0).
    ``players(env)``, when given, returns ``{seat: player}`` for seats handed out by the
    config (``opponent="learner"``); each acts there through ``act(env, rows)``.
    """
    from sparring.envs.duel.env import Duel

    env = BatchedEnv(Duel, num_envs=1, seed=seed, autoreset=False, **config)
    seated = players(env) if players is not None else {}
    if env.config.opponent == "learner" and 1 not in seated:
        raise ValueError(
            "duel play needs someone in the opponent's seat; valid: --env.opponent random|reactive|tribrid|robot, "
            "or --seat opponent=PLAYER (random, scripted:NAME, checkpoint:RUN)"
        )
    acts = np.zeros((2, HEADS), np.int32)
    if 1 in seated:
        against = seated[1].name
    else:
        foresight = f" (foresight {env.config.foresight})" if env.config.opponent == "robot" else ""
        against = f"{env.config.opponent}{foresight}"
    stdout.write(f"duel against {against}. You are A.\n{HELP}\n")
    while True:
        stdout.write("\n" + env.render_ansi(0) + "\n" + env.describe(0, 0) + "\n> ")
        stdout.flush()
        line = stdin.readline()
        if not line or line.strip().lower() in ("quit", "exit"):
            stdout.write("\nleft the fight.\n")
            return 0.0
        if line.strip() == "?":
            stdout.write(HELP + "\n")
            continue
        try:
            acts[0] = parse(line)
        except ValueError as exc:
            stdout.write(f"{exc}\n")
            continue
        blocked = _forbidden(env, acts[0])
        if blocked:
            stdout.write(f"not allowed now, ignored: {', '.join(blocked)}\n")
        for seat, player in seated.items():
            acts[seat] = player.act(env, np.array([seat]))[0]
        _, rew, _, _, _, _ = env.step(acts)
        if env.done[0]:
            result = float(rew[0])
            timed_out = env.records[0]["metrics"][TIMED_OUT] > 0.5
            verdict = (
                "Time is up: a loss for both."
                if timed_out
                else "You win!"
                if result > 0
                else "You lose."
                if result < 0
                else "Draw."
            )
            stdout.write("\n" + env.render_ansi(0) + f"\n{verdict} (reward {result:+.0f})\n")
            return result
