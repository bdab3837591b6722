"""`sparring openenv` on loopback: env steps/s for 1, 8 and 64 concurrent sessions against the in-process text
env, and a TRL GRPOTrainer smoke run (3 optimisation steps on CPU, groups restored from one mid-episode snapshot).

    python benchmarks/trl_openenv.py [--env duel] [--seconds 3] [--sessions 1 8 64] [--no-trl]

The server runs as its own process (`sparring openenv ENV --port 0`, its address read from the line it prints);
the clients are OpenEnv's GenericEnvClient (async, one WebSocket session each) in this process. Every step is
one tick of the seat's env with the full text face built (prompt and legal lines), as a language-model client
needs it; the in-process figure is the same environment class (sparring.serve.openenv_env) stepped directly,
with no server between. Actions: the first legal line; a finished episode is reset with the next seed.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def in_process(env: str, config: dict, seconds: float) -> float:
    """Env steps/s of SparringEnvironment stepped directly (reset included when an episode ends)."""
    from sparring.serve.openenv_env import SparringAction, SparringEnvironment
    from sparring.serve.snapshots import SnapshotStore

    e = SparringEnvironment(env, config, SnapshotStore())
    first = SparringAction(line=0)
    for _ in range(3):  # warm: the env's compiled kernels load on the first use in this process
        e.reset(seed=0)
        e.step(first)
    obs, seed, steps = e.reset(seed=0), 0, 0
    end = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < end:
        if obs.done:
            seed += 1
            obs = e.reset(seed=seed)
        obs = e.step(first)
        steps += 1
    return steps / (time.perf_counter() - started)


async def _session(url: str, seed: int, end: float) -> int:
    from openenv.core.generic_client import GenericEnvClient

    env = GenericEnvClient(base_url=url)
    steps = 0
    try:
        result = await env.reset(seed=seed)
        while time.perf_counter() < end:
            if result.done:
                seed += 1000
                result = await env.reset(seed=seed)
            result = await env.step({"line": 0})
            steps += 1
    finally:
        await env.close()
    return steps


def over_server(url: str, sessions: int, seconds: float) -> float:
    """Env steps/s summed over ``sessions`` concurrent WebSocket sessions for ``seconds``."""

    async def main():
        started = time.perf_counter()
        counts = await asyncio.gather(*(_session(url, s, started + seconds) for s in range(sessions)))
        return sum(counts) / (time.perf_counter() - started)

    return asyncio.run(main())


def start_server(env: str, overrides: list[str]) -> tuple[subprocess.Popen, str]:
    """`sparring openenv ENV --port 0` as a child process, and the address its ready line names."""
    cmd = [sys.executable, "-m", "sparring", "openenv", env, "--port", "0", *overrides]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        found = re.search(r"on (http://\S+)", line or "")
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError(f"`{' '.join(cmd)}` did not report an address")


def trl_smoke(url: str, steps: int) -> dict:
    """The recipe of docs/examples/trl_grpo_openenv.py: GRPO of the tiny model for ``steps`` steps via ``url``."""
    import tempfile

    spec = importlib.util.spec_from_file_location("trl_grpo_openenv", ROOT / "docs/examples/trl_grpo_openenv.py")
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        model = recipe.tiny_model(url, os.path.join(tmp, "tiny"))
        return recipe.train(url, model, os.path.join(tmp, "out"), steps=steps)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="duel")
    p.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    p.add_argument("--sessions", type=int, nargs="*", default=[1, 8, 64])
    p.add_argument("--trl-steps", type=int, default=3)
    p.add_argument("--no-trl", action="store_true", help="measure throughput only")
    args = p.parse_args()
    config = {"reward_damage": 0.01, "reward_taken": 0.01} if args.env == "duel" else {}
    overrides = [f"--env.{k}={v}" for k, v in config.items()]
    proc, url = start_server(args.env, overrides)
    try:
        over_server(url, 1, 0.5)  # warm the server (compiled kernels are cached, the imports are not)
        rows = {"in_process": in_process(args.env, config, args.seconds)}
        for n in args.sessions:
            rows[f"server_{n}_sessions"] = over_server(url, n, args.seconds)
        for name, rate in rows.items():
            print(f"{args.env} {name:>20}: {rate:8.0f} env steps/s")
        if not args.no_trl:
            report = trl_smoke(url, args.trl_steps)
            for row, rewards in zip(report["log"], report["env_rewards"]):
                mean = sum(rewards) / len(rewards)
                print(f"trl step {row['step']}: logged reward {row['reward']:.5f}, env reward mean {mean:.5f}")
            print(
                f"trl: {report['global_step']} optimisation steps, {report['env_steps']} env steps, "
                f"{report['seconds']:.1f} s (snapshot {report['snapshot']})"
            )
            rows["trl"] = {k: report[k] for k in ("global_step", "env_steps", "seconds", "env_rewards")}
            rows["trl"]["logged_reward"] = [row["reward"] for row in report["log"]]
        print(json.dumps(rows))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
