"""Heap allocations on the step path, counted by the Numba runtime, and the doctor's check that warns about them.

Every array a kernel creates (``np.empty``, ``np.zeros``, ``a.copy()``, an array expression such as ``a + b``, a
list) is a ``malloc`` and a ``free`` per env-step: in a loop over thousands of envs that costs more than the rules
themselves. The Numba runtime counts its allocations when its statistics are on (``NUMBA_NRT_STATS=1``, or switched on
here for the measurement only). Each call of a compiled function also allocates a small wrapper per array argument,
the same for any ``num_envs``, so the count per env comes from two batches played alike: one env, and ``num_envs``
envs whose first is that same env (env ``i`` is seeded from (seed, i) and gets the same actions), whose difference is
what the other envs allocated. A list or dict counts when it is made; its growth (a ``realloc`` outside the runtime's
count) does not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import os

import numpy as np
from numba.core.runtime import _nrt_python, rtsys

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.play import allowed_actions, uniform_table
from sparring.kit.check.report import Report

CHECK = "allocations"
REMEDY = (
    "preallocate scratch arrays as fields of the record (state = {'scratch': ('f8', (3,))}) and write into them "
    "each step, or keep fixed-size state fields and scalars or tuples instead of new arrays"
)


@contextlib.contextmanager
def numba_allocations():
    """Count the Numba runtime's allocations inside the block: yields a function returning the running count.

    Switches the runtime's statistics on for the block if they were off (and off again after)."""
    was_on = _nrt_python.memsys_stats_enabled()
    if not was_on:
        _nrt_python.memsys_enable_stats()
    try:
        yield lambda: rtsys.get_allocation_stats().alloc
    finally:
        if not was_on:
            _nrt_python.memsys_disable_stats()


@dataclasses.dataclass
class Allocations:
    """Numba allocations of one env's compiled paths: per env (what the env's kernels allocate) and per call (the
    argument wrappers, the same for any ``num_envs``)."""

    step_per_env: float  # per env-step of ``BatchedEnv.step``: step, observe, and the auto-resets at episode ends
    step_per_call: float
    reset_per_env: float  # per env of ``reset_envs``: reset, then observe
    reset_per_call: float
    observe_per_env: float  # per env of ``restore``: observe
    observe_per_call: float
    episodes_per_env_step: float  # episode ends (auto-resets) per env-step in the measured play
    num_envs: int
    steps: int

    def kernels(self) -> dict[str, float]:
        """Per env-step of stepping, the share of each kernel: observe runs once per env-step, reset once per episode
        end, step is the rest (estimates, averaged over the measured play)."""
        reset_alone = self.reset_per_env - self.observe_per_env
        return {
            "step": self.step_per_env - self.observe_per_env - self.episodes_per_env_step * reset_alone,
            "observe": self.observe_per_env,
            "reset": self.episodes_per_env_step * reset_alone,
        }


def count_allocations(cls, config: dict, seed: int = 0, num_envs: int = 64, steps: int = 200) -> Allocations:
    """Count the Numba allocations of ``cls``'s step, reset and observe paths under random play that respects masks."""
    if num_envs < 2 or steps < 1:
        raise ValueError(f"count_allocations needs num_envs >= 2 and steps >= 1, got {num_envs} and {steps}")
    one = BatchedEnv(cls, num_envs=1, seed=seed, **config)
    many = BatchedEnv(cls, num_envs=num_envs, seed=seed, **config)
    u = uniform_table(seed, steps, many.rows, len(many.heads.sizes))
    with numba_allocations() as count:
        alloc_one = alloc_many = ends_one = ends_many = 0
        for t in range(steps):
            acts = allowed_actions(many.mask, many.heads.sizes, u[t])
            before = count()
            info_one = one.step(acts[: one.rows])[-1]
            middle = count()
            info_many = many.step(acts)[-1]
            alloc_one += middle - before
            alloc_many += count() - middle
            ends_one += info_one.get("episodes", 0)
            ends_many += info_many.get("episodes", 0)
        every = np.arange(num_envs)
        reset = _per_env_and_call(count, many.reset_envs, every)
        snap = many.snapshot()
        observe = _per_env_and_call(count, lambda idx: many.restore(idx, snap[idx]), every)
    step_per_env = (alloc_many - alloc_one) / ((num_envs - 1) * steps)
    return Allocations(
        step_per_env=step_per_env,
        step_per_call=alloc_one / steps - step_per_env,
        reset_per_env=reset[0],
        reset_per_call=reset[1],
        observe_per_env=observe[0],
        observe_per_call=observe[1],
        episodes_per_env_step=(ends_many - ends_one) / ((num_envs - 1) * steps),
        num_envs=num_envs,
        steps=steps,
    )


def _per_env_and_call(count, call, every: np.ndarray, repeats: int = 20) -> tuple[float, float]:
    """(per env, per call) allocations of ``call(indices)``: ``repeats`` calls on ``every`` env against calls on
    none."""
    totals = []
    for idx in (every[:0], every):
        before = count()
        for _ in range(repeats):
            call(idx)
        totals.append(count() - before)
    return (totals[1] - totals[0]) / (len(every) * repeats), totals[0] / repeats


def kernel_path(fn) -> str:
    """``module.name (file:line)`` of a kernel (a Numba dispatcher or a plain function)."""
    py = getattr(fn, "py_func", fn)
    try:
        where = f" ({os.path.basename(inspect.getsourcefile(py))}:{inspect.getsourcelines(py)[1]})"
    except (TypeError, OSError):
        where = ""
    return f"{py.__module__}.{py.__qualname__}{where}"


def check_allocations(report: Report, cls, config: dict, seed: int, num_envs: int = 64, steps: int = 200) -> None:
    """Warn when stepping allocates (with the arrays per env-step of each kernel and the remedy), or when reset does
    (stepping's auto-resets run it once per episode end, which the measured play may not reach); pass otherwise."""
    found = count_allocations(cls, config, seed, num_envs, steps)
    play = f"{num_envs} envs, {steps} random steps"
    problems = []
    if found.step_per_env > 0:
        kernels = {"step": cls.step, "observe": cls.observe, "reset": cls.reset}
        shares = [
            f"{kernel_path(kernels[name])} {share:.2f}" for name, share in found.kernels().items() if share >= 0.005
        ]
        problems.append(
            f"stepping allocates {found.step_per_env:.2f} arrays per env-step, each a malloc and a free "
            f"(by kernel: {', '.join(shares) or 'not attributable'})"
        )
    reset_alone = found.reset_per_env - found.observe_per_env
    if reset_alone > 0:
        problems.append(
            f"{kernel_path(cls.reset)} allocates {reset_alone:.2f} arrays per reset, which stepping's auto-reset runs "
            "at each episode end"
        )
    if problems:
        report.add(CHECK, "warn", f"{'; '.join(problems)}; {REMEDY}", where=play)
    else:
        report.add(CHECK, "pass", f"step, observe and reset allocate no arrays ({play})")
