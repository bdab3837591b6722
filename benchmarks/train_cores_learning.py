"""Learning per agent-step before and after issue 37's trainer changes: seeds per arm at a fixed budget, a test.

    python benchmarks/train_cores_learning.py [--seeds 5] [--jobs 2] [--threads 1] [--prefix onecore]
        [--runs squared:success:524288 duel:win:2097152] [--before 2b49e90] [--after HEAD]

Each run trains one env from seed s for a fixed number of learner agent-steps, at the env's defaults,
in a fresh process, and scores it by the mean of an episode metric (``env/<metric>``, the training
episodes' rate) over the last quarter of its iterations. ``before`` imports sparring exported from
git revision ``--before``; ``after`` the same export with issue 37's files (``CHANGED``) taken from
``--after``, so that nothing else committed in between (env changes, other work) differs between
the arms. Both arms run at ``--threads`` torch threads (1: each job holds one core; the thread count
changes the order of float sums, not what is computed). Prints per-seed scores, each arm's mean, and
a two-sided Mann-Whitney U test and Welch's t-test of after against before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from scipy.stats import mannwhitneyu, ttest_ind

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHANGED = [
    "src/sparring/players/fused_heads.py",
    "src/sparring/players/policy.py",
    "src/sparring/train/trainer.py",
    "src/sparring/train/config.py",
    "src/sparring/train/ppo.py",
    "src/sparring/train/optim.py",
]

CHILD = """
import json, sys, torch
from sparring.kit import registry
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer
env, metric, steps, seed, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
cfg = make_train_config(registry.get(env), {"seed": seed, "steps": steps, "threads": threads, "eval_episodes": 0})
trainer = Trainer(env, cfg)
values = []
while not trainer.finished():
    values.append(trainer.iterate().get("env/" + metric))
tail = [v for v in values[-max(1, len(values) // 4):] if v is not None]
print(json.dumps({"score": sum(tail) / len(tail), "iterations": len(values), "step": trainer.global_step}))
"""


def _sha(rev: str) -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"{rev!r} is not a commit of the git repository at {ROOT}")
    return out.stdout.strip()


def _extract(rev: str, folder: str, paths: list[str]) -> None:
    archive = subprocess.run(["git", "archive", rev, *paths], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)


def exported(before: str, after: str | None) -> str:
    """``src`` of revision ``before``, with the ``CHANGED`` files of ``after`` over it when given (cached)."""
    tag = _sha(before)[:12] + ("" if after is None else "-" + _sha(after)[:12])
    folder = os.path.join(tempfile.gettempdir(), f"sparring-learning-{tag}")
    if not os.path.isdir(folder):
        partial = tempfile.mkdtemp(prefix=f"sparring-learning-{tag}-")
        _extract(before, partial, ["src"])
        if after is not None:
            present = [
                p
                for p in CHANGED
                if subprocess.run(["git", "cat-file", "-e", f"{after}:{p}"], cwd=ROOT).returncode == 0
            ]
            _extract(after, partial, present)
        os.replace(partial, folder)
    return os.path.join(folder, "src")


def run(src: str, env: str, metric: str, steps: int, seed: int, threads: int, prefix: list[str]) -> dict:
    """One training run in a fresh process importing sparring from ``src`` (its command after ``prefix``)."""
    environ = dict(os.environ, PYTHONPATH=src)
    command = [*prefix, sys.executable, "-c", CHILD, env, metric, str(steps), str(seed), str(threads)]
    out = subprocess.run(command, env=environ, capture_output=True, text=True, cwd=tempfile.gettempdir())
    if out.returncode:
        raise SystemExit(f"training {env} seed {seed} with sparring from {src} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Train, score and test."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", default=["squared:success:524288", "duel:win:2097152"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="trainings at once, each in its own process")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of every run")
    parser.add_argument("--prefix", default="", help="a command each run goes through, e.g. onecore")
    parser.add_argument("--before", default="2b49e90")
    parser.add_argument("--after", default="HEAD")
    args = parser.parse_args()
    srcs = {"before": exported(args.before, None), "after": exported(args.before, args.after)}
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    jobs = []
    for spec in args.runs:
        env, metric, steps = spec.split(":")
        jobs += [(env, metric, int(steps), arm, s) for s in seeds for arm in srcs]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(
            pool.map(lambda j: run(srcs[j[3]], j[0], j[1], j[2], j[4], args.threads, args.prefix.split()), jobs)
        )
    scores: dict = {}
    for (env, metric, steps, arm, _), r in zip(jobs, results):
        scores.setdefault((env, metric, steps), {}).setdefault(arm, []).append(r["score"])
    print(f"before {args.before}, after {args.before} + issue 37's files of {args.after}; threads {args.threads}")
    for (env, metric, steps), arms in scores.items():
        b, a = arms["before"], arms["after"]
        u = mannwhitneyu(a, b, alternative="two-sided")
        t = ttest_ind(a, b, equal_var=False)
        print(f"{env} {metric}, last quarter of {steps} agent-steps, seeds {list(seeds)}:")
        print(f"  before {[round(x, 3) for x in b]} mean {statistics.mean(b):.3f}")
        print(f"  after  {[round(x, 3) for x in a]} mean {statistics.mean(a):.3f}")
        print(
            f"  after - before {statistics.mean(a) - statistics.mean(b):+.3f}; Mann-Whitney U {u.statistic:.0f}, "
            f"p = {u.pvalue:.3f}; Welch t {t.statistic:.2f}, p = {t.pvalue:.3f}"
        )


if __name__ == "__main__":
    main()
