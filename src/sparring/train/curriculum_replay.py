"""Prioritized restarts from the learner's own states: ``train.curriculum replay:N``.

Ended episodes restart where the learner's value is most wrong, as prioritized replay does for
transitions (Schaul et al., 2016), here for whole start states (PufferLib's ``curriculum.cu`` keeps
such a state set on GPU; this one works for every env and backend, by the kit's snapshot and restore):

- every ``curriculum_every`` ticks of a rollout (and at its first tick) the hook snapshots every env;
  a snapshot of an env that has just started a fresh episode is dropped (restoring it would be a
  true start);
- after the rollout each snapshot is scored by the mean |GAE advantage| of the segment that followed
  it in its env (up to ``curriculum_every`` ticks, cut at the episode's end; the mean over the env's
  trained rows), under the values the rollout was collected with, so the same advantages PPO trains on;
- the ``N`` highest-scoring states are kept (a new state displaces the lowest kept one it beats);
- at each rollout's end every ended env keeps its true start with probability ``curriculum_true``;
  the others are restored to a kept state drawn with probability proportional to its score (each
  env keeps its own generator, so restarts from one state see other dice; the return so far is zeroed
  and recurrent memory starts from zeros, as a fresh episode's does). A drawn state's score is then
  multiplied by ``curriculum_fade`` (per draw), so a state fades as it is practised, while the
  segment played from it is scored afresh and kept like any other snapshot.

Unlike the group curriculum (:mod:`sparring.train.curriculum`) it needs no start groups and no
source files. With ``--archive`` the archive is offered every end first, as with the group curriculum.
Metrics per update: ``curriculum/replay/kept`` (states held), ``curriculum/replay/score_kept`` (their
mean score), ``curriculum/replay/score_new`` (the mean score of the last rollout's snapshots, the level
a kept state is compared with), ``curriculum/replay/score_drawn`` (the mean score of the states drawn at
the last rollout's end, before fading), ``curriculum/starts`` and ``curriculum/starts_total``.
"""

from __future__ import annotations

import os

import numpy as np

from sparring.explore.restarts import rows_per_env
from sparring.kit.files import DamagedFile, reading
from sparring.kit.npz_file import read_npz, write_npz
from sparring.kit.trust import validate_states
from sparring.train.curriculum import restarted_memory, start_from
from sparring.train.ppo import advantages_and_returns

FILE = "curriculum_replay.npz"
FORMAT = 1
REMEDY = "resume from another checkpoint, or start the run again"


class ReplayRestarts:
    """The rollout's episode-end hook of ``replay:N`` (see the module's doc).

    Args:
      env: the trainer's env (any vec backend); rows: the rollout's trained rows (grouped by env);
      state: the policy's recurrent state of those rows (tensors [rows, hidden]; ``()``: none);
      capacity: states kept (N); horizon: ticks per rollout; every: ticks between snapshots;
      true_share: probability that a handled end keeps its true start; fade: factor on a state's score
      per draw (0..1); seed: seed of the draws; archive: Go-Explore restarts offered every end first, or None.
    """

    FILE = FILE

    def __init__(
        self,
        env,
        rows: np.ndarray,
        state: tuple,
        capacity: int,
        horizon: int,
        every: int = 32,
        true_share: float = 0.2,
        fade: float = 0.5,
        seed: int = 0,
        archive=None,
    ):
        if not 0.0 <= true_share <= 1.0:
            raise ValueError(f"train.curriculum_true must be in [0, 1], got {true_share}")
        if not 0.0 <= fade <= 1.0:
            raise ValueError(f"train.curriculum_fade must be in [0, 1], got {fade}")
        if every < 1:
            raise ValueError(f"train.curriculum_every must be at least 1 tick, got {every}")
        self.env, self.archive = env, archive
        self.capacity, self.horizon, self.every = int(capacity), int(horizon), int(every)
        self.true_share, self.fade = float(true_share), float(fade)
        self.rows_per_env = rows_per_env(np.asarray(rows), env.num_envs, env.num_agents, "curriculum")
        self.hidden = [int(s.shape[-1]) for s in state]
        self.records = np.zeros(self.capacity, env.env_cls.record_dtype)
        self.score = np.zeros(self.capacity, np.float64)
        self.size = 0
        self.rng = np.random.default_rng([int(seed), 13])
        self.tick = 0
        self.just_done = np.ones(env.num_envs, np.bool_)  # the envs whose episode ended in the last step
        # this rollout's snapshots: (tick, every env's record, which envs had just started a fresh episode)
        self.pending = [(0, env.snapshot(), self.just_done.copy())]
        self.counters = np.zeros(2, np.int64)  # starts in all, starts at the last rollout's end
        self.last = {"score_new": float("nan"), "score_drawn": float("nan")}

    # -- the hook ---------------------------------------------------------------------------
    def after_step(self, done: np.ndarray, state: tuple) -> None:
        """After an env step: snapshot every env when the next tick starts a segment."""
        if self.archive is not None:
            self.archive.after_step(done, state)
        self.tick += 1
        self.just_done = np.array(done, np.bool_)
        if self.tick < self.horizon and self.tick % self.every == 0:
            self.pending.append((self.tick, self.env.snapshot(), self.just_done))

    def restart(self, ended: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """Offer the ``ended`` envs to the archive, then restore ``1 - curriculum_true`` of the rest from kept
        states drawn by score; returns the restarted envs (sorted) and their recurrent memory in row order."""
        taken, taken_states = (ended[:0], ()) if self.archive is None else self.archive.restart(ended)
        rest = ended[~np.isin(ended, taken)]
        picked = rest[self.rng.random(rest.size) >= self.true_share] if self.size else rest[:0]
        if picked.size:
            self._start(picked)
        self.counters += picked.size
        self.counters[1] = picked.size
        # the next rollout's first snapshot: an env that ended in the last step and was not restored is at a true start
        fresh = self.just_done.copy()
        fresh[taken], fresh[picked] = False, False
        self.pending.append((0, self.env.snapshot(), fresh))
        self.tick = 0
        return restarted_memory(taken, taken_states, picked, self.hidden, self.rows_per_env)

    def _start(self, envs: np.ndarray) -> None:
        """Restore ``envs`` to kept states drawn by score, then fade the drawn states' scores."""
        weights = self.score[: self.size]
        p = weights / weights.sum() if weights.sum() > 0 else np.full(self.size, 1.0 / self.size)
        drawn = self.rng.choice(self.size, size=envs.size, p=p)
        self.last["score_drawn"] = float(self.score[drawn].mean())
        start_from(self.env, envs, self.records[drawn].copy())
        which, times = np.unique(drawn, return_counts=True)
        self.score[which] *= self.fade**times

    def score_rollout(self, rollout, gamma: float, lam: float) -> None:
        """After a rollout's restarts: score its snapshots by the |advantage| of the segments that followed them and
        keep the best (the next rollout's first snapshot waits for that rollout)."""
        adv, _ = advantages_and_returns(rollout, gamma, lam)
        n, r = self.env.num_envs, self.rows_per_env
        size = np.abs(adv.cpu().numpy()).reshape(self.horizon, n, r).mean(axis=2)
        ends = rollout.dones.cpu().numpy().reshape(self.horizon, n, r).max(axis=2) > 0
        *done_now, upcoming = self.pending
        scores, kept = [], []
        for tick, records, fresh in done_now:
            stop = min(tick + self.every, self.horizon)
            seg, seg_ends = size[tick:stop], ends[tick:stop]
            # a tick counts while no end came before it in the segment (the end's own tick counts)
            alive = np.cumsum(seg_ends, axis=0) - seg_ends == 0
            score = (seg * alive).sum(axis=0) / alive.sum(axis=0)
            scores.append(score[~fresh])
            kept.append(records[~fresh])
        self.pending = [upcoming]
        if scores:
            new_scores, new_records = np.concatenate(scores), np.concatenate(kept)
            self.last["score_new"] = float(new_scores.mean()) if new_scores.size else float("nan")
            self._keep(new_records, new_scores)

    def _keep(self, records: np.ndarray, scores: np.ndarray) -> None:
        """Keep the ``capacity`` highest scores among the kept states and ``records``."""
        all_records = np.concatenate([self.records[: self.size], records])
        all_scores = np.concatenate([self.score[: self.size], scores])
        if len(all_scores) > self.capacity:
            best = np.argpartition(-all_scores, self.capacity - 1)[: self.capacity]
            all_records, all_scores = all_records[best], all_scores[best]
        self.size = len(all_scores)
        self.records[: self.size], self.score[: self.size] = all_records, all_scores

    # -- reporting --------------------------------------------------------------------------
    def metrics(self) -> dict:
        """``curriculum/`` metrics of the last rollout (see the module's doc)."""
        kept = self.score[: self.size]
        return {
            "curriculum/replay/kept": self.size,
            "curriculum/replay/score_kept": float(kept.mean()) if self.size else float("nan"),
            "curriculum/replay/score_new": self.last["score_new"],
            "curriculum/replay/score_drawn": self.last["score_drawn"] if self.counters[1] else float("nan"),
            "curriculum/starts": int(self.counters[1]),
            "curriculum/starts_total": int(self.counters[0]),
        }

    # -- checkpoints ------------------------------------------------------------------------
    def save(self, folder: str) -> None:
        """Write the kept states, their scores, the draw's generator and the next rollout's first snapshot into
        ``folder/curriculum_replay.npz`` (called between rollouts, when only that snapshot is pending)."""
        ((_, upcoming, fresh),) = self.pending
        arrays = {
            "records": self.records[: self.size],
            "score": self.score[: self.size],
            "upcoming": upcoming,
            "fresh": fresh,
            "counters": self.counters,
        }
        meta = {
            "format": FORMAT,
            "env": self.env.env_cls.name,
            "rng": self.rng.bit_generator.state,
        }
        write_npz(os.path.join(folder, FILE), arrays, meta)

    def load(self, folder: str) -> None:
        """Continue from what :meth:`save` wrote into ``folder`` (the best ``N`` of its states when ``N`` changed)."""
        path = os.path.join(folder, FILE)
        meta, arrays = read_npz(path, "prioritized restarts", REMEDY, {"format": int, "env": str, "rng": dict})
        if meta["format"] != FORMAT:
            raise DamagedFile(path, f"is format {meta['format']}; this sparring reads format {FORMAT}", REMEDY)
        dtype = self.env.env_cls.record_dtype
        want = {"records": dtype, "score": np.float64, "upcoming": dtype, "fresh": np.bool_, "counters": np.int64}
        if set(arrays) != set(want) or any(arrays[k].dtype != t for k, t in want.items()):
            raise DamagedFile(path, f"holds the arrays {sorted(arrays)}, not {sorted(want)} of the right types", REMEDY)
        if meta["env"] != self.env.env_cls.name:
            raise ValueError(
                f"{path}: the prioritized restarts of env {meta['env']!r}; this run has {self.env.env_cls.name!r}"
            )
        n = self.env.num_envs
        if (
            arrays["score"].shape != arrays["records"].shape
            or arrays["upcoming"].shape != (n,)
            or arrays["fresh"].shape != (n,)
            or arrays["counters"].shape != (2,)
            or not np.isfinite(arrays["score"]).all()
            or (arrays["score"] < 0).any()
        ):
            raise DamagedFile(path, "its arrays have shapes or scores that do not fit this run", REMEDY)
        config = getattr(self.env, "config", None)
        if config is not None:  # a file's states are checked before a kernel sees them
            validate_states(self.env.env_cls, config, arrays["records"], path, lambda i: f"kept state {i}")
            validate_states(self.env.env_cls, config, arrays["upcoming"], path, lambda i: f"pending snapshot {i}")
        with reading(path, "prioritized restarts: its generator state", REMEDY):
            self.rng.bit_generator.state = meta["rng"]
        self.size = 0
        self._keep(arrays["records"], arrays["score"])
        self.pending = [(0, arrays["upcoming"].copy(), arrays["fresh"].copy())]
        self.counters = arrays["counters"].copy()
