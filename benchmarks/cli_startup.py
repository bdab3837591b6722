"""Start-up time of the `sparring` command, as a ratio to `python -c pass` measured in the same run.

    python benchmarks/cli_startup.py [--repeats 9]

Times, each a fresh subprocess, interleaved so that a change of the machine's load hits all of them:
`python -c pass`, `sparring --help`, `sparring list` (warm: its env summaries cached by a run before
the timing) and `python -m sparring --help`. Prints the median wall time of each and its ratio to
`python -c pass`; the ratios are what to compare between machines.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def commands() -> dict[str, list[str]]:
    """What is timed: a label -> the command line."""
    script = shutil.which("sparring", path=os.path.dirname(sys.executable)) or shutil.which("sparring")
    if script is None:
        raise SystemExit("cli_startup: no `sparring` console script beside this Python; pip install -e . first")
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "sparring --help": [script, "--help"],
        "sparring list": [script, "list"],
        "python -m sparring --help": [sys.executable, "-m", "sparring", "--help"],
    }


def wall_time(argv: list[str]) -> float:
    """Seconds from start to exit of one run of ``argv`` (output discarded; a failure stops the benchmark)."""
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    return time.perf_counter() - start


def main() -> None:
    """Time every command ``--repeats`` times, round robin, and print medians and ratios."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=9, help="runs of each command (default 9)")
    args = p.parse_args()
    if args.repeats < 1:
        raise SystemExit(f"cli_startup: --repeats must be >= 1, got {args.repeats}")
    runs = commands()
    wall_time(runs["sparring list"])  # fills the list's cache: what is timed is a warm start
    times: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(args.repeats):
        for label, argv in runs.items():
            times[label].append(wall_time(argv))
    base = statistics.median(times["python -c pass"])
    print(f"start-up, median of {args.repeats} fresh processes each (interleaved), ratio to `python -c pass`")
    print(f"  {'command':<28} {'median s':>9} {'min s':>7} {'ratio':>7}")
    for label, values in times.items():
        median = statistics.median(values)
        print(f"  {label:<28} {median:>9.3f} {min(values):>7.3f} {median / base:>6.1f}x")


if __name__ == "__main__":
    main()
