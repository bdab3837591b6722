"""A live terminal dashboard: redrawn in place on a terminal, one summary line every few seconds otherwise."""

from __future__ import annotations

import sys
import time

CLEAR = "\x1b[H\x1b[2J"


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _eta(progress: float, elapsed: float) -> str:
    if progress <= 0:
        return "?"
    left = elapsed * (1 - progress) / progress
    return f"{int(left // 60)}m{int(left % 60):02d}s"


class Dashboard:
    """Shows steps/s, episode metrics, losses, progress and ETA for a run."""

    def __init__(self, title: str, stream=None, every_s: float = 0.5, line_every_s: float = 10.0):
        self.title, self.stream = title, stream or sys.stdout
        self.live = self.stream.isatty()
        self.every_s = every_s if self.live else line_every_s
        self.last = 0.0
        self.latest: dict = {}

    def update(self, metrics: dict, progress: float, force: bool = False) -> None:
        """Fold in an iteration's metrics; redraw if due."""
        self.latest.update({k: v for k, v in metrics.items() if v is not None})
        now = time.monotonic()
        if not force and now - self.last < self.every_s:
            return
        self.last = now
        m = self.latest
        if not self.live:
            env = " ".join(f"{k[4:]}={_fmt(v)}" for k, v in m.items() if k.startswith("env/") and "phase" not in k)
            self.stream.write(
                f"[{100 * progress:5.1f}%] step {m.get('train/step', 0)} "
                f"sps {_fmt(m.get('train/sps', 0))}"
                f" {env} loss/policy={_fmt(m.get('loss/policy', 0))}\n"
            )
            self.stream.flush()
            return
        self.stream.write(CLEAR + self.render(progress))
        self.stream.flush()

    def render(self, progress: float) -> str:
        """The dashboard as text."""
        m = self.latest
        width = 30
        bar = "#" * int(width * progress) + "-" * (width - int(width * progress))
        lines = [
            f"sparring train {self.title}",
            f"[{bar}] {100 * progress:5.1f}%  ETA {_eta(progress, m.get('train/elapsed_s', 0.0))}",
            f"step {m.get('train/step', 0):,}   {_fmt(m.get('train/sps', 0.0))} steps/s   "
            f"lr {_fmt(m.get('train/lr', 0.0))}",
            "",
        ]
        for group in ("env/", "selfplay/", "loss/", "perf/"):
            items = [(k, v) for k, v in sorted(m.items()) if k.startswith(group)]
            lines += [f"  {k:<28} {_fmt(v)}" for k, v in items]
            if items:
                lines.append("")
        return "\n".join(lines) + "\n"
