"""Seeded fuzz of the trust boundary, run as a script so that a crash kills only its own process.

``python -m tests.kit.trust_fuzz ENV CASES SEED``: states reached in play have random fields set to
random values INSIDE their declared bounds (extremes included, invariants not required), then are
restored, observed, stepped with random legal actions and asked for every scripted policy's actions.
The declared bounds alone must keep every kernel inside its arrays: the script must end with exit 0
(a crash would be a negative exit code, a hang a timeout). Prints one summary line.
"""

from __future__ import annotations

import sys

import numpy as np

from sparring.kit import registry
from sparring.kit.batch import BatchedEnv
from sparring.kit.check.play import allowed_actions
from sparring.kit.trust import field_bounds, validate_states


def reached_states(cls, seed: int, steps: int = 300, num_envs: int = 16, **config) -> np.ndarray:
    """States of random play, final ones included (no auto-reset: an ended env is kept, then reset)."""
    env = BatchedEnv(cls, num_envs=num_envs, seed=seed, autoreset=False, **config)
    rng = np.random.default_rng(seed)
    kept = []
    for t in range(steps):
        env.step(allowed_actions(env.mask, env.heads.sizes, rng.random((env.rows, len(env.heads.sizes)))))
        if t % 10 == 0 or env.done.any():
            kept.append(env.snapshot())
        if env.done.any():
            env.reset_envs(np.flatnonzero(env.done))
    return np.concatenate(kept)


def mutate(cls, config, states: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Copies of ``states`` with one to four values each set to a random value within the field's bounds."""
    bounds = field_bounds(cls, config)
    names = sorted(bounds)
    out = states[rng.integers(0, len(states), len(states))].copy()
    for rec in out:
        for _ in range(rng.integers(1, 5)):
            name = names[rng.integers(len(names))]
            low, high = bounds[name]
            flat = rec[name].reshape(-1) if rec[name].ndim else None
            k = rng.integers(low.size)
            lo, hi = low.reshape(-1)[k], high.reshape(-1)[k]
            hi = min(hi, lo + 2**31)  # an unbounded top: any value up to far beyond what play reaches
            kind = rng.integers(3)
            value = lo if kind == 0 else hi if kind == 1 else (lo + (hi - lo) * rng.random())
            if rec.dtype.fields[name][0].base.kind in "iu":
                value = np.floor(value)
            if flat is None:
                rec[name] = value
            else:
                flat[k] = value
                rec[name] = flat.reshape(rec[name].shape)
    return out


def main(name: str, cases: int, seed: int) -> int:
    cls = registry.get(name)
    config = {"start_wave": 25, "start_spread": 5} if name == "gauntlet" and seed % 2 else {}
    env = BatchedEnv(cls, num_envs=8, seed=seed, **config)
    states = reached_states(cls, seed, **config)
    rng = np.random.default_rng(seed)
    done = 0
    while done < cases:
        batch = mutate(cls, env.config, states, rng)[:8]
        validate_states(cls, env.config, batch, "fuzz", invariants=False)  # in range by construction
        env.restore(None, batch)
        for policy in cls.scripted:
            env.scripted_actions(policy)
        for _ in range(20):
            env.step(allowed_actions(env.mask, env.heads.sizes, rng.random((env.rows, len(env.heads.sizes)))))
        done += len(batch)
    print(
        f"{name}: {done} states with random in-bounds values restored, observed, stepped 20 ticks and "
        f"asked for {len(cls.scripted)} scripted policies' actions"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
