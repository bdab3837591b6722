"""``sparring bench ENV --compare A B``: env-step throughput of two setups, interleaved, with a verdict.

A setup is comma-separated ``KEY=VALUE`` pairs: ``num_envs`` (default 1024), ``threads`` (threads stepping
the batch, default 1) and the env's config keys, e.g. ``num_envs=256`` vs ``num_envs=4096``, or ``threads=1``
vs ``threads=2``. Both are timed in turns (A B A B ...), so a slow drift of the
machine hits both; the verdict tests B's rates against A's and gives B's median rate over A's.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from sparring.kit import registry
from sparring.kit.config import make_config
from sparring.kit.progress import silent
from sparring.sweep.stats import NO_DIFFERENCE, TESTS, bootstrap_ci, two_sample_p
from sparring.kit.batch import BatchedEnv

SETUP_KEYS = ("num_envs", "threads")


@dataclasses.dataclass
class Setup:
    """A setup's batch size, threads and env config."""

    text: str
    num_envs: int = 1024
    threads: int = 1
    config: dict = dataclasses.field(default_factory=dict)


def parse_setup(text: str, env_cls) -> Setup:
    """``num_envs=256,threads=2,size=15`` -> Setup, validated (env keys by the env's config)."""
    setup = Setup(text)
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise ValueError(
                f"setup {text!r}: expected KEY=VALUE pairs separated by commas, e.g. num_envs=256,threads=2"
            )
        if key in SETUP_KEYS:
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"setup {text!r}: {key} must be a positive integer, got {value!r}")
            setattr(setup, key, int(value))
        else:
            setup.config[key] = value
    try:
        make_config(env_cls, setup.config)
    except ValueError as exc:
        raise ValueError(f"setup {text!r}: {exc} (or one of {', '.join(SETUP_KEYS)})") from None
    return setup


class _Timer:
    """Steps one setup's env with fixed random actions; ``rate()`` times a block of about ``seconds``."""

    def __init__(self, env_cls, setup: Setup, seconds: float, seed: int = 0):
        self.env = BatchedEnv(env_cls, setup.num_envs, seed, num_threads=setup.threads, **setup.config)
        rng = np.random.default_rng(seed)
        sizes = self.env.heads.sizes
        self.actions = [rng.integers(0, sizes, (self.env.rows, len(sizes))).astype(np.int32) for _ in range(16)]
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < min(0.2, seconds):  # warm up and calibrate the block length
            self.env.step(self.actions[calls % 16])
            calls += 1
        self.block = max(4, int(calls * seconds / (time.perf_counter() - start)))

    def rate(self) -> float:
        """Agent-steps per second over one block."""
        start = time.perf_counter()
        for k in range(self.block):
            self.env.step(self.actions[k % 16])
        return self.env.rows * self.block / (time.perf_counter() - start)


def compare(
    env_name: str,
    a: str,
    b: str,
    repeats: int = 10,
    seconds: float = 0.3,
    test: str = "mannwhitney",
    alpha: float = 0.05,
    progress=None,
) -> dict:
    """Interleaved throughput of setups ``a`` and ``b``: rates, medians, B/A ratio with a 95% interval, verdict.

    ``progress`` (a :class:`~sparring.kit.progress.Progress`) counts the turns, with the medians so far."""
    progress = progress or silent()
    env_cls = registry.get(env_name)
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; valid: {', '.join(TESTS)}")
    if repeats < 3 or seconds <= 0:
        raise ValueError(f"--repeats must be >= 3 and --seconds > 0 for a comparison, got {repeats}, {seconds}")
    setups = parse_setup(a, env_cls), parse_setup(b, env_cls)
    progress.status("building both setups")
    timers = [_Timer(env_cls, setup, seconds) for setup in setups]
    rates = [[], []]
    progress.status("timing A and B in turns")
    progress.start(repeats, unit="turn")
    for turn in range(repeats):
        for k, timer in enumerate(timers):
            rates[k].append(timer.rate())
        progress.update(turn + 1, {"median_a": float(np.median(rates[0])), "median_b": float(np.median(rates[1]))})
    ra, rb = (np.asarray(r) for r in rates)
    ratio = float(np.median(rb) / np.median(ra))
    lo, hi = bootstrap_ci(rb / ra, statistic=np.median)  # per turn B/A, so a drift shared by both cancels
    p = two_sample_p(rb, ra, test)
    words = NO_DIFFERENCE if p >= alpha else f"B is {'faster' if ratio > 1 else 'slower'} than A (p={p:.2g})"
    return {
        "env": env_name,
        "a": a,
        "b": b,
        "test": test,
        "repeats": repeats,
        "rates_a": ra.tolist(),
        "rates_b": rb.tolist(),
        "median_a": float(np.median(ra)),
        "median_b": float(np.median(rb)),
        "ratio": ratio,
        "ratio_ci95": [lo, hi],
        "p_value": p,
        "verdict": words,
    }


def format_compare(result: dict) -> str:
    """The comparison as text."""
    return "\n".join(
        [
            f"sparring bench {result['env']} --compare ({result['repeats']} interleaved turns each, random actions)",
            f"  A {result['a']!r}: median {result['median_a'] / 1e6:.3f} M agent-steps/s",
            f"  B {result['b']!r}: median {result['median_b'] / 1e6:.3f} M agent-steps/s",
            f"  B/A = {result['ratio']:.3f} (95% CI of the per-turn ratio [{result['ratio_ci95'][0]:.3f}, "
            f"{result['ratio_ci95'][1]:.3f}]), {result['test']} p = {result['p_value']:.3g}: {result['verdict']}",
        ]
    )
