"""``sparring bench ENV``: throughput, compile time, snapshot cost, allocations per env-step."""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.allocations import REMEDY, count_allocations, kernel_path
from sparring.kit.progress import silent
from sparring.kit.registry import get

SIZES = (1, 64, 1024, 4096)

_PROBE = """
import json, os, sys, time
t0 = time.perf_counter()
import numpy as np, sparring
from sparring.kit.registry import get
cls = get(sys.argv[1])
env = sparring.kit.BatchedEnv(cls, num_envs=int(sys.argv[3]), **json.loads(sys.argv[2]))
acts = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
env.step(acts)
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


def _random_actions(env: BatchedEnv, count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        np.ascontiguousarray(rng.integers(0, env.heads.sizes, (env.rows, len(env.heads.sizes))), np.int32)
        for _ in range(count)
    ]


def throughput(
    cls, num_envs: int, repeats: int = 5, seconds: float = 0.3, seed: int = 0, num_threads: int = 1, **config
) -> dict:
    """Agent-steps per second of ``step`` with random actions, stepped by ``num_threads`` threads: median, min and
    max over repeats."""
    env = BatchedEnv(cls, num_envs=num_envs, seed=seed, num_threads=num_threads, **config)
    acts = _random_actions(env, 16, seed)
    env.step(acts[0])
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.05:
        env.step(acts[calls % 16])
        calls += 1
    per_repeat = max(16, int(calls * seconds / 0.05))
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        for k in range(per_repeat):
            env.step(acts[k % 16])
        rates.append(env.rows * per_repeat / (time.perf_counter() - t))
    return {
        "num_envs": num_envs,
        "num_threads": env.num_threads,
        "median": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
    }


def snapshot_cost(cls, num_envs: int = 1024, repeats: int = 200, **config) -> dict:
    """Median microseconds of ``snapshot()`` and of ``restore()`` over all envs."""
    env = BatchedEnv(cls, num_envs=num_envs, **config)
    snap_t, restore_t = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        snap = env.snapshot()
        snap_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        env.restore(None, snap)
        restore_t.append(time.perf_counter() - t)
    return {
        "num_envs": num_envs,
        "snapshot_us": 1e6 * statistics.median(snap_t),
        "restore_us": 1e6 * statistics.median(restore_t),
    }


def startup(name: str, config: dict, num_envs: int = 64) -> dict:
    """Cold (empty Numba cache) and warm start-to-first-step seconds."""
    with tempfile.TemporaryDirectory() as cache:
        envvars = {**os.environ, "NUMBA_CACHE_DIR": cache}
        runs = []
        for _ in range(2):
            out = subprocess.run(
                [sys.executable, "-c", _PROBE, name, json.dumps(config), str(num_envs)],
                env=envvars,
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {"cold_s": runs[0]["seconds"], "warm_s": runs[1]["seconds"]}


def allocations(cls, num_envs: int = 64, steps: int = 200, seed: int = 0, **config) -> dict:
    """Numba allocations of the step, reset and observe paths, per env and per call (see
    :mod:`sparring.kit.check.allocations`), and per env-step of stepping each kernel's share."""
    found = count_allocations(cls, config, seed, num_envs, steps)
    kernels = {"step": cls.step, "observe": cls.observe, "reset": cls.reset}
    return {
        **dataclasses.asdict(found),
        "kernels": {kernel_path(kernels[name]): share for name, share in found.kernels().items()},
    }


def bench(
    name: str,
    sizes=SIZES,
    repeats: int = 5,
    seconds: float = 0.3,
    compile_times: bool = True,
    progress=None,
    num_threads: int = 1,
    **config,
) -> dict:
    """Every figure of ``sparring bench`` for the env registered as ``name``, throughput stepped by ``num_threads``
    threads; ``progress`` (a :class:`~sparring.kit.progress.Progress`) counts the measurements and shows the
    throughput of each size measured."""
    progress = progress or silent()
    cls = get(name)
    progress.start(len(sizes) + 2 + compile_times, unit="measurement")
    result = {"env": name, "config": config, "num_threads": num_threads, "throughput": []}
    for n in sizes:
        progress.status(f"throughput at num_envs={n} ({repeats} x {seconds:g} s)")
        result["throughput"].append(throughput(cls, n, repeats, seconds, num_threads=num_threads, **config))
        rates = {f"envs_{row['num_envs']}": f"{row['median'] / 1e6:.2f}M/s" for row in result["throughput"]}
        progress.update(len(result["throughput"]), rates)
    progress.status("snapshot and restore cost")
    result["snapshot"] = snapshot_cost(cls, **config)
    progress.update(len(sizes) + 1)
    progress.status("Numba allocations of stepping, reset and observe")
    result["allocations"] = allocations(cls, **config)
    progress.update(len(sizes) + 2)
    if compile_times:
        progress.status("cold and warm start (two fresh processes, the first with an empty Numba cache)")
        result["startup"] = startup(name, config)
        progress.update(len(sizes) + 3)
    return result


def format_bench(result: dict) -> str:
    """Human-readable lines for a :func:`bench` result."""
    lines = [
        f"sparring bench {result['env']} ({_threads(result['num_threads'])}, random actions)",
        f"{'num_envs':>9}  {'agent-steps/s (median)':>22}  {'min - max':>21}",
    ]
    for row in result["throughput"]:
        lines.append(
            f"{row['num_envs']:>9}  {row['median'] / 1e6:>20.2f} M  {row['min'] / 1e6:>8.2f} - {row['max'] / 1e6:.2f} M"
        )
    s = result["snapshot"]
    lines.append(f"snapshot {s['num_envs']} envs: {s['snapshot_us']:.1f} us, restore: {s['restore_us']:.1f} us")
    lines += format_allocations(result["allocations"])
    if "startup" in result:
        st = result["startup"]
        lines.append(f"start to first step: cold {st['cold_s']:.2f} s (empty Numba cache), warm {st['warm_s']:.2f} s")
    return "\n".join(lines)


def _threads(n: int) -> str:
    return "one thread" if n == 1 else f"{n} threads"


def format_allocations(found: dict) -> list[str]:
    """Lines for an :func:`allocations` result: arrays per env-step (and per call), and where they come from."""
    lines = [
        f"Numba allocations ({found['num_envs']} envs, {found['steps']} random steps; per call: the wrappers of array "
        "arguments, the same for any num_envs):",
        f"  step     {found['step_per_env']:.2f} per env-step (+{found['step_per_call']:.1f} per call)",
        f"  reset    {found['reset_per_env']:.2f} per env (+{found['reset_per_call']:.0f} per call)",
        f"  observe  {found['observe_per_env']:.2f} per env (+{found['observe_per_call']:.0f} per call)",
    ]
    if found["step_per_env"] > 0:
        shares = ", ".join(f"{path} {share:.2f}" for path, share in found["kernels"].items() if share >= 0.005)
        lines.append(f"  arrays per env-step by kernel: {shares or 'not attributable'}")
    if found["step_per_env"] > 0 or found["reset_per_env"] > 0:
        lines.append(f"  remedy: {REMEDY}")
    return lines
