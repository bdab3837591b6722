"""Cold and warm start of every env, before and after a change: the compile table per env.

    python benchmarks/compile_times.py [--before REV] [--after REV] [--envs duel,town] [--repeats 3]
                                       [--warm-repeats 3] [--step-job both|on|off] [--before-step-job on|off]

Every figure comes from a fresh subprocess that imports sparring, makes 64 envs and steps them once
("first step": reset and step compiled, what `sparring train` and `sparring bench` wait for), then
refreshes the observations and runs every scripted policy once ("all": what `sparring warm`
compiles). Cold runs start from an empty NUMBA_CACHE_DIR; warm runs reuse the cache their cold run
filled. Times are seconds from the probe's first line (its imports included) to the end of each
stage; CPU seconds of the probe are printed beside wall seconds, since on a loaded machine they move
less (the work of the second process that sparring.kit.compile_jobs starts, which compiles the step's
helpers, is not in them: "cold job cpu" is that process's CPU seconds, 0 where none ran). On a loaded
machine the two processes also wait for cores, so the probe's CPU seconds plus the job's, against one
process's, show what the second process costs.

"before" is the source of git revision REV (default: the last commit before issue 24's speed work),
exported with `git archive` to a temporary folder and put first on PYTHONPATH, compiled in one process
(with `--before-step-job on`: with its second compile process, for a revision that has one); "after" is this
checkout's src/, or with --after the source of another revision (the kit's files stamp every cache
entry, so a checkout edited while the runs go recompiles in its "warm" runs: measure a revision then).
Either may also name a folder holding a src/ tree, e.g. this checkout with some files put back, to
measure one change alone. With `--step-job both` (the default) "after" runs twice: "after" with the
second process (its step's helpers compile there while the probe compiles reset; sparring.kit.compile_jobs, with
SPARRING_COMPILE_JOBS=1: whatever the load; BatchedEnv starts it) and
"after-1p" with SPARRING_COMPILE_JOBS=0, one process; `on` or `off` keeps one of them. Runs alternate
between the sides, env by env, so a change of the machine's load hits all; each cell is the median
over the repeats, each ratio a side's median over the first side's.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tarfile
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
BEFORE = "a9ded0b0e89195bb8723771cea58316d8c73e8b0"  # the last commit before issue 24's speed work
STAGES = ("first_step", "all")

_PROBE = """
import json, resource, sys, time
wall, cpu = time.perf_counter(), time.process_time()
import numpy as np
import sparring
from sparring.kit.registry import get
marks = {}
def mark(stage):
    marks[stage] = (time.perf_counter() - wall, time.process_time() - cpu)
cls = get(sys.argv[1])
marks["import"] = (time.perf_counter() - wall, time.process_time() - cpu)
env = sparring.kit.BatchedEnv(cls, num_envs=int(sys.argv[2]))
env.step(np.zeros((env.rows, len(env.heads.sizes)), np.int32))
mark("first_step")
children = resource.getrusage(resource.RUSAGE_CHILDREN)
marks["job_cpu"] = children.ru_utime + children.ru_stime  # the step's process, when one ran
env.restore(None, env.snapshot())
for name in cls.scripted:
    env.scripted_actions(name)
mark("all")
print(json.dumps(marks))
"""


def export_source(rev: str, into: str) -> str:
    """The ``src`` folder of git revision ``rev`` written under ``into`` (or ``rev``'s own ``src``, when ``rev`` is
    a folder holding one); returns its path."""
    if os.path.isdir(os.path.join(rev, "src")):
        return os.path.abspath(os.path.join(rev, "src"))
    try:
        tar = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", rev, "src"], capture_output=True, check=True
        ).stdout
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"compile_times: cannot export --before {rev!r}: {exc.stderr.decode().strip()}") from None
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    return os.path.join(into, "src")


def probe(side: tuple[str, dict], env: str, cache: str, num_envs: int) -> dict:
    """One fresh process on the sources in ``side``'s folder, with its environment variables and Numba cache
    ``cache``: (wall, cpu) seconds per stage."""
    src, extra = side
    envvars = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": src, **extra}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, env, str(num_envs)], env=envvars, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"compile_times: {env} failed on {src}:\n{out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(
    sides: dict[str, tuple[str, dict]], envs: list[str], repeats: int, warm_repeats: int, num_envs: int
) -> dict:
    """``{(env, side): {"cold": [marks...], "warm": [marks...]}}``, sides alternating env by env."""
    runs = {(env, side): {"cold": [], "warm": []} for env in envs for side in sides}
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(repeats):
            for env in envs:
                order = list(sides) if r % 2 == 0 else list(sides)[::-1]
                for side in order:
                    cache = tempfile.mkdtemp(dir=scratch)
                    runs[env, side]["cold"].append(probe(sides[side], env, cache, num_envs))
                    if r == 0:
                        for _ in range(warm_repeats):
                            runs[env, side]["warm"].append(probe(sides[side], env, cache, num_envs))
                    print(f"  {env} {side} run {r + 1}/{repeats} done", file=sys.stderr, flush=True)
    return runs


def median(marks: list[dict], stage: str) -> tuple[float, float]:
    """Median (wall, cpu) seconds of ``stage`` over runs."""
    return statistics.median(m[stage][0] for m in marks), statistics.median(m[stage][1] for m in marks)


def table(runs: dict, sides: list[str], envs: list[str]) -> str:
    """The compile table: per env and side, cold and warm wall (cpu) seconds per stage, and after/before."""
    cols = [(kind, stage) for kind in ("cold", "warm") for stage in STAGES]
    head = "".join(f"{kind + ' ' + stage.replace('_', ' '):>20}" for kind, stage in cols)
    lines = [f"{'env':<10}{'side':<8}{head}{'cold job cpu':>14}   (wall s, cpu s in brackets)"]
    for env in envs:
        cells = {side: [median(runs[env, side][kind], stage) for kind, stage in cols] for side in sides}
        for side in sides:
            job = statistics.median(m["job_cpu"] for m in runs[env, side]["cold"])
            lines.append(
                f"{env:<10}{side:<8}" + "".join(f"{f'{w:.2f} ({c:.2f})':>20}" for w, c in cells[side]) + f"{job:>14.2f}"
            )
        for side in sides[1:]:
            ratio = [a[0] / b[0] for a, b in zip(cells[side], cells[sides[0]])]
            label = f"{side}/{sides[0]}" if len(sides) > 2 else "ratio"
            lines.append(f"{'':<10}{label:<8}" + "".join(f"{f'{x:.2f}x':>20}" for x in ratio))
    return "\n".join(lines)


def main() -> None:
    """Parse, measure, print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--before", default=BEFORE, help="git revision (or a folder with a src/ tree) measured as 'before'; '' skips it"
    )
    p.add_argument(
        "--after",
        default="",
        help="git revision (or a folder with a src/ tree) measured as 'after' (default: this checkout's src/; a "
        "revision stays put while files of the checkout change)",
    )
    p.add_argument("--envs", default="", help="comma-separated env names (default: every registered env)")
    p.add_argument("--repeats", type=int, default=3, help="cold runs per env and side (default 3)")
    p.add_argument("--warm-repeats", type=int, default=3, help="warm runs per env and side (default 3)")
    p.add_argument("--num-envs", type=int, default=64, help="envs in the probe's batch (default 64)")
    p.add_argument(
        "--step-job",
        choices=("both", "on", "off"),
        default="both",
        help="'after' with the second compile process (on), in one process (off), or both (default)",
    )
    p.add_argument(
        "--before-step-job",
        choices=("on", "off"),
        default="off",
        help="'before' with its second compile process (on: SPARRING_COMPILE_JOBS=1, for a revision that has "
        "sparring.kit.compile_jobs) or in one process (off, the default)",
    )
    args = p.parse_args()
    if args.repeats < 1 or args.warm_repeats < 1 or args.num_envs < 1:
        raise SystemExit("compile_times: --repeats, --warm-repeats and --num-envs must be >= 1")
    sys.path.insert(0, str(REPO / "src"))
    from sparring.kit import registry

    envs = [e for e in args.envs.split(",") if e] or registry.names()
    unknown = sorted(set(envs) - set(registry.names()))
    if unknown:
        raise SystemExit(f"compile_times: unknown env(s) {unknown}; known: {', '.join(registry.names())}")
    with tempfile.TemporaryDirectory() as old, tempfile.TemporaryDirectory() as new:
        here = export_source(args.after, new) if args.after else str(REPO / "src")
        sides = {}
        if args.before:
            switch = "1" if args.before_step_job == "on" else "0"
            sides["before"] = (export_source(args.before, old), {"SPARRING_COMPILE_JOBS": switch})
        if args.step_job in ("both", "off"):
            sides["after-1p" if args.step_job == "both" else "after"] = (here, {"SPARRING_COMPILE_JOBS": "0"})
        if args.step_job in ("both", "on"):
            sides["after"] = (here, {"SPARRING_COMPILE_JOBS": "1"})
        runs = measure(sides, envs, args.repeats, args.warm_repeats, args.num_envs)
    print(
        f"compile table: {args.num_envs} envs, median of {args.repeats} cold runs (empty Numba cache) and "
        f"{args.warm_repeats} warm runs per cell; before = {args.before or '(none)'}, "
        f"after = {args.after or 'this checkout'} (after-1p: its step compiled in the same process); "
        f"load average {os.getloadavg()[0]:.2f} at the end"
    )
    print(table(runs, list(sides), envs))


if __name__ == "__main__":
    main()
