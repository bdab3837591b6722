"""Checks under random play: observations, masks, invariants, config, determinism, snapshots."""

from __future__ import annotations

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.play import allowed_actions, uniform_table
from sparring.kit.check.report import Report, first_difference


def _where(env: BatchedEnv, t: int, row: int, extra: str = "") -> str:
    i, agent = divmod(int(row), env.num_agents)
    return f"step {t}, env {i}, agent {agent}, tick {int(env.records['tick'][i])}{extra}"


def _obs_problem(env: BatchedEnv, t: int) -> tuple[str, str] | None:
    spec, obs = env.obs_spec, env.obs
    if np.issubdtype(obs.dtype, np.floating):
        bad = ~np.isfinite(obs)
        if bad.any():
            row, k = np.argwhere(bad)[0]
            return f"observation value {obs[row, k]} is not finite", _where(env, t, row, f", obs[{k}]")
    bad = (obs < spec.low) | (obs > spec.high)
    if bad.any():
        row, k = np.argwhere(bad)[0]
        return (
            f"observation value {obs[row, k]} outside declared bounds [{spec.low}, {spec.high}]",
            _where(env, t, row, f", obs[{k}]"),
        )
    return None


def _empty_head(env: BatchedEnv, t: int) -> tuple[str, str] | None:
    start = 0
    for name, size in zip(env.heads.names, env.heads.sizes):
        empty = ~env.mask[:, start : start + size].any(1)
        if empty.any():
            row = int(np.argmax(empty))
            return f"the mask forbids every value of head {name!r}", _where(env, t, row)
        start += size
    return None


def _invariant_problem(env: BatchedEnv, t: int) -> tuple[str, str] | None:
    for i in range(env.num_envs):
        broken = env.env_cls.invariants(env.records[i], env.config)
        if broken:
            return "; ".join(broken), f"step {t}, env {i}, tick {int(env.records['tick'][i])}"
    return None


def check_random_play(
    report: Report, cls, config: dict, steps: int, seed: int, num_envs: int = 64, invariant_every: int = 10
) -> None:
    """Observation shape/dtype/finiteness/bounds, non-empty masks, invariants, untouched config."""
    env = BatchedEnv(cls, num_envs=num_envs, seed=seed, **config)
    u = uniform_table(seed, steps, env.rows, len(env.heads.sizes))
    cfg_before = env.cfg.copy()
    expect = (env.rows, env.obs_spec.size)
    if env.obs.shape != expect or env.obs.dtype != env.obs_spec.dtype:
        report.add(
            "observations", "fail", f"buffer {env.obs.shape} {env.obs.dtype}, declared {expect} {env.obs_spec.dtype}"
        )
    problems = {"observations": None, "masks": None, "invariants": None, "hidden state": None}
    for t in range(steps + 1):
        if problems["observations"] is None:
            problems["observations"] = _obs_problem(env, t)
        if problems["masks"] is None:
            problems["masks"] = _empty_head(env, t)
        if problems["invariants"] is None and t % invariant_every == 0:
            problems["invariants"] = _invariant_problem(env, t)
        if problems["hidden state"] is None and env.cfg.tobytes() != cfg_before.tobytes():
            field = first_difference(cfg_before[0], env.cfg[0])
            problems["hidden state"] = (
                f"kernels wrote to the config record (field {field!r}): state shared by "
                "all envs must live in the record",
                f"step {t}",
            )
        if t < steps:
            env.step(allowed_actions(env.mask, env.heads.sizes, u[t]))
    passed = {
        "observations": f"shape, dtype, finite and within [{env.obs_spec.low}, {env.obs_spec.high}]",
        "masks": "every head always allows at least one value",
        "invariants": "no declared invariant broken",
        "hidden state": "kernels never wrote to the config record",
    }
    for name, problem in problems.items():
        if problem:
            report.add(name, "fail", problem[0], problem[1])
        else:
            report.add(name, "pass", f"{passed[name]} over {steps} random steps x {num_envs} envs")


def check_determinism(
    report: Report, cls, config: dict, steps: int, seed: int, wide: int = 64, threads: int = 3
) -> None:
    """Same seed and actions give byte-identical records: N=1 vs N=wide, and ``wide`` envs stepped by one thread vs
    by ``threads`` threads (which also runs the batch twice, so a kernel drawing from ``np.random`` diverges)."""
    one = BatchedEnv(cls, num_envs=1, seed=seed, **config)
    a = BatchedEnv(cls, num_envs=wide, seed=seed, **config)
    b = BatchedEnv(cls, num_envs=wide, seed=seed, num_threads=threads, **config)
    u = uniform_table(seed + 1, steps, a.rows, len(a.heads.sizes))
    agents = one.num_agents
    for t in range(steps + 1):
        if one.records[0].tobytes() != a.records[0].tobytes():
            field = first_difference(one.records[0], a.records[0])
            report.add(
                "determinism",
                "fail",
                f"env 0 alone and env 0 in a batch of {wide} diverge: field {field!r} "
                "(np.random in a kernel, or state kept outside the record?)",
                f"step {t}, env 0",
            )
            return
        if a.records.tobytes() != b.records.tobytes():
            i = int(np.argmax([x.tobytes() != y.tobytes() for x, y in zip(a.records, b.records)]))
            field = first_difference(a.records[i], b.records[i])
            report.add(
                "determinism",
                "fail",
                f"the same batch on 1 and on {b.num_threads} threads diverges: field {field!r} (np.random in a "
                "kernel, state shared between envs, or a kernel writing outside its own env?)",
                f"step {t}, env {i}",
            )
            return
        if t < steps:
            acts = allowed_actions(a.mask, a.heads.sizes, u[t])
            a.step(acts)
            b.step(allowed_actions(b.mask, b.heads.sizes, u[t]))
            one.step(allowed_actions(one.mask, one.heads.sizes, u[t, :agents]))
    report.add(
        "determinism",
        "pass",
        f"byte-identical records over {steps} steps (N=1 vs N={wide}, and 1 vs {b.num_threads} threads)",
    )


def check_snapshots(
    report: Report, cls, config: dict, seed: int, warmup: int = 50, span: int = 200, num_envs: int = 16
) -> None:
    """snapshot -> continue -> restore -> replay gives identical records; clone copies exactly."""
    env = BatchedEnv(cls, num_envs=num_envs, seed=seed, **config)
    u = uniform_table(seed + 2, warmup + 2 * span, env.rows, len(env.heads.sizes))
    for t in range(warmup):
        env.step(allowed_actions(env.mask, env.heads.sizes, u[t]))
    snap, obs0, mask0 = env.snapshot(), env.obs.copy(), env.mask.copy()
    acts, seen = [], []
    for t in range(span):
        acts.append(allowed_actions(env.mask, env.heads.sizes, u[warmup + t]))
        env.step(acts[-1])
        seen.append(env.records.copy())
    env.restore(None, snap)
    if not (np.array_equal(env.obs, obs0) and np.array_equal(env.mask, mask0)):
        report.add(
            "snapshots",
            "fail",
            "restore did not give back the observations and masks of the snapshot",
            f"step {warmup}",
        )
        return
    for t in range(span):
        env.step(acts[t])
        if env.records.tobytes() != seen[t].tobytes():
            i = int(np.argmax(env.records != seen[t]))
            report.add(
                "snapshots",
                "fail",
                f"replay after restore diverges: field {first_difference(env.records[i], seen[t][i])!r}",
                f"step {warmup + t}, env {i}",
            )
            return
    env.clone(0, 1)
    rows = slice(0, 2 * env.num_agents)
    for t in range(span):
        step_acts = allowed_actions(env.mask, env.heads.sizes, u[warmup + span + t])
        step_acts[env.num_agents : 2 * env.num_agents] = step_acts[: env.num_agents]
        env.step(step_acts)
        if env.records[0].tobytes() != env.records[1].tobytes() or not np.array_equal(
            env.obs[rows][: env.num_agents], env.obs[rows][env.num_agents :]
        ):
            report.add(
                "snapshots",
                "fail",
                f"a clone diverges from its source: field {first_difference(env.records[0], env.records[1])!r}",
                f"step {t} after clone(0, 1)",
            )
            return
    report.add("snapshots", "pass", f"restore + replay of {span} steps and clone(0, 1) are exact")
