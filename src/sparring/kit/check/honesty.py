"""Mask honesty: an action the mask forbids must act exactly like the head's first allowed value."""

from __future__ import annotations

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.check.play import allowed_actions, uniform_table
from sparring.kit.check.report import Report, first_difference


def _outcome(scratch: BatchedEnv, record, acts) -> tuple[bytes, bytes]:
    scratch.restore(0, record)
    scratch.step(acts)
    return scratch.records[0].tobytes(), scratch.rewards.tobytes()


def check_mask_honesty(
    report: Report, cls, config: dict, seed: int, steps: int = 300, num_envs: int = 8, max_probes: int = 400
) -> None:
    """Compare each forbidden value's next state with the first allowed value's, from sampled states."""
    env = BatchedEnv(cls, num_envs=num_envs, seed=seed, **config)
    scratch = BatchedEnv(cls, num_envs=1, seed=seed, autoreset=False, **config)
    sizes, offsets, agents = env.heads.sizes, env.heads.offsets, env.num_agents
    u = uniform_table(seed + 3, steps, env.rows, len(sizes))
    probes = 0
    for t in range(steps):
        acts = allowed_actions(env.mask, sizes, u[t])
        for i in range(num_envs):
            rows = slice(i * agents, (i + 1) * agents)
            record, base = env.records[i].copy(), acts[rows]
            for agent in range(agents):
                row_mask = env.mask[i * agents + agent]
                for h, (size, off) in enumerate(zip(sizes, offsets)):
                    allowed = row_mask[off : off + size]
                    if allowed.all() or not allowed.any() or probes >= max_probes:
                        continue
                    fallback = int(np.argmax(allowed))
                    want = base.copy()
                    want[agent, h] = fallback
                    expect = _outcome(scratch, record, want)
                    for v in np.flatnonzero(~allowed):
                        probes += 1
                        tried = want.copy()
                        tried[agent, h] = v
                        got = _outcome(scratch, record, tried)
                        if got != expect:
                            field = (
                                first_difference(
                                    np.frombuffer(got[0], record.dtype)[0], np.frombuffer(expect[0], record.dtype)[0]
                                )
                                or "reward"
                            )
                            report.add(
                                "mask honesty",
                                "fail",
                                f"head {env.heads.names[h]!r} value {v} is masked but changes {field!r} "
                                f"unlike the first allowed value {fallback}",
                                f"step {t}, env {i}, agent {agent}, tick {int(record['tick'])}",
                            )
                            return
        env.step(acts)
    if probes == 0:
        report.add("mask honesty", "pass", f"no action was masked in {steps} random steps")
    else:
        report.add("mask honesty", "pass", f"{probes} masked actions behaved like the first allowed value")
