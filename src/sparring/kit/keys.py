"""Single keypresses from a terminal, for an env's ``sparring play`` module.

:class:`KeyReader` puts a terminal into cbreak mode (no line buffering, no echo; the
terminal still turns Ctrl-C into ``KeyboardInterrupt``) and restores the settings it found
on leaving, however it is left: normally, by an exception, or by Ctrl-C. Keys come back
one at a time, arrows and Escape by name. When the stream is not a terminal (a pipe, a
file, a test's ``StringIO``) nothing is changed and ``raw`` is False: read it by lines.
"""

from __future__ import annotations

import importlib.util
import os
import select
from typing import TextIO

ESCAPE, UP, DOWN, RIGHT, LEFT = "escape", "up", "down", "right", "left"
BACKSPACE, ENTER = "backspace", "enter"
ARROWS = {"A": UP, "B": DOWN, "C": RIGHT, "D": LEFT}
NAMED = {"\r": ENTER, "\n": ENTER, "\x7f": BACKSPACE, "\x08": BACKSPACE}
CTRL_C, CTRL_D = "\x03", "\x04"
ESCAPE_WAIT_S = 0.05  # how long a lone Escape byte waits for the rest of an arrow key's sequence


def _is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal whose settings this platform can change (termios: not on Windows)."""
    if importlib.util.find_spec("termios") is None:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class KeyReader:
    """Keys from ``stream``: one per :meth:`read` in cbreak mode when it is a terminal, else lines.

    Use it as a context manager; inside, :attr:`raw` says which mode is on. In raw mode
    :meth:`read` returns a character (``"w"``, ``" "``), a name (``ENTER``, ``BACKSPACE``,
    ``ESCAPE``, ``UP``/``DOWN``/``LEFT``/``RIGHT``), or None when the input ended (Ctrl-D).
    Escape sequences it does not know are dropped whole.
    """

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.raw = _is_terminal(stream)
        self._saved = None
        self._pending = b""

    def __enter__(self) -> KeyReader:
        if self.raw:
            import termios
            import tty

            self._fd = self.stream.fileno()
            self._saved = termios.tcgetattr(self._fd)
            tty.setcbreak(self._fd, termios.TCSANOW)
        return self

    def __exit__(self, *exc) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def read_line(self) -> str | None:
        """One line of input without its line end (line mode), or None at the end of input."""
        line = self.stream.readline()
        return line.rstrip("\r\n") if line else None

    def read(self) -> str | None:
        """The next key (raw mode; see the class); None when the input ended."""
        if self._saved is None:
            raise RuntimeError("KeyReader.read needs a terminal in raw mode: use read_line when .raw is False")
        if not self._pending and not self._fill():
            return None
        first = self._pending[:1]
        if first != b"\x1b":
            return self._take_character()
        if len(self._pending) == 1 and not self._fill(ESCAPE_WAIT_S):
            self._pending = b""
            return ESCAPE
        if self._pending[1:2] not in (b"[", b"O"):  # Escape, then an ordinary key typed quickly
            self._pending = self._pending[1:]
            return ESCAPE
        return self._take_sequence()

    def _fill(self, timeout: float | None = None) -> bool:
        """Read what the terminal has (waiting up to ``timeout`` seconds, forever when None); False at its end."""
        if timeout is not None and not select.select([self._fd], [], [], timeout)[0]:
            return False
        chunk = os.read(self._fd, 64)
        self._pending += chunk
        return bool(chunk)

    def _take_character(self) -> str | None:
        # a UTF-8 character is one to four bytes; wait for the rest of one cut short by the read
        for size in range(1, 5):
            while len(self._pending) < size:
                if not self._fill():
                    self._pending = b""
                    return None
            try:
                text = self._pending[:size].decode()
            except UnicodeDecodeError:
                continue
            self._pending = self._pending[size:]
            if text == CTRL_D:
                return None
            if text == CTRL_C:  # cbreak mode signals it; a terminal without ISIG sends the byte
                raise KeyboardInterrupt
            return NAMED.get(text, text)
        self._pending = self._pending[1:]  # not UTF-8: drop the byte
        return self.read()

    def _take_sequence(self) -> str:
        """An escape sequence (ESC [ ... final byte) at the start of the buffer, by name when it is an arrow."""
        end = 2
        while True:
            while len(self._pending) <= end:
                if not self._fill(ESCAPE_WAIT_S):
                    self._pending = b""
                    return ESCAPE
            byte = self._pending[end : end + 1]
            end += 1
            if b"\x40" <= byte <= b"\x7e":  # the final byte of a control sequence
                self._pending = self._pending[end:]
                name = ARROWS.get(byte.decode())
                return name if name else self.read()
