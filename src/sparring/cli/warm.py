"""``sparring warm``: compile every registered env once, so that later starts load Numba's cache."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import time

from sparring.cli.values import threads


def _compilations(module) -> int:
    """Numba cache misses (compilations) so far of the dispatchers an env's batch module holds."""
    from numba.core.dispatcher import Dispatcher

    return sum(sum(fn.stats.cache_misses.values()) for fn in vars(module).values() if isinstance(fn, Dispatcher))


def warm_env(name: str) -> dict:
    """Compile, or load from Numba's cache, every entry point of env ``name`` at its default config: reset, step,
    observe and each scripted policy. On a cold cache the step may compile in a second process meanwhile (see
    :mod:`sparring.kit.compile_jobs`, switched by ``SPARRING_COMPILE_JOBS``). Returns the env, the seconds it took
    and whether anything compiled."""
    import numpy as np

    from sparring.kit import registry
    from sparring.kit.batch import BatchedEnv, compiled
    from sparring.kit.compile_jobs import step_in_background
    from sparring.kit.config import make_config

    start = time.perf_counter()
    cls = registry.get(name)
    obs_dtype = cls.obs_spec(make_config(cls, {})).dtype
    module = compiled(cls, obs_dtype)
    before = _compilations(module)
    job = step_in_background(module, cls, obs_dtype)
    env = BatchedEnv(cls, num_envs=1)
    env.restore(None, env.snapshot())
    for policy in cls.scripted:
        env.scripted_actions(policy)
    env.step(np.zeros((env.rows, len(env.heads.sizes)), np.int32))  # last: a step job compiles it meanwhile
    compiled_here = _compilations(module) > before
    return {"env": name, "seconds": time.perf_counter() - start, "compiled": compiled_here or job is not None}


def _no_step_jobs() -> None:
    """A warm worker process compiles its envs alone: the workers already use the CPUs asked for."""
    from sparring.kit.compile_jobs import SWITCH

    os.environ[SWITCH] = "0"


@contextlib.contextmanager
def _step_jobs(value: str):
    """Within the block, ``SPARRING_COMPILE_JOBS`` is ``value`` ("0": no step job, "1": one whatever the load)."""
    from sparring.kit.compile_jobs import SWITCH

    old = os.environ.get(SWITCH)
    os.environ[SWITCH] = value
    try:
        yield
    finally:
        if old is None:
            del os.environ[SWITCH]
        else:
            os.environ[SWITCH] = old


def _warm_all(names: list[str], jobs: int):
    """Yield each env's result as it finishes: in this process when one process is asked for or one env is
    named (then with a step job when ``jobs`` >= 2, whatever the load: asked for), else envs spread over
    ``jobs`` worker processes."""
    if jobs < 2 or len(names) < 2:
        with _step_jobs("1" if jobs >= 2 else "0"):
            for name in names:
                yield warm_env(name)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context("spawn")  # a fresh interpreter: Numba is not forked mid-use
    with ProcessPoolExecutor(min(jobs, len(names)), mp_context=context, initializer=_no_step_jobs) as pool:
        for done in as_completed([pool.submit(warm_env, name) for name in names]):
            yield done.result()


def cmd_warm(args, extra) -> int:
    """Warm every env named (default: every registered env), one line per env as it finishes."""
    from sparring.kit import registry
    from sparring.kit.cache import cache_root
    from sparring.kit.compile_jobs import usable_cpus

    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring warm [ENV ...] [--jobs N] [--json]")
    jobs = usable_cpus() if args.jobs is None else args.jobs
    if jobs < 1:
        raise ValueError(f"--jobs must be a positive int (processes compiling at once), got {jobs}")
    names = args.envs or registry.names()
    for name in names:
        registry.target(name)  # an unknown name fails before anything compiles
    start, results = time.perf_counter(), []
    for result in _warm_all(names, jobs):
        results.append(result)
        if not args.json:
            how = "compiled" if result["compiled"] else "cached"
            print(f"{result['env']:<16} {how:<9} {result['seconds']:7.2f} s", flush=True)
    total = time.perf_counter() - start
    if args.json:
        print(json.dumps({"cache": cache_root(), "jobs": jobs, "envs": results, "seconds": total}, indent=1))
    else:
        print(f"warmed {len(results)} env(s) in {total:.2f} s with {jobs} process(es); Numba cache: {cache_root()}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``warm``."""
    p = sub.add_parser(
        "warm", help="compile every registered env once (reset, step, observe, scripted policies) into Numba's cache"
    )
    p.add_argument("envs", nargs="*", metavar="ENV", help="envs to warm (default: every registered env)")
    p.add_argument(
        "--jobs",
        type=threads(),
        default=None,
        metavar="N",
        help="processes compiling at once: envs spread over N processes, or one env's step beside its reset "
        "(default: the usable CPUs; 1: this process alone)",
    )
    p.add_argument("--json", action="store_true", help="per env seconds and whether it compiled, as JSON")
    p.set_defaults(fn=cmd_warm)
