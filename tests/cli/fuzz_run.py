"""Runs many command lines through ``sparring.cli.main`` in this one process (the fuzz harness's subprocess).

Reads a JSON list of cases ``{"id", "argv"}`` on stdin; writes one JSON line per case to the file
named by argv[1]: the exit code, what the command printed on stderr, whether an exception escaped
(its traceback), and the seconds it took. A case still running after ``SPARRING_FUZZ_CASE_S``
seconds (default 60) is stopped by an alarm and reported as hung. The process's address space is capped at
``SPARRING_FUZZ_MEMORY_GB`` (default 8): a command that reads an endless file into memory fails here (a
MemoryError, or the process killed) instead of taking the machine's memory. ``python -m tests.cli.fuzz_run OUT``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import signal
import sys
import time
import traceback


class Hung(BaseException):
    """The alarm of a case that ran past its time."""


def _alarm(signum, frame):
    raise Hung


def run_case(argv: list[str], seconds: float) -> dict:
    """One command line through ``main``: code, stderr, traceback (None when no exception escaped), seconds."""
    from sparring.cli import main

    err, out = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    code, trace = None, None
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                code = main(argv)
            except SystemExit as exc:  # main returns codes; a SystemExit escaping it is reported as such
                code = exc.code if isinstance(exc.code, int) else 1
                trace = f"SystemExit({exc.code!r}) escaped main"
    except Hung:
        trace = f"hung: still running after {seconds:g} s"
    except BaseException:  # noqa: BLE001 - any exception escaping main is what the harness reports
        trace = traceback.format_exc()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return {"code": code, "err": err.getvalue()[-4000:], "trace": trace, "seconds": time.perf_counter() - start}


def main() -> None:
    cases = json.load(sys.stdin)
    seconds = float(os.environ.get("SPARRING_FUZZ_CASE_S", "60"))
    cap = int(float(os.environ.get("SPARRING_FUZZ_MEMORY_GB", "8")) * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _alarm)
    with open(sys.argv[1], "w") as fh:
        for case in cases:
            result = run_case(case["argv"], seconds)
            fh.write(json.dumps({"id": case["id"], **result}) + "\n")
            fh.flush()


if __name__ == "__main__":
    main()
