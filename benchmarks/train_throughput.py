"""PPO training throughput on `squared`, 1024 envs: MLP and recurrent policies, next to references.

    python benchmarks/train_throughput.py [--envs 1024] [--iterations 8] [--threads 0] [--only NAME]
    python benchmarks/train_throughput.py --threads 1 --against REV [--rounds 1]

Prints learner agent-steps/s of whole PPO iterations (rollout + update; median over
iterations after one warm-up), and, measured in the same process, the raw env step rate
with random actions (the ceiling the trainer can approach). PufferLib 3.0's CPU trainer
did about 132 K steps/s (MLP, 16K params) and 29 K steps/s (LSTM, 148K params) on this
machine (DESIGN.md); those figures are printed as yardsticks, not re-measured here.

``--against REV`` measures each policy twice, in fresh processes taking turns: once with the
sparring of git revision REV (its ``src`` exported from this checkout's repository) and once
with this checkout's, at the same envs and threads, and prints before, after and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PUFFERLIB = {"none": 132_000, "lstm": 29_000, "mingru": 29_000}
# PufferLib-sized policies (one 128-wide layer on the raw grid, one epoch), then this trainer's squared defaults
POLICIES = {
    "MLP, PufferLib-sized": {"recurrence": "none", "layers": 1, "onehot_obs": False, "update_epochs": 1},
    "LSTM, PufferLib-sized": {"recurrence": "lstm", "layers": 1, "onehot_obs": False, "update_epochs": 1},
    "MinGRU, same size": {"recurrence": "mingru", "layers": 1, "onehot_obs": False, "update_epochs": 1},
    "MLP, sparring defaults": {},
}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def training_rate(policy: dict, envs: int, iterations: int, threads: int) -> dict:
    """Median steps/s and the rollout/update split of PPO iterations with this policy."""
    from sparring.train.config import make_train_config
    from sparring.train.trainer import Trainer

    cfg = make_train_config(None, {"num_envs": envs, "threads": threads, "steps": 10**12, "anneal_lr": False, **policy})
    trainer = Trainer("squared", cfg)
    params = sum(p.numel() for p in trainer.policy.parameters())
    trainer.iterate()
    runs = [trainer.iterate() for _ in range(iterations)]
    return {
        "recurrence": cfg.recurrence,
        "params": params,
        "sps": statistics.median(r["train/sps"] for r in runs),
        "rollout_s": statistics.median(r["perf/rollout_s"] for r in runs),
        "update_s": statistics.median(r["perf/update_s"] for r in runs),
        "batch": trainer.batch_size,
    }


def exported_src(rev: str) -> str:
    """The ``src`` folder of git revision ``rev`` of this checkout, exported once into the temp folder."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except subprocess.CalledProcessError:
        raise SystemExit(f"--against {rev!r}: not a commit of the git repository at {ROOT}") from None
    folder = os.path.join(tempfile.gettempdir(), f"sparring-src-{sha}")
    if not os.path.isdir(folder):
        partial = tempfile.mkdtemp(prefix=f"sparring-src-{sha[:12]}-")
        archive = subprocess.run(["git", "archive", sha, "src"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", partial], input=archive, check=True)
        os.replace(partial, folder)
    return os.path.join(folder, "src")


def child_rate(name: str, args, src: str) -> dict:
    """``training_rate`` of one policy in a fresh process, with sparring imported from the folder ``src``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    command = [sys.executable, os.path.abspath(__file__), "--only", name, "--json"]
    command += ["--envs", str(args.envs), "--iterations", str(args.iterations), "--threads", str(args.threads)]
    out = subprocess.run(command, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"measuring {name!r} with sparring from {src} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def line(name: str, r: dict, env_rate: float) -> str:
    """One policy's figures."""
    yardstick = PUFFERLIB[r["recurrence"]]
    return (
        f"PPO {name:<23} {r['params'] / 1e3:6.1f}K params: {r['sps'] / 1e3:6.1f} K steps/s "
        f"(batch {r['batch']}: rollout {r['rollout_s']:.2f} s + update {r['update_s']:.2f} s); "
        f"{r['sps'] / env_rate:.4f}x the env alone; vs PufferLib's {yardstick / 1e3:.0f} K: {r['sps'] / yardstick:.2f}x"
    )


def compare(args, names: list[str]) -> None:
    """Before (``--against``) and after (this checkout), each policy in fresh processes taking turns."""
    src, here = exported_src(args.against), os.path.join(ROOT, "src")
    print(f"before: {args.against} ({src}); after: {here}; threads {args.threads or 'default'}", flush=True)
    for name in names:
        before, after = [], []
        for _ in range(args.rounds):
            before.append(child_rate(name, args, src))
            after.append(child_rate(name, args, here))
        old = statistics.median(r["sps"] for r in before)
        new = statistics.median(r["sps"] for r in after)
        yardstick = PUFFERLIB[after[0]["recurrence"]]
        print(
            f"PPO {name:<23} before {old / 1e3:6.1f} K steps/s "
            f"(update {statistics.median(r['update_s'] for r in before):.2f} s), "
            f"after {new / 1e3:6.1f} K (update {statistics.median(r['update_s'] for r in after):.2f} s): "
            f"{new / old:.2f}x; vs PufferLib's {yardstick / 1e3:.0f} K: "
            f"{old / yardstick:.2f}x -> {new / yardstick:.2f}x",
            flush=True,
        )


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: the trainer's default)")
    parser.add_argument("--only", choices=list(POLICIES), help="measure this policy alone")
    parser.add_argument("--json", action="store_true", help="print each policy's figures as a JSON line")
    parser.add_argument("--against", metavar="REV", help="also measure git revision REV's sparring (before/after)")
    parser.add_argument("--rounds", type=int, default=1, help="with --against: turns per side (median)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    names = [args.only] if args.only else list(POLICIES)
    if args.against:
        compare(args, names)
        return
    from sparring.kit import registry
    from sparring.kit.bench import throughput

    env_rate = None
    if not args.json:
        env_rate = throughput(registry.get("squared"), args.envs, repeats=5, seconds=0.3)["median"]
        print(f"squared env alone, random actions, {args.envs} envs: {env_rate / 1e6:.1f} M agent-steps/s", flush=True)
    for name in names:
        r = training_rate(POLICIES[name], args.envs, args.iterations, args.threads)
        print(json.dumps(r) if args.json else line(name, r, env_rate), flush=True)


if __name__ == "__main__":
    main()
