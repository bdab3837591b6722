"""One progress display for every long command: a live bar on a terminal, a plain line every few seconds otherwise.

A :class:`Progress` shows a title, what is being done now (:meth:`~Progress.status`), a bar with the
count done, the rate, the elapsed time and the ETA, and the key figures of the work (a win rate, a
loss). It writes to stderr by default, so what a command prints on stdout (a report, ``--json``)
stays clean when piped.

- On a terminal: a ``rich`` live display, redrawn in place four times a second.
- Elsewhere (a pipe, a log file): plain lines. Nothing in the first ``quiet_s`` seconds, so a short
  command prints only its result and a bad input only its one-line error; then each new status at
  once, a progress line every ``every_s`` seconds while the count or the figures change (and one a
  minute while nothing does), and a last line (``done, ...``) at the end.

Library loops take an optional ``progress`` (``progress = progress or silent()``), call
:meth:`~Progress.start` when their work begins and :meth:`~Progress.update` as it goes; the command
that runs them owns the display.
"""

from __future__ import annotations

import collections
import math
import sys
import threading
import time

EVERY_S = 5.0
"""Seconds between plain progress lines."""
QUIET_S = 10.0
"""Seconds after opening before the first plain line."""
STILL_S = 60.0
"""Seconds between plain lines while nothing changes (the command is still alive)."""
WINDOW_S = 30.0
"""The rate and the ETA are measured over about this many recent seconds."""
MODES = ("live", "lines", "off")
_live_open: list[Progress] = []  # rich draws one live display at a time; a second one opened inside writes lines


class Progress:
    """A progress display; use it as a context manager (or call :meth:`close`).

    Args:
      title: what runs (``"eval duel"``). stream: where to write (default: stderr).
      mode: ``"live"`` (a rich display), ``"lines"`` (plain lines) or ``"off"``; default: live when
        ``stream`` is a terminal (and no other live display is open), else lines.
      every_s, quiet_s: see the module's doc (default: :data:`EVERY_S`, :data:`QUIET_S`).
      clock: a monotonic clock in seconds. Tests pass a fake one; then lines are written only from
        the calls (with the real clock a background thread also writes them while the work is busy).
    """

    def __init__(
        self,
        title: str,
        *,
        stream=None,
        mode: str | None = None,
        every_s: float | None = None,
        quiet_s: float | None = None,
        clock=None,
    ):
        self.title = title
        self.stream = stream if stream is not None else sys.stderr
        if mode is None:
            mode = "live" if _isatty(self.stream) and not _live_open else "lines"
        if mode not in MODES:
            raise ValueError(f"progress mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.mode = mode
        self.every_s = EVERY_S if every_s is None else every_s
        self.quiet_s = QUIET_S if quiet_s is None else quiet_s
        self.clock = clock or time.monotonic
        self.opened = self.clock()
        self.unit, self.total, self.done, self.fraction = "step", None, 0, None
        self.figures: dict = {}
        self.table: dict = {}
        self.state = ""
        self.rate = self.eta = None
        self._samples: collections.deque = collections.deque()
        self._started = self._changed = self._new_state = self._wrote = self._closed = False
        self._last_line = self._last_any = self.opened  # the last progress line, the last line of any kind
        self._lock = threading.RLock()  # the calls and the thread that writes lines (or redraws) share the state
        self._ticker = self._stop = None
        self._live = self._console = None
        self._real_clock = clock is None
        self._watched: list = []

    # --- what library loops call

    def start(self, total: float | None = None, unit: str | None = None, done: float = 0) -> None:
        """Begin a piece of work of ``total`` units (None: unknown), counting from ``done``.

        The rate is measured from here on: setup before it (compiling, loading) and a resumed
        run's earlier work do not count. The figures of the work before are cleared.
        """
        with self._lock:
            self.total, self.done, self.unit = total, done, unit or self.unit
            self.figures, self.table = {}, {}
            self.fraction = _fraction(done, total)
            self.rate = self.eta = None
            self._samples = collections.deque([(self.clock(), done, self.fraction or 0.0)])
            self._started = self._changed = True

    def update(
        self, done: float | None = None, figures: dict | None = None, *, fraction: float | None = None, table=None
    ) -> None:
        """Record progress: ``done`` units so far; the key ``figures`` (name -> value, shown in this order,
        then those given before and not now); ``fraction`` of the whole when it is not ``done / total``
        (a budget in minutes). ``table`` (name -> value, grouped by the names' ``group/`` prefix) is
        shown under the bar on a terminal only."""
        with self._lock:
            now = self.clock()
            if done is not None:
                self.done = done
            self.fraction = fraction if fraction is not None else _fraction(self.done, self.total)
            if figures:
                self.figures = {**figures, **{k: v for k, v in self.figures.items() if k not in figures}}
            if table:
                self.table = {**self.table, **table}
            self._measure(now)
            self._started = self._changed = True
            self._tick(now)

    def watch(self, figures) -> None:
        """Also show ``figures()`` (name -> value), read whenever a line or frame is drawn: counters a library
        keeps between its updates (a model's decisions while a round of episodes plays). A change of them is new
        progress, so a line comes every ``every_s`` seconds while they move. ``figures`` must be cheap and
        thread-safe (it runs on the display's thread)."""
        with self._lock:
            self._watched.append(figures)

    def status(self, text: str) -> None:
        """Say what is being done now (``"loading the model"``)."""
        with self._lock:
            if text != self.state:
                self.state, self._new_state = text, True
                self._tick(self.clock())

    def print(self, text: str) -> None:
        """A line kept above the live display (or written as is, at once), e.g. one per finished iteration."""
        if self.mode == "live" and self._console is not None:  # not under the lock: the redraw takes it
            self._console.print(text, highlight=False, markup=False)
        elif self.mode != "off":
            with self._lock:
                self._write(text)

    # --- opening and closing

    def __enter__(self) -> Progress:
        if self.mode == "live":
            from rich.console import Console
            from rich.live import Live

            self._console = Console(file=self.stream, force_terminal=True)
            # stdout is redirected above the display only when it is the same terminal (else a pipe keeps it)
            self._live = Live(self, console=self._console, refresh_per_second=4, redirect_stdout=_isatty(sys.stdout))
            self._live.start()
            _live_open.append(self)
        elif self.mode == "lines" and self._real_clock:
            self._stop = threading.Event()
            self._ticker = threading.Thread(target=self._keep_writing, name="sparring-progress", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, kind, *exc) -> None:
        self.close(failed=kind is not None)

    def close(self, failed: bool = False) -> None:
        """Stop the display. On a terminal the last frame stays; elsewhere a last line (``done, ...``), unless
        the work never started or it failed before any line was written (its error is then the only line)."""
        if self._closed:
            return
        self._closed = True
        if self._live is not None:
            with self._lock:
                self.state = "stopped" if failed else "done"
            self._live.stop()  # its last redraw shows the last state
            _live_open.remove(self)
            self._live = None
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None
        with self._lock:
            if self.mode == "lines" and self._started and (self._wrote or not failed):
                self._write(self.line(self.clock(), final=not failed))

    # --- what is shown

    def counts(self, now: float) -> str:
        """``45% 900/2,000 episodes, 12.5 episodes/s, 1:12 elapsed, ETA 1:28``."""
        if not self._started:
            return f"{_clock(now - self.opened)} elapsed"
        parts = []
        if self.fraction is not None:
            parts.append(f"{100 * self.fraction:.0f}%")
        amount = _number(self.done) + (f"/{_number(self.total)}" if self.total is not None else "")
        parts.append(f"{amount} {_plural(self.unit)}")
        text = " ".join(parts)
        if self.rate is not None:
            text += f", {_rate(self.rate, self.unit)}"
        text += f", {_clock(now - self.opened)} elapsed"
        if self.fraction is not None and self.fraction < 1:
            text += f", ETA {_clock(self.eta) if self.eta is not None else '?'}"
        return text

    def line(self, now: float, final: bool = False) -> str:
        """The plain progress line: title, counts and key figures."""
        figures = format_figures(self.figures)
        return f"{self.title}: {'done, ' if final else ''}{self.counts(now)}" + (f" | {figures}" if figures else "")

    def __rich__(self):
        """The live display: title and status, the bar with the counts, the key figures, the table."""
        from rich.console import Group
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text

        with self._lock:
            self._poll()
            head = Text(self.title, style="bold")
            if self.state:
                head.append(f"  {self.state}", style="cyan")
            if self.fraction is not None:
                shown = ProgressBar(total=1.0, completed=self.fraction, width=30)
            else:
                shown = ProgressBar(total=None, width=30, pulse=True)
            bar = Table.grid(padding=(0, 1))
            bar.add_row(shown, Text(self.counts(self.clock())))
            parts = [head, bar]
            if self.figures:
                parts.append(Text(format_figures(self.figures)))
            if self.table:
                parts.append(_grouped_table(self.table))
        return Group(*parts)

    # --- internals

    def _tick(self, now: float) -> None:
        """Write the plain lines that are due, if any (the lock is held)."""
        if self.mode != "lines" or now - self.opened < self.quiet_s:
            return
        self._poll()
        if self._new_state:
            self._write(f"{self.title}: {self.state} ({_clock(now - self.opened)} elapsed)")
            self._new_state, self._last_any = False, now
        if self._started and self._changed and now - self._last_line >= self.every_s:
            self._write(self.line(now))
            self._changed, self._last_line, self._last_any = False, now, now
        elif now - self._last_any >= STILL_S:  # nothing new for a minute: say it is still at it
            still = self.line(now) if self._started else f"{self.title}: {self.state or 'working'}"
            self._write(still if self._started else f"{still} ({_clock(now - self.opened)} elapsed)")
            self._last_line = self._last_any = now

    def _poll(self) -> None:
        """Merge the watched figures into the figures; a changed one is new progress (the lock is held)."""
        for figures in self._watched:
            new = figures()
            if any(self.figures.get(k) != v for k, v in new.items()):
                self.figures = {**self.figures, **new}
                self._changed = True

    def _keep_writing(self) -> None:
        """The background thread of plain lines: a line that falls due while the work is busy is written."""
        while not self._stop.wait(1.0):
            with self._lock:
                self._tick(self.clock())

    def _measure(self, now: float) -> None:
        """The rate (units/s) and the ETA over the recent window of samples."""
        samples = self._samples
        samples.append((now, self.done, self.fraction or 0.0))
        while len(samples) > 2 and samples[1][0] <= now - WINDOW_S:
            samples.popleft()
        t0, d0, f0 = samples[0]
        span = now - t0
        if span <= 0:
            return
        self.rate = (self.done - d0) / span
        speed = ((self.fraction or 0.0) - f0) / span
        self.eta = round((1 - self.fraction) / speed) if self.fraction is not None and speed > 0 else None

    def _write(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()
        self._wrote = True


def silent() -> Progress:
    """A progress that shows nothing: the default of library loops that take one."""
    return Progress("", mode="off")


def format_figures(figures: dict) -> str:
    """``win=0.51 loss=0.32``: each figure as name=value, numbers to 4 significant digits."""
    return " ".join(f"{name}={_value(value)}" for name, value in figures.items())


def _grouped_table(table: dict):
    """The ``group/name`` entries of ``table`` as one column per group, side by side."""
    from rich.columns import Columns
    from rich.table import Table

    groups: dict[str, list] = {}
    for key, value in sorted(table.items()):
        group, _, name = key.rpartition("/")
        groups.setdefault(group, []).append((name, value))
    columns = []
    for group, rows in groups.items():
        grid = Table(title=group or None, show_header=False, box=None, padding=(0, 1), title_justify="left")
        for name, value in rows:
            grid.add_row(name, _value(value))
        columns.append(grid)
    return Columns(columns, padding=(0, 3))


def _isatty(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _fraction(done: float, total: float | None) -> float | None:
    if total is None:
        return None
    return min(1.0, done / total) if total > 0 else 1.0


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _value(value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if not math.isfinite(value):
        return str(value)
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def _plural(unit: str) -> str:
    return unit if unit.endswith("s") else unit + "s"


def _rate(rate: float, unit: str) -> str:
    """``1,234 steps/s``; below one a second, the time per unit (``42 s/trial``)."""
    if rate >= 1 or rate <= 0:
        return f"{_value(float(rate))} {_plural(unit)}/s"
    return f"{_clock(1 / rate)}/{unit}" if 1 / rate >= 60 else f"{1 / rate:.1f} s/{unit}"


def _clock(seconds: float) -> str:
    """``0:42``, ``12:05``, ``3:02:11``."""
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
