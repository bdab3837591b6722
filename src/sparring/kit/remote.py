"""Waiting on a group of Ray workers: the first failure ends the wait, and says itself in one line.

Both of the package's worker groups use it: data-parallel PPO (:mod:`sparring.train.parallel`) and GRPO's play
workers (:mod:`sparring.lm.grpo_workers`). Ray is imported only when a wait begins.
"""

from __future__ import annotations


class WorkerLost(RuntimeError):
    """A worker of a group died (its process or its node is gone)."""

    one_line = True  # the CLI says it in one line: it names the worker and what happened


def gather(refs: list, who: str, timeout: float | None = None) -> list:
    """The results of ``refs`` (one call per worker, in worker order), failing as soon as any fails.

    A dead worker is :class:`WorkerLost` naming ``who`` and its index (the others may be waiting for it in a
    collective, so the wait does not go on); a worker's own error is raised as itself (the ValueError that names
    a setting); no answer within ``timeout`` seconds is a RuntimeError saying what the cluster has free.
    """
    import ray

    pending, index = list(refs), {ref: i for i, ref in enumerate(refs)}
    results = [None] * len(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1, timeout=timeout)
        if not ready:
            raise RuntimeError(
                f"{len(pending)} of {len(refs)} {who}s did not answer within {timeout:g} s; the Ray cluster has "
                f"{ray.available_resources()} free: use fewer --workers (or --threads)"
            )
        try:
            results[index[ready[0]]] = ray.get(ready[0])
        except ray.exceptions.RayActorError as exc:
            raise WorkerLost(f"{who} {index[ready[0]]} died: {str(exc).splitlines()[0]}") from None
        except ray.exceptions.RayTaskError as exc:
            raise (exc.cause if isinstance(exc.cause, Exception) else exc) from None
    return results
