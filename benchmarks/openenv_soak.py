"""A soak of `sparring openenv ENV`: 64 WebSocket sessions playing whole episodes for 10 minutes; the server's
resident memory at start and end, episodes played, and every error.

    python benchmarks/openenv_soak.py [--env duel] [--sessions 64] [--minutes 10] [--episodes-per-session 5]

The server is its own process (`sparring openenv ENV --port 0` on 127.0.0.1, its address read from the line it
prints); the clients are sparring's SparringEnvClient (async, one WebSocket session each) in this process. Each
client plays whole episodes (legal lines varied by tick, every third step the env's scripted player), every
other episode takes a mid-episode snapshot (`state()`) and plays on from it (`reset(snapshot=...)`), and after
``--episodes-per-session`` episodes closes its session and opens another, so sessions are created and torn down
all along. Resident memory (psutil) is read once the server listens, after the first ``--warm-seconds`` of
play (imports, compiled kernels and the session threads are then in place) and each minute to the end; the
snapshot store may grow to its bound (printed) in that time. The target: 0 errors, and the final resident
memory within 10% of the warm figure.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import re
import subprocess
import sys
import time

import psutil


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


class Tally:
    """Episodes, steps, sessions opened, and errors by kind (type and first words)."""

    def __init__(self):
        self.episodes = self.steps = self.sessions = self.restored = 0
        self.errors: collections.Counter[str] = collections.Counter()

    def error(self, exc: BaseException) -> None:
        """Count ``exc`` under its type and the first line of its message."""
        words = (str(exc).splitlines() or [""])[0][:120]
        self.errors[f"{type(exc).__name__}: {words}"] += 1


async def episode(env, seed: int, snapshot_at: int | None, tally: Tally) -> None:
    """One whole episode from ``seed``; with ``snapshot_at``, a snapshot at that tick, then on from it."""
    from sparring.serve.openenv_env import SparringAction

    result = await env.reset(seed=seed)
    i = 0
    while not result.done:
        if snapshot_at is not None and i == snapshot_at:
            sid = (await env.state()).snapshot
            result = await env.reset(snapshot=sid)
            tally.restored += 1
            snapshot_at = None
        obs = result.observation
        action = SparringAction(scripted=True) if i % 3 == 2 else SparringAction(line=(seed + i) % len(obs.lines))
        result = await env.step(action)
        tally.steps += 1
        i += 1
    tally.episodes += 1


async def client(url: str, index: int, end: float, per_session: int, tally: Tally) -> None:
    """Sessions one after another until ``end``, each playing ``per_session`` episodes; an error ends that
    session (counted) and the next opens."""
    from sparring.serve.client import SparringEnvClient

    seed = index
    while time.monotonic() < end:
        env = SparringEnvClient(base_url=url)
        tally.sessions += 1
        try:
            for k in range(per_session):
                if time.monotonic() >= end:
                    break
                await episode(env, seed, 5 + seed % 20 if k % 2 else None, tally)
                seed += 1000
        except Exception as exc:  # a soak counts every failure instead of stopping at the first
            tally.error(exc)
            seed += 1000
        finally:
            try:
                await env.close()
            except Exception as exc:
                tally.error(exc)


def mib(proc: psutil.Process) -> float:
    """The process's resident memory in MiB."""
    return proc.memory_info().rss / 2**20


async def soak(url: str, server: psutil.Process, args) -> dict:
    tally = Tally()
    started = time.monotonic()
    end = started + args.minutes * 60
    clients = [asyncio.create_task(client(url, i, end, args.episodes_per_session, tally)) for i in range(args.sessions)]
    samples = {"listening": mib(server)}
    await asyncio.sleep(args.warm_seconds)
    samples["warm"] = mib(server)
    print(f"{args.warm_seconds:.0f} s: rss {samples['warm']:.1f} MiB, {tally.episodes} episodes", flush=True)
    minute = 1
    while not all(c.done() for c in clients):
        await asyncio.sleep(1.0)
        if time.monotonic() - started >= 60 * minute:
            samples[f"{minute} min"] = mib(server)
            print(
                f"{minute} min: rss {samples[f'{minute} min']:.1f} MiB, {tally.episodes} episodes, "
                f"{tally.steps} steps, {sum(tally.errors.values())} errors",
                flush=True,
            )
            minute += 1
    await asyncio.gather(*clients)
    samples["end"] = mib(server)
    return {
        "seconds": time.monotonic() - started,
        "episodes": tally.episodes,
        "steps": tally.steps,
        "sessions_opened": tally.sessions,
        "restored_from_snapshots": tally.restored,
        "errors": sum(tally.errors.values()),
        "error_kinds": dict(tally.errors),
        "rss_mib": {k: round(v, 1) for k, v in samples.items()},
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="duel")
    p.add_argument("--sessions", type=int, default=64, help="concurrent WebSocket sessions")
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--episodes-per-session", type=int, default=5, help="episodes before a client reconnects")
    p.add_argument("--warm-seconds", type=float, default=60.0, help="play before the warm memory figure")
    args = p.parse_args()
    proc, url = start_server(args.env, [])
    try:
        server = psutil.Process(proc.pid)
        report = asyncio.run(soak(url, server, args))
        report["server_alive"] = proc.poll() is None
        rss = report["rss_mib"]
        report["end_over_warm"] = round(rss["end"] / rss["warm"], 3)
        print(
            f"{args.env}: {args.sessions} sessions, {report['seconds']:.0f} s, {report['episodes']} episodes, "
            f"{report['steps']} steps, {report['errors']} errors; rss {rss['listening']:.1f} MiB listening, "
            f"{rss['warm']:.1f} warm, {rss['end']:.1f} at the end ({report['end_over_warm']:.3f}x warm)"
        )
        print(json.dumps(report))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
