"""Peak resident memory and wall time of a ``sparring distill`` run, under a watchdog that kills it past a limit.

Runs the command given after ``--`` (default: ``sparring distill town`` on SmolLM2 with LoRA rank 8, two
episodes, two steps, a one-day town, every other flag its default) as a child process, polls the resident
memory of its whole process tree every 0.2 s, and kills the tree once it passes ``--limit-gb`` (so an
unbounded run cannot take the machine's memory from everyone else). Prints the peak, the wall time and the
command's exit status. For example:

    .venv/bin/python benchmarks/distill_memory.py
    .venv/bin/python benchmarks/distill_memory.py --limit-gb 6 -- .venv/bin/sparring distill town \
        --base local:MODEL.gguf --lora 8 --out /tmp/d --episodes 2 --steps 2 --env.days 1 --batch-size 2

Measured 2026-12-07 on the 2-core, 24 GiB build machine (SmolLM2-135M-Instruct Q4_1, dequantised to float32),
the default command: see "A pretrained small model" in docs/town.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import psutil


def tree_rss(proc: psutil.Process) -> int:
    """Resident bytes of ``proc`` and all its descendants (0 for those already gone)."""
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return total


def watch(command: list[str], limit: int, every: float = 0.2) -> tuple[int, int, float, bool]:
    """Run ``command``; returns its exit status, the peak resident bytes of its tree, the wall seconds and
    whether the watchdog killed it for passing ``limit`` bytes."""
    started = time.perf_counter()
    child = subprocess.Popen(command)
    proc, peak, killed = psutil.Process(child.pid), 0, False
    while child.poll() is None:
        try:
            rss = tree_rss(proc)
        except psutil.NoSuchProcess:
            break
        peak = max(peak, rss)
        if rss > limit:
            killed = True
            for p in [*proc.children(recursive=True), proc]:
                try:
                    p.kill()
                except psutil.NoSuchProcess:
                    pass
            break
        time.sleep(every)
    rc = child.wait()
    return rc, peak, time.perf_counter() - started, killed


def default_command(out: str) -> list[str]:
    """The issue's command: distill town on SmolLM2 with LoRA 8, 2 episodes, 2 steps, a one-day town."""
    from sparring.lm.model_spec import smollm2_gguf

    sparring = os.path.join(os.path.dirname(sys.executable), "sparring")
    return [sparring, "distill", "town", "--base", f"local:{smollm2_gguf()}", "--lora", "8", "--out", out]


def main() -> int:
    """Parse the flags, run the command under the watchdog, print its peak memory and time."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit-gb", type=float, default=10.0, help="kill the run past this resident memory")
    parser.add_argument("command", nargs="*", help="the command (after --); default: the issue's distill run")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="distill_memory_")
    try:
        command = args.command or [
            *default_command(os.path.join(tmp, "out")),
            *("--episodes", "2", "--steps", "2", "--env.days", "1"),
        ]
        print("running:", " ".join(command), flush=True)
        rc, peak, seconds, killed = watch(command, int(args.limit_gb * 2**30))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    verdict = f"killed past {args.limit_gb} GB" if killed else f"exit {rc}"
    print(f"peak resident memory {peak / 2**30:.2f} GiB, wall time {seconds:.1f} s, {verdict}")
    return 1 if killed else rc


if __name__ == "__main__":
    sys.exit(main())
