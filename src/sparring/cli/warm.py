"""``sparring warm``: compile every registered env once, so that later starts load Numba's cache."""

from __future__ import annotations

import argparse
import json
import time


def _compilations(module) -> int:
    """Numba cache misses (compilations) so far of the dispatchers an env's batch module holds."""
    from numba.core.dispatcher import Dispatcher

    return sum(sum(fn.stats.cache_misses.values()) for fn in vars(module).values() if isinstance(fn, Dispatcher))


def warm_env(name: str) -> dict:
    """Compile, or load from Numba's cache, every entry point of env ``name`` at its default config: reset, step,
    observe and each scripted policy. Returns the env, the seconds it took and whether anything compiled."""
    import numpy as np

    from sparring.kit import registry
    from sparring.kit.batch import BatchedEnv, compiled
    from sparring.kit.config import make_config

    start = time.perf_counter()
    cls = registry.get(name)
    module = compiled(cls, cls.obs_spec(make_config(cls, {})).dtype)
    before = _compilations(module)
    env = BatchedEnv(cls, num_envs=1)
    env.step(np.zeros((env.rows, len(env.heads.sizes)), np.int32))
    env.restore(None, env.snapshot())
    for policy in cls.scripted:
        env.scripted_actions(policy)
    return {"env": name, "seconds": time.perf_counter() - start, "compiled": _compilations(module) > before}


def cmd_warm(args, extra) -> int:
    """Warm every env named (default: every registered env), one line per env as it finishes."""
    from sparring.kit import registry
    from sparring.kit.cache import cache_root

    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring warm [ENV ...] [--json]")
    names = args.envs or registry.names()
    for name in names:
        registry.target(name)  # an unknown name fails before anything compiles
    results = []
    for name in names:
        result = warm_env(name)
        results.append(result)
        if not args.json:
            how = "compiled" if result["compiled"] else "cached"
            print(f"{name:<16} {how:<9} {result['seconds']:7.2f} s", flush=True)
    total = sum(r["seconds"] for r in results)
    if args.json:
        print(json.dumps({"cache": cache_root(), "envs": results, "seconds": total}, indent=1))
    else:
        print(f"warmed {len(results)} env(s) in {total:.2f} s; Numba cache: {cache_root()}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``warm``."""
    p = sub.add_parser(
        "warm", help="compile every registered env once (reset, step, observe, scripted policies) into Numba's cache"
    )
    p.add_argument("envs", nargs="*", metavar="ENV", help="envs to warm (default: every registered env)")
    p.add_argument("--json", action="store_true", help="per env seconds and whether it compiled, as JSON")
    p.set_defaults(fn=cmd_warm)
