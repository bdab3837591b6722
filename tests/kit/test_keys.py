"""kit.keys: single keys from a real pseudo-terminal, its settings restored however the reader is left."""

import io
import os
import pty
import termios

import pytest

from sparring.kit.keys import BACKSPACE, DOWN, ENTER, ESCAPE, LEFT, RIGHT, UP, KeyReader


@pytest.fixture
def terminal():
    """A pseudo-terminal: (the program's side as a text stream, the typist's side as a file descriptor)."""
    typist, program = pty.openpty()
    stream = open(program, "r", closefd=True)
    yield stream, typist
    stream.close()
    os.close(typist)


def test_keys_come_one_at_a_time_named_and_the_terminal_is_restored(terminal):
    stream, typist = terminal
    before = termios.tcgetattr(stream.fileno())
    assert before[3] & termios.ICANON and before[3] & termios.ECHO
    with KeyReader(stream) as keys:
        assert keys.raw
        inside = termios.tcgetattr(stream.fileno())
        assert not inside[3] & (termios.ICANON | termios.ECHO) and inside[3] & termios.ISIG  # Ctrl-C still signals
        os.write(typist, b"w3 \r\x7f\x1b[A\x1b[B\x1bOC\x1b[1;5D\x1b[15~x\xc3\xa9")
        got = [keys.read() for _ in range(11)]
        assert got == ["w", "3", " ", ENTER, BACKSPACE, UP, DOWN, RIGHT, LEFT, "x", "é"]  # F5 (ESC [15~) dropped
        os.write(typist, b"\x1b")  # Escape alone: nothing follows within the wait
        assert keys.read() == ESCAPE
        os.write(typist, b"\x1bq")  # Escape, then a key typed at once
        assert [keys.read(), keys.read()] == [ESCAPE, "q"]
        os.write(typist, b"\x04")
        assert keys.read() is None  # Ctrl-D: the end of input
    assert termios.tcgetattr(stream.fileno()) == before


def test_the_terminal_is_restored_when_left_by_an_exception(terminal):
    stream, typist = terminal
    before = termios.tcgetattr(stream.fileno())
    with pytest.raises(KeyboardInterrupt), KeyReader(stream):
        raise KeyboardInterrupt
    assert termios.tcgetattr(stream.fileno()) == before


def test_ctrl_c_as_a_byte_interrupts_where_the_terminal_does_not_signal(terminal):
    stream, typist = terminal
    attrs = termios.tcgetattr(stream.fileno())
    attrs[3] &= ~termios.ISIG
    termios.tcsetattr(stream.fileno(), termios.TCSANOW, attrs)
    before = termios.tcgetattr(stream.fileno())
    with pytest.raises(KeyboardInterrupt), KeyReader(stream) as keys:
        os.write(typist, b"\x03")
        keys.read()
    assert termios.tcgetattr(stream.fileno()) == before


def test_a_stream_that_is_not_a_terminal_is_read_by_lines():
    with KeyReader(io.StringIO("1e\r\nquit\n")) as keys:
        assert not keys.raw
        assert [keys.read_line(), keys.read_line(), keys.read_line()] == ["1e", "quit", None]
        with pytest.raises(RuntimeError, match="use read_line"):
            keys.read()
