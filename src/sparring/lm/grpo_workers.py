"""``grpo --workers K``: an iteration's groups played by K Ray workers, the update in the driver.

:class:`PlayerPool` starts K :class:`~sparring.lm.grpo_worker.PlayWorker` actors, each of which loads the base
model itself (from the run's model folder or GGUF file; in a LoRA run with fresh adapters of its rank). Each
iteration the driver draws the start states as it does in one process, restores each ``group`` times, and then:

- sends every worker the trainable weights of each learner's policy (once, through Ray's object store): the LoRA
  adapters in a LoRA run; with full fine-tuning (``lora`` 0) the whole model, every iteration;
- gives each worker a share of the copies (:func:`shares`): whole groups while there are at least as many groups
  as workers, else the copies split evenly, a group's copies then spanning workers (each copy is restored from its
  group's start state, so a group needs no one worker);
- takes back each worker's :class:`~sparring.lm.learners.LearnersRollout` and joins them into the one the update
  reads (:func:`merge`: the turns' env indices counted over the whole iteration).

Worker w samples from its own generator, seeded by :func:`worker_seed` (the run seed, the iteration and w), so a
run is the same on every rerun with the same worker count; the driver's generator (seeded by the run seed and the
iteration) still draws the start states and the update's order. ``--workers 1`` (the default) plays in the driver
as before, with the same results. The workers hold no state between iterations beyond the weights sent, so a run
resumes on any worker count.

The update stays in the driver, where the optimizer, the KL reference and the saved run are exactly as in one
process; so K workers shorten only an iteration's play. Each metrics row's ``play_s`` and ``update_s`` say which
share that is (with K > 1 the play's includes the broadcast and the transfers). On the tests' tiny town model
(``benchmarks/grpo_workers.py --workers 1,2,1,2 --iterations 3 --temperature 100``: 16 copies of a whole day,
about 700 turns, on the shared 2-core build machine) the play took 2.1-3.3 s in one process and 1.6-3.6 s on two
workers after their first iteration (medians 2.7 and 2.25 s: a model this small is bound by each pass's overhead,
which a worker's half of the copies does not halve), and the update nothing where no group's copies parted (no
turn to train) but 3-11 s where every turn trained. There the update is the larger share, and the next step would
be data-parallel updates, as ``train.vec ray`` does for PPO.
"""

from __future__ import annotations

import dataclasses
import time
import uuid

import numpy as np

from sparring.kit.remote import gather
from sparring.lm.grpo_worker import trainable_weights
from sparring.lm.learners import LearnersRollout

START_TIMEOUT_S = 300.0  # workers that cannot be placed (too few CPUs free) would otherwise wait for ever


def check_workers(cfg) -> None:
    """One line naming a setting that ``cfg.workers`` > 1 (of a :class:`~sparring.lm.grpo.GRPOConfig`) cannot
    run with, and what would: more workers than copies, no Ray, or too few CPUs in the connected Ray cluster."""
    copies = cfg.groups * cfg.group
    if cfg.workers > copies:
        raise ValueError(
            f"--workers {cfg.workers}: more workers than an iteration's copies (--groups {cfg.groups} x --group "
            f"{cfg.group} = {copies}); use --workers {copies} or fewer"
        )
    try:
        import ray
    except ImportError:
        raise ValueError(
            f"--workers {cfg.workers} plays on Ray, which is not installed: pip install 'sparring[ray]', "
            "or use --workers 1"
        ) from None
    if not ray.is_initialized():
        raise ValueError(
            f"--workers {cfg.workers} plays on Ray: connect first with "
            f"sparring.train.ray_cluster.init_ray(address, {cfg.workers}) (the sparring grpo command does)"
        )
    threads, cpus = cfg.threads or 1, ray.cluster_resources().get("CPU", 0)
    if cfg.workers * threads > cpus:
        raise ValueError(
            f"--workers {cfg.workers} x --threads {threads} needs {cfg.workers * threads} CPUs; the Ray cluster "
            f"has {cpus:g}: use fewer --workers (or --threads)"
        )


def shares(groups: int, group: int, workers: int) -> list[int]:
    """Copy bounds of the workers' shares (worker w plays copies ``[b[w], b[w + 1])``): whole groups, as even as
    they go, when ``groups`` >= ``workers``; else the copies split as evenly."""
    if groups >= workers:
        return [group * (groups * w // workers) for w in range(workers + 1)]
    copies = groups * group
    return [copies * w // workers for w in range(workers + 1)]


def worker_seed(seed: int, iteration: int, worker: int) -> np.random.SeedSequence:
    """Worker ``worker``'s sampling seed at ``iteration``: child ``worker`` of the driver's seed sequence
    ``(seed, iteration)``, distinct from it and from every other worker's and iteration's."""
    return np.random.SeedSequence([seed, iteration], spawn_key=(worker,))


def merge(parts: list[LearnersRollout], bounds: list[int], seconds: float) -> LearnersRollout:
    """The workers' rollouts (worker w's copies starting at ``bounds[w]``) as one over every copy, played in
    ``seconds``: turns per learner in worker order with their env indices shifted to the whole iteration's,
    per-copy arrays stacked, counts summed."""
    turns = [
        [dataclasses.replace(t, env=t.env + lo) for part, lo in zip(parts, bounds) for t in part.turns[j]]
        for j in range(len(parts[0].turns))
    ]
    stacked = [np.concatenate([getattr(p, key) for p in parts]) for key in ("success", "returns", "progress")]
    summed = [sum(getattr(p, key) for p in parts) for key in ("tokens", "unfit", "decisions", "kept")]
    return LearnersRollout(turns, *stacked, *summed, seconds)


class PlayerPool:
    """K play workers for a run over ``base`` (see the module's docstring); a context manager that stops them.

    ``cfg`` is the run's :class:`~sparring.lm.grpo.GRPOConfig` (``workers``, ``lora``, ``dtype``,
    ``chat_template``, ``threads``: each worker's torch threads and Ray CPUs, 1 when unset, and the play knobs);
    ``prompt`` the run's; :func:`check_workers` has passed (:func:`~sparring.lm.grpo.grpo` checks it first)."""

    def __init__(self, base: str, characters: list[int], env: str, env_config: dict, cfg, prompt: str):
        import ray

        from sparring.lm.grpo_worker import PlayWorker

        self.cfg, threads, tag = cfg, cfg.threads or 1, uuid.uuid4().hex[:8]
        actor = ray.remote(PlayWorker)
        self.workers = [
            actor.options(name=f"sparring-grpo-{env}-{tag}-worker{w}", num_cpus=threads).remote(  # `ray list actors`
                base, characters, env, env_config, cfg.lora, cfg.dtype, cfg.chat_template, prompt, threads
            )
            for w in range(cfg.workers)
        ]
        self.bounds = shares(cfg.groups, cfg.group, cfg.workers)
        try:  # each answers once its models are loaded
            self._get([w.node.remote() for w in self.workers], START_TIMEOUT_S)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> PlayerPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _get(self, refs: list, timeout: float | None = None) -> list:
        """The workers' results (:func:`sparring.kit.remote.gather`: a dead worker is :class:`WorkerLost`)."""
        return gather(refs, "grpo play worker", timeout)

    def broadcast(self, policies: list) -> None:
        """Send every worker the trainable weights of each learner's policy (one copy in Ray's object store)."""
        import ray

        sent = ray.put([trainable_weights(p) for p in policies])
        self._get([w.load.remote(sent) for w in self.workers])

    def worker_weights(self, worker: int) -> list[dict]:
        """The trainable weights worker ``worker`` holds, per learner."""
        return self._get([self.workers[worker].weights.remote()])[0]

    def play(self, copies: np.ndarray, iteration: int, policies: list) -> LearnersRollout:
        """Broadcast ``policies`` and play the records ``copies`` (an iteration's restored copies, group by group)
        on the workers, each its share; the rollout of every copy, its seconds the whole step's."""
        started, cfg = time.perf_counter(), self.cfg
        self.broadcast(policies)
        refs = [
            worker.play.remote(
                copies[lo:hi], worker_seed(cfg.seed, iteration, w), cfg.temperature, cfg.turns, cfg.batch_size
            )
            for w, (worker, lo, hi) in enumerate(zip(self.workers, self.bounds, self.bounds[1:]))
        ]
        parts = self._get(refs)
        return merge(parts, self.bounds, time.perf_counter() - started)

    def close(self) -> None:
        """Stop the workers (idempotent; the Ray instance stays up)."""
        import ray

        for worker in self.workers:
            ray.kill(worker)
        self.workers = []
