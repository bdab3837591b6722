"""``sparring play duel`` a key at a time: in a pseudo-terminal in-process, and as a person sees it, under tmux.

The tmux tests start the real command in a detached tmux session (a server of their own), type with
``tmux send-keys`` and read the screen with ``tmux capture-pane -p``, polling it against a deadline. Under CI
(``CI`` set) a missing tmux is a failure (``.ci/run`` installs it); elsewhere they are skipped.
"""

import io
import os
import pty
import shlex
import shutil
import subprocess
import sys
import time
import tty
from pathlib import Path

import pytest

from sparring.envs.duel.play import KEY_LINES, play

# a cold Numba cache compiles duel's kernels on first use (tens of seconds); a warm one starts in about a second
DEADLINE_S = 120.0
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def keyboard():
    """A pseudo-terminal for ``play``'s stdin and a function that types bytes into it.

    The terminal starts in cbreak mode, as if the keys were typed after ``play`` set it: typed ahead into a
    line-buffered terminal, its line editing would act on them (backspace would erase the key before it)."""
    typist, program = pty.openpty()
    tty.setcbreak(program)
    stream = open(program, "r", closefd=True)
    yield stream, lambda keys: os.write(typist, keys)
    stream.close()
    os.close(typist)


def test_keys_choose_the_tick_and_space_plays_it(keyboard):
    stream, type_ = keyboard
    out = io.StringIO()
    type_(b"2e2z?\x7fqx \x1b")  # ranged attack, protect ranged, take the attack back, a bad key, help, clear...
    assert play(stream, out, seed=0, opponent="reactive") == 0.0
    screens = out.getvalue().split("\x1b[H\x1b[2J")[1:]  # one screen per key, then the last one
    assert len(screens) == 10
    assert all(KEY_LINES[0] in s and "tick" in s for s in screens)
    this_tick = [s.split("this tick: ")[1].splitlines()[0] for s in screens]
    assert this_tick[:4] == [
        "nothing",
        "attack with ranged",
        "attack with ranged, protect from ranged",
        "protect from ranged",
    ]
    assert "unknown key 'z'" in screens[4] and "Keys (in a terminal" in screens[5]
    assert this_tick[6] == "nothing"  # backspace cleared the tick
    assert this_tick[8] == "protect from melee, special attack"
    assert screens[8].startswith("duel against reactive") and "tick 0/250" in screens[8]
    assert "tick 1/250" in screens[9] and this_tick[9] == "nothing" and "protect melee" in screens[9]
    assert screens[-1].endswith("left the fight.\n")


def test_a_key_the_mask_forbids_is_refused_with_a_reason(keyboard):
    stream, type_ = keyboard
    out = io.StringIO()
    type_(b"1\x1b")  # melee: the fighters start 3 to 7 tiles apart, out of reach
    play(stream, out, seed=0, opponent="reactive")
    assert "not allowed now: attack with melee" in out.getvalue()


def test_a_fight_played_by_keys_ends_with_a_verdict(keyboard):
    stream, type_ = keyboard
    out = io.StringIO()
    type_(b"3 " * 260)  # magic every tick; the tick limit is 250
    result = play(stream, out, seed=0, opponent="reactive")
    text = out.getvalue()
    assert result in (-1.0, 0.0, 1.0)
    assert ("You win!" in text) or ("You lose." in text) or ("Draw." in text) or ("Time is up" in text)


def test_lines_when_stdin_is_not_a_terminal():
    out = io.StringIO()
    assert play(io.StringIO("2e\nquit\n"), out, seed=0, opponent="reactive") == 0.0
    text = out.getvalue()
    assert text.startswith("stdin is not a terminal: reading one line of keys per tick")
    assert "tick 1/250" in text and "left the fight." in text


def _tmux_or_skip() -> str:
    path = shutil.which("tmux")
    if path is None:
        message = "tmux is not installed (apt-get install -y tmux; .ci/run does it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


class Pane:
    """A detached tmux session on a server of its own, running ``command`` in ``cwd``."""

    def __init__(self, tmux: str, socket: Path, command: str, cwd: Path):
        self.base = [tmux, "-S", str(socket), "-f", "/dev/null"]
        # the pane stays readable after the command exits (remain-on-exit), so its last words can be checked
        self._tmux("new-session", "-d", "-s", "play", "-x", "160", "-y", "50", "-c", str(cwd), command)
        self._tmux("set-option", "-t", "play", "remain-on-exit", "on")

    def _tmux(self, *args) -> str:
        return subprocess.run([*self.base, *args], check=True, capture_output=True, text=True, timeout=10).stdout

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "play", *keys)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "play")

    def wait_for(self, *texts: str) -> str:
        """The screen once it shows every one of ``texts``; fails with the screen after DEADLINE_S."""
        end = time.monotonic() + DEADLINE_S
        while True:
            screen = self.screen()
            if all(t in screen for t in texts):
                return screen
            if time.monotonic() > end:
                pytest.fail(f"the pane never showed {texts} within {DEADLINE_S} s; it shows:\n{screen}")
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=10)


@pytest.mark.parametrize("leave, words", [("Escape", "left the fight."), ("C-c", "left the fight (Ctrl-C).")])
def test_play_under_tmux_reads_keys_shows_the_key_line_and_restores_the_terminal(tmp_path, leave, words):
    tmux = _tmux_or_skip()
    play_cmd = shlex.join([sys.executable, "-m", "sparring", "play", "duel", "--env.opponent", "reactive"])
    saved = {k: os.environ[k] for k in ("NUMBA_CACHE_DIR",) if k in os.environ}
    env = shlex.join(["env", *(f"{k}={v}" for k, v in saved.items())])
    out = shlex.quote(str(tmp_path))
    command = f"stty -g > {out}/before; {env} {play_cmd}; echo $? > {out}/status; stty -g > {out}/after"
    pane = Pane(tmux, tmp_path / "tmux.sock", f"bash -c {shlex.quote(command)}", ROOT)
    try:
        pane.wait_for(KEY_LINES[0], KEY_LINES[1], "tick 0/250", "this tick: nothing")
        pane.send("2", "e")  # two keys, no Enter: both count at once
        pane.wait_for("this tick: attack with ranged, protect from ranged")
        pane.send("Space")  # plays the tick
        screen = pane.wait_for("tick 1/250", "this tick: nothing")
        assert "ranged gear, protect ranged" in screen and "outgoing: ranged hit lands in" in screen
        assert KEY_LINES[1] in screen
        pane.send(leave)
        pane.wait_for(words)
        deadline = time.monotonic() + DEADLINE_S
        while not (tmp_path / "after").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        pane.close()
    assert (tmp_path / "status").read_text().strip() == "0"
    assert (tmp_path / "after").read_text() == (tmp_path / "before").read_text()  # the terminal's settings are back
