"""Replay an episode in the terminal with the env's ANSI renderer: play/pause, step and seek keys."""

from __future__ import annotations

import os
import select
import sys
import termios
import tty
from typing import TextIO

from sparring.record.frames import tick_text
from sparring.record.reader import Recording

KEYS_HELP = "space play/pause  n/right step  p/left back  g/G start/end  +/- speed  q quit"
CLEAR = "\x1b[H\x1b[2J"


def print_episode(rec: Recording, episode: int, out: TextIO | None = None) -> None:
    """Print every tick of ``episode`` one after another to ``out`` (default stdout), for pipes and logs."""
    out = sys.stdout if out is None else out
    ep = rec.episode(episode)
    for t in range(ep.length + 1):
        out.write(tick_text(rec, ep, t) + "\n\n")


def _read_key(fd: int, timeout: float | None) -> str | None:
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return None
    key = os.read(fd, 8).decode(errors="ignore")
    return {"\x1b[C": "n", "\x1b[D": "p", "\x1b[H": "g", "\x1b[F": "G"}.get(key, key[:1] or "?")


def replay_terminal(rec: Recording, episode: int, fps: float = 5.0) -> None:
    """Play ``episode`` in the terminal; keys: see ``KEYS_HELP``. Without a terminal, print it all."""
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print_episode(rec, episode)
        return
    ep = rec.episode(episode)
    frames = [tick_text(rec, ep, t) for t in range(ep.length + 1)]
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    t, playing = 0, True
    try:
        tty.setcbreak(fd)  # keys arrive one by one without echo; Ctrl-C still interrupts
        while True:
            status = f"{'playing' if playing else 'paused '} {fps:g} ticks/s   {KEYS_HELP}"
            sys.stdout.write(CLEAR + frames[t] + "\n\n" + status + "\n")
            sys.stdout.flush()
            key = _read_key(fd, 1.0 / fps if playing else None)
            if key is None:
                t = min(t + 1, len(frames) - 1)
                playing = t < len(frames) - 1
            elif key == "q":
                return
            elif key == " ":
                playing = not playing
                t = 0 if playing and t == len(frames) - 1 else t
            elif key in "np":
                playing, t = False, max(0, min(len(frames) - 1, t + (1 if key == "n" else -1)))
            elif key in "gG":
                t = 0 if key == "g" else len(frames) - 1
            elif key in "+-":
                fps = fps * 2 if key == "+" else max(0.25, fps / 2)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
