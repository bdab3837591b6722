"""``sparring play duel``: a person plays seat 0 from the terminal.

In a terminal, single keypresses (cbreak mode through :class:`sparring.kit.keys.KeyReader`,
the terminal's settings restored on leaving, Ctrl-C included): each key chooses one of this
tick's actions, shown as it is chosen, and space or Enter plays the tick; a key line stays on
screen. When stdin is not a terminal (a pipe, a file), one line of keys per tick, as before.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from typing import TextIO

import numpy as np

from sparring.envs.duel.render import ACTION_WORDS
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
from sparring.kit.keys import BACKSPACE, DOWN, ENTER, ESCAPE, LEFT, RIGHT, UP, KeyReader

# key -> (head, value); within one tick, a later key for the same head wins
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
ARROW_KEYS = {UP: KEYS["w"], DOWN: KEYS["s"], LEFT: KEYS["a"], RIGHT: KEYS["d"]}
KEY_LINES = (
    "keys: w a s d move (or arrows) | 1 2 3 attack melee/ranged/magic | q e r pray melee/ranged/magic",
    "      o prayer off | f c b p eat food/combo/both/potion | x spec | space plays the tick | Esc quits | ? help",
)
HELP = f"""Keys (in a terminal each key counts at once, space or Enter plays the tick; from a pipe, one line of
keys per tick, an empty line waits a tick):
  move      w north, s south, a west, d east (arrows too in a terminal)
  attack    1 melee, 2 ranged, 3 magic (only when your weapon is ready and in range)
  prayer    q protect melee, e protect ranged, r protect magic, o prayer off
  eat       f food, c combo food, b both at once, p prayer potion
  special   x with a melee attack ({SPEC_COST}% energy)
  the same key again takes it back, backspace clears the tick's keys; Esc (or a line 'quit') leaves, Ctrl-C too.
Eating blocks eating for {EAT_TICKS} ticks and delays your attack to at least {EAT_DELAY} ticks."""
CLEAR = "\x1b[H\x1b[2J"


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


def chosen(row: np.ndarray) -> str:
    """The actions of ``row`` in words ("nothing" when every head is its no-op)."""
    words = [ACTION_WORDS[(h, int(v))] for h, v in enumerate(row) if v]
    return ", ".join(words) if words else "nothing"


class _Fight:
    """One fight: seat 0 is the person, seat 1 the env's opponent or a player from ``players(env)``."""

    def __init__(self, seed: int, players, config: dict):
        from sparring.envs.duel.env import Duel

        self.env = BatchedEnv(Duel, num_envs=1, seed=seed, autoreset=False, **config)
        self.seated = players(self.env) if players is not None else {}
        if self.env.config.opponent == "learner" and 1 not in self.seated:
            raise ValueError(
                "duel play needs someone in the opponent's seat; valid: --env.opponent random|reactive|tribrid|robot, "
                "or --seat opponent=PLAYER (random, scripted:NAME, checkpoint:RUN)"
            )
        self.acts = np.zeros((2, HEADS), np.int32)
        if 1 in self.seated:
            against = self.seated[1].name
        else:
            cfg = self.env.config
            against = cfg.opponent + (f" (foresight {cfg.foresight})" if cfg.opponent == "robot" else "")
        self.title = f"duel against {against}. You are A."

    def picture(self, width: int = 100) -> str:
        """The arena and the fight in words, the words wrapped to ``width`` columns."""
        words = textwrap.fill(self.env.describe(0, 0), width=max(40, width))
        return self.env.render_ansi(0) + "\n" + words

    def allowed(self, head: int, value: int) -> bool:
        """Whether the mask allows ``value`` of ``head`` for seat 0 now."""
        return bool(self.env.mask[0, self.env.heads.offsets[head] + value])

    def forbidden(self, row: np.ndarray) -> list[str]:
        """Keys of ``row`` that the mask forbids now."""
        names = {v: k for k, v in KEYS.items()}
        return [names[(h, int(v))] for h, v in enumerate(row) if v and not self.allowed(h, int(v))]

    def step(self, row: np.ndarray) -> float | None:
        """Play one tick with seat 0's ``row``; seat 0's reward when the fight ended, else None."""
        self.acts[0] = row
        for seat, player in self.seated.items():
            self.acts[seat] = player.act(self.env, np.array([seat]))[0]
        _, rew, _, _, _, _ = self.env.step(self.acts)
        return float(rew[0]) if self.env.done[0] else None

    def ending(self, result: float) -> str:
        """The final picture and who won."""
        if self.env.records[0]["metrics"][TIMED_OUT] > 0.5:
            verdict = "Time is up: a loss for both."
        else:
            verdict = "You win!" if result > 0 else "You lose." if result < 0 else "Draw."
        return "\n" + self.env.render_ansi(0) + f"\n{verdict} (reward {result:+.0f})\n"


def play(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, seed: int = 0, players=None, **config) -> float:
    """Play one fight as seat 0 against the env's ``opponent``, or against a player; returns seat 0's reward.

    A terminal on ``stdin`` is read a key at a time (see the module docstring); anything else a line of keys
    per tick, after saying so. Escape, ``quit``, Ctrl-C or the end of input leave early (reward 0).
    ``players(env)``, when given, returns ``{seat: player}`` for seats handed out by the
    config (``opponent="learner"``); each acts there through ``act(env, rows)``.
    """
    fight = _Fight(seed, players, config)
    try:
        with KeyReader(stdin) as keys:
            if keys.raw:
                return _play_keys(fight, keys, stdout)
            stdout.write("stdin is not a terminal: reading one line of keys per tick (Enter plays it).\n")
            return _play_lines(fight, keys, stdout)
    except KeyboardInterrupt:  # the terminal's settings are back by now
        stdout.write("\nleft the fight (Ctrl-C).\n")
        return 0.0


def _play_keys(fight: _Fight, keys: KeyReader, out: TextIO) -> float:
    """The fight a keypress at a time: the screen redrawn after every key, the key line at its foot."""
    row = np.zeros(HEADS, np.int32)
    note = ""
    while True:
        width = shutil.get_terminal_size().columns
        out.write(f"{CLEAR}{fight.title}\n{fight.picture(width)}\n\nthis tick: {chosen(row)}\n{note}\n")
        out.write("\n".join(KEY_LINES) + "\n")
        out.flush()
        key = keys.read()
        note = ""
        if key is None or key == ESCAPE:
            out.write("left the fight.\n")
            return 0.0
        choice = ARROW_KEYS.get(key) or KEYS.get(key.lower())
        if key in (" ", ENTER):
            result = fight.step(row)
            row[:] = 0
            if result is not None:
                out.write(fight.ending(result))
                return result
        elif key == BACKSPACE:
            row[:] = 0
        elif key == "?":
            note = HELP
        elif choice is None:
            note = f"unknown key {key!r}; ? shows the keys"
        elif row[choice[0]] == choice[1]:
            row[choice[0]] = 0
        elif fight.allowed(*choice):
            row[choice[0]] = choice[1]
        else:
            note = f"not allowed now: {ACTION_WORDS[choice]}"


def _play_lines(fight: _Fight, keys: KeyReader, out: TextIO) -> float:
    """The fight a line of keys per tick, with a prompt (stdin is a pipe or a file)."""
    out.write(f"{fight.title}\n{HELP}\n")
    while True:
        out.write("\n" + fight.picture() + "\n> ")
        out.flush()
        line = keys.read_line()
        if line is None or line.strip().lower() in ("quit", "exit"):
            out.write("\nleft the fight.\n")
            return 0.0
        if line.strip() == "?":
            out.write(HELP + "\n")
            continue
        try:
            row = parse(line)
        except ValueError as exc:
            out.write(f"{exc}\n")
            continue
        blocked = fight.forbidden(row)
        if blocked:
            out.write(f"not allowed now, ignored: {', '.join(blocked)}\n")
        result = fight.step(row)
        if result is not None:
            out.write(fight.ending(result))
            return result
