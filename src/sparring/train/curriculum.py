"""An adaptive start-state curriculum: ended episodes restart from states where the learner is learning.

``sparring train ENV --train.curriculum SPEC`` (sources: :mod:`sparring.train.curriculum_sources`).
:class:`Curriculum` is the rollout's episode-end hook (:class:`sparring.train.rollout.EpisodeEndHook`):

- after every env step it counts the ended episodes it started: success is moving on from the start
  state's group to a later one (gauntlet: clearing the wave it started in; the env's records are read
  each step, in-process only) or a positive return earned from the start state on (the env's
  ``ended_return``; a drawn state's return so far is zeroed when it is restored), which under the
  terminal rewards of the envs here is the win of ``Env.outcome`` (gauntlet: a clear; serpent: a kill).
  Progress is the signal a reverse curriculum needs long before the end can be won.
- at the end of each rollout each env whose episode ended (it now plays a fresh start) keeps its
  true start with probability ``curriculum_true``; the others are restored to a drawn state
  (keeping the env's own generator, so restarts from one state see different dice) and their
  recurrent memory starts from zeros, as a fresh episode's does.

With an ``own:N`` source it also keeps, after every step, the records of envs whose episode went on
into another group (their arrival; :class:`~sparring.train.curriculum_pool.StatePool`), and draws
them like the sources' states; a group first reached by the learner joins the draw then.

The draw (:class:`GroupSampler`): a group, then a state of that group uniformly. Per group the
sampler keeps a recent success rate: outcomes decay by ``1 - 1 / curriculum_window`` per new
outcome of the group, plus half a success in one episode as a prior, so p = (wins + 0.5) /
(episodes + 1) and a group never tried has p = 0.5. A group's weight is max(4 p (1 - p),
``curriculum_floor``): highest where success is near one half, the floor where it is near 0 or 1
(none starves). Groups are drawn with probability weight / sum of weights.

With ``--archive`` (Go-Explore restarts) the curriculum owns the archive's hook: every ended env
is first offered to the archive, which restarts ``archive_fraction`` of them as it does alone; the
curriculum handles the rest (so true starts are ``(1 - archive_fraction) x curriculum_true`` of all
ends). Episodes restarted by the archive count in the archive's statistics, not the curriculum's.

Metrics per update: ``curriculum/share/true`` and ``curriculum/share/<key>_<value>`` (the draw's
distribution over a handled end: the true share, then each group's), ``curriculum/success/<key>_<value>``
(the recent success rate of the group, without the prior; only groups with ended episodes) and
``curriculum/success/true`` (of true starts), ``curriculum/starts`` (restored at the end of the last
rollout), ``curriculum/episodes`` (curriculum-started episodes that ended in it). ``plots/curriculum.png``
shows share and success per group against training steps.
"""

from __future__ import annotations

import os

import numpy as np

from sparring.explore.restarts import rows_per_env
from sparring.kit.files import DamagedFile, reading
from sparring.kit.npz_file import read_npz, write_npz
from sparring.kit.trust import validate_states
from sparring.train.curriculum_pool import StatePool
from sparring.train.curriculum_sources import StartStates

TRUE, OTHER = -1, -2  # origin of an env's episode: a true start, another hook's restart (else a group index)
FILE = "curriculum.npz"
FORMAT = 2  # 2: the pool's own arrivals (own:N) are saved; format 1 files (none kept) still load
REMEDY = "resume from another checkpoint, or start the run again"


class GroupSampler:
    """Recent success per group and the group draw that favours success near one half.

    Args:
      groups: number of groups; floor: the smallest weight (0..1); window: outcomes a group's
      rate remembers (an outcome's weight decays by ``1 - 1 / window`` per newer one of its group).
    """

    def __init__(self, groups: int, floor: float = 0.1, window: float = 100.0):
        if not 0.0 <= floor <= 1.0:
            raise ValueError(f"train.curriculum_floor must be in [0, 1], got {floor}")
        if window < 1:
            raise ValueError(f"train.curriculum_window must be at least 1 episode, got {window}")
        self.floor, self.decay = float(floor), 1.0 - 1.0 / float(window)
        self.episodes = np.zeros(groups, np.float64)  # decayed counts
        self.wins = np.zeros(groups, np.float64)

    def grow(self, groups: int) -> None:
        """Make room for new groups (no outcomes yet) up to ``groups`` in all."""
        more = groups - len(self.episodes)
        if more > 0:
            self.episodes = np.concatenate([self.episodes, np.zeros(more)])
            self.wins = np.concatenate([self.wins, np.zeros(more)])

    def record(self, groups: np.ndarray, wins: np.ndarray) -> None:
        """Fold in ended episodes: their group indices and whether each succeeded (taken as simultaneous)."""
        n = len(self.episodes)
        count = np.bincount(groups, minlength=n).astype(np.float64)
        won = np.bincount(groups, weights=np.asarray(wins, np.float64), minlength=n)
        keep = self.decay**count
        # k outcomes at once: each weighs the mean of the k newest weights, so the rate moves by their mean
        fresh = (1.0 - keep) / (1.0 - self.decay)
        mean = np.divide(won, count, out=np.zeros(n), where=count > 0)
        self.episodes = self.episodes * keep + fresh
        self.wins = self.wins * keep + mean * fresh

    def success(self) -> np.ndarray:
        """The estimate the draw uses: (wins + 0.5) / (episodes + 1) per group."""
        return (self.wins + 0.5) / (self.episodes + 1.0)

    def rate(self) -> np.ndarray:
        """Recent success rate per group without the prior (NaN for a group without outcomes)."""
        return np.divide(self.wins, self.episodes, out=np.full(len(self.episodes), np.nan), where=self.episodes > 0)

    def weights(self) -> np.ndarray:
        """max(4 p (1 - p), floor) per group."""
        p = self.success()
        return np.maximum(4.0 * p * (1.0 - p), self.floor)

    def probabilities(self, available: np.ndarray | None = None) -> np.ndarray:
        """The chance of drawing each group (only ``available`` ones, a bool per group, when given; all zeros
        when none is)."""
        w = self.weights() if available is None else self.weights() * available
        total = w.sum()
        return w / total if total > 0 else w


class Curriculum:
    """Start states drawn by learning progress for one trainer's env: the episode-end hook of its rollout.

    Args:
      env: the trainer's env (any vec backend); rows: the rollout's trained rows (grouped by env);
      state: the policy's recurrent state of those rows (tensors [rows, hidden]; ``()``: none);
      starts: the pooled, checked states (:func:`~sparring.train.curriculum_sources.load_start_states`);
      true_share: probability that a handled end keeps its true start; floor, window: the
      :class:`GroupSampler`'s; seed: seed of the draws; archive: Go-Explore restarts offered every end
      first (:class:`~sparring.explore.restarts.ArchiveRestarts`), or None.
    """

    FILE = FILE

    def __init__(
        self,
        env,
        rows: np.ndarray,
        state: tuple,
        starts: StartStates,
        true_share: float = 0.2,
        floor: float = 0.1,
        window: float = 100.0,
        seed: int = 0,
        archive=None,
    ):
        if not 0.0 <= true_share <= 1.0:
            raise ValueError(f"train.curriculum_true must be in [0, 1], got {true_share}")
        if starts.records.dtype != env.env_cls.record_dtype:
            raise ValueError(f"curriculum states are not {env.env_cls.name!r} records")
        self.env, self.true_share, self.archive = env, float(true_share), archive
        self.pool = StatePool(starts, env.env_cls.record_dtype)
        self.rows_per_env = rows_per_env(np.asarray(rows), env.num_envs, env.num_agents, "curriculum")
        self.hidden = [int(s.shape[-1]) for s in state]
        self.sampler = GroupSampler(len(self.pool.keys), floor, window)
        self.truth = GroupSampler(1, floor, window)  # the same recent rate, for true starts
        self.rng = np.random.default_rng([int(seed), 11])
        self.origin = np.full(env.num_envs, TRUE, np.int64)
        self.counters = np.zeros(3, np.int64)  # starts_total, last rollout's starts, episodes ended since metrics
        # each env's group key where its episode started and where it was last seen: an episode that moved on to
        # a later group (gauntlet: cleared its start wave) counts as a success; -1 where the env shows no records
        now = self._groups_now()
        self.start_key = np.full(env.num_envs, -1, np.int64) if now is None else now.copy()
        self.last_key = self.start_key.copy()

    # -- the hook ---------------------------------------------------------------------------
    def after_step(self, done: np.ndarray, state: tuple) -> None:
        """After an env step: count the outcomes of the episodes that ended, by where they started."""
        if self.archive is not None:
            self.archive.after_step(done, state)
        now = self._groups_now()
        if done.any():
            ended = np.flatnonzero(done)
            origin = self.origin[ended]
            wins = (np.asarray(self.env.ended_return)[ended] > 0) | (self.last_key[ended] > self.start_key[ended])
            mine = origin >= 0
            if mine.any():
                self.sampler.record(origin[mine], wins[mine])
                self.counters[2] += int(mine.sum())
            true = origin == TRUE
            if true.any():
                self.truth.record(np.zeros(int(true.sum()), np.int64), wins[true])
            self.origin[ended] = TRUE  # they now play a fresh start
            if now is not None:
                self.start_key[ended] = now[ended]
        if now is not None:
            if self.pool.capacity:
                self._keep_arrivals(done, now)
            self.last_key = now

    def _keep_arrivals(self, done: np.ndarray, now: np.ndarray) -> None:
        """Offer the pool the records of envs whose episode went on into another group this step (own:N)."""
        arrived = np.flatnonzero(~np.asarray(done, np.bool_) & (now != self.last_key))
        if arrived.size:
            self.pool.add(self.env.snapshot(arrived), now[arrived])
            self.sampler.grow(len(self.pool.keys))

    def _groups_now(self) -> np.ndarray | None:
        """Each env's current group key, when the env shows its records (in-process); else None."""
        records = getattr(self.env, "records", None)
        return None if records is None else np.asarray(self.env.env_cls.start_groups(records), np.int64)

    def restart(self, ended: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """Offer the ``ended`` envs to the archive, then restore ``1 - curriculum_true`` of the rest from drawn
        states; returns the restarted envs (sorted) and their recurrent memory in the rollout's row order."""
        taken, taken_states = (ended[:0], ()) if self.archive is None else self.archive.restart(ended)
        self.origin[taken] = OTHER
        now = self._groups_now()
        if now is not None and taken.size:
            self.start_key[taken] = self.last_key[taken] = now[taken]
        rest = ended[~np.isin(ended, taken)]
        picked = rest[self.rng.random(rest.size) >= self.true_share]
        if not (self.pool.sizes() > 0).any():
            picked = picked[:0]  # own:N alone and no arrival kept yet: every end keeps its true start
        if picked.size:
            groups, states = self.draw(picked.size)
            self.start(picked, states, groups)
        self.counters[0] += picked.size
        self.counters[1] = picked.size
        return restarted_memory(taken, taken_states, picked, self.hidden, self.rows_per_env)

    def draw(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` group indices drawn by the sampler's probabilities among groups with states, and a state of each
        (a copy of its record), drawn uniformly within its group."""
        groups = self.rng.choice(len(self.pool.keys), size=n, p=self.sampler.probabilities(self.pool.sizes() > 0))
        return groups, self.pool.draw(groups, self.rng)

    def start(self, envs: np.ndarray, records: np.ndarray, groups: np.ndarray) -> None:
        """Restore ``envs`` to the start states ``records`` (copies; each env keeps its generator) of ``groups``."""
        start_from(self.env, envs, records)  # success counts what is earned from this state on
        self.origin[envs] = groups
        self.start_key[envs] = self.last_key[envs] = self.pool.keys[groups]

    # -- reporting --------------------------------------------------------------------------
    def shares(self) -> dict:
        """The draw's distribution over a handled end: ``{"true": ..., label: ...}``."""
        probs = self.sampler.probabilities(self.pool.sizes() > 0)
        true = self.true_share if probs.any() else 1.0
        return {"true": true, **{label: float((1.0 - true) * p) for label, p in zip(self.pool.labels(), probs)}}

    def metrics(self) -> dict:
        """``curriculum/`` metrics of the last rollout (see the module's doc)."""
        out = {f"curriculum/share/{k}": v for k, v in self.shares().items()}
        truth = self.truth.rate()[0]
        if np.isfinite(truth):
            out["curriculum/success/true"] = float(truth)
        for label, rate in zip(self.pool.labels(), self.sampler.rate()):
            if np.isfinite(rate):
                out[f"curriculum/success/{label}"] = float(rate)
        out["curriculum/starts"], out["curriculum/episodes"] = int(self.counters[1]), int(self.counters[2])
        out["curriculum/starts_total"] = int(self.counters[0])
        self.counters[2] = 0
        return out

    # -- checkpoints ------------------------------------------------------------------------
    def save(self, folder: str) -> None:
        """Write the statistics, the draw's generator and each env's origin into ``folder/curriculum.npz``."""
        arrays = {
            "keys": self.pool.keys,
            "own": self.pool.own,
            "own_added": self.pool.added,
            "episodes": self.sampler.episodes,
            "wins": self.sampler.wins,
            "true_episodes": self.truth.episodes,
            "true_wins": self.truth.wins,
            "origin": self.origin,
            "counters": self.counters,
            "start_key": self.start_key,
            "last_key": self.last_key,
        }
        meta = {
            "format": FORMAT,
            "env": self.env.env_cls.name,
            "key_name": self.pool.key_name,
            "rng": self.rng.bit_generator.state,
        }
        write_npz(os.path.join(folder, FILE), arrays, meta)

    def load(self, folder: str) -> None:
        """Continue from what :meth:`save` wrote into ``folder``: statistics of groups this run also has, by key."""
        path = os.path.join(folder, FILE)
        keys = {"format": int, "env": str, "key_name": str, "rng": dict}
        meta, arrays = read_npz(path, "curriculum state", REMEDY, keys)
        want = {
            "keys": np.int64,
            "episodes": np.float64,
            "wins": np.float64,
            "true_episodes": np.float64,
            "true_wins": np.float64,
            "origin": np.int64,
            "counters": np.int64,
            "start_key": np.int64,
            "last_key": np.int64,
        }
        if meta["format"] >= 2:  # the pool's own arrivals (format 1: none kept)
            want.update({"own": self.pool.own.dtype, "own_added": np.int64})
        if set(arrays) != set(want) or any(arrays[k].dtype != t for k, t in want.items()):
            raise DamagedFile(path, f"holds the arrays {sorted(arrays)}, not {sorted(want)} of the right types", REMEDY)
        keys, n = arrays["keys"], len(arrays["keys"])
        if meta["env"] != self.env.env_cls.name or meta["key_name"] != self.pool.key_name:
            raise ValueError(
                f"{path}: the curriculum of another env or group key ({meta['env']!r}, "
                f"{meta['key_name']!r}); this run has {self.env.env_cls.name!r}, "
                f"{self.pool.key_name!r}"
            )
        origin = arrays["origin"]
        if (
            arrays["episodes"].shape != (n,)
            or arrays["wins"].shape != (n,)
            or origin.shape != self.origin.shape
            or arrays["true_episodes"].shape != (1,)
            or arrays["counters"].shape != (3,)
            or arrays["start_key"].shape != self.origin.shape
            or arrays["last_key"].shape != self.origin.shape
            or (origin < OTHER).any()
            or (origin >= n).any()
            or (
                "own" in arrays
                and (arrays["own"].ndim != 2 or len(arrays["own"]) != n or arrays["own_added"].shape != (n,))
            )
        ):
            raise DamagedFile(path, "its arrays have shapes or origins that do not fit this run", REMEDY)
        with reading(path, "curriculum state: its generator state", REMEDY):
            self.rng.bit_generator.state = meta["rng"]
        if "own" in arrays:
            self._load_own(path, keys, arrays["own"], arrays["own_added"])
        # statistics follow their key: a group gone from the sources is dropped, a new one starts afresh
        mine, theirs = np.intersect1d(self.pool.keys, keys, return_indices=True)[1:]
        self.sampler.episodes[mine], self.sampler.wins[mine] = arrays["episodes"][theirs], arrays["wins"][theirs]
        self.truth.episodes[:], self.truth.wins[:] = arrays["true_episodes"], arrays["true_wins"]
        remap = np.full(n, OTHER, np.int64)
        remap[theirs] = mine
        self.origin = np.where(origin >= 0, remap[np.maximum(origin, 0)], origin)
        self.counters = arrays["counters"].copy()
        self.start_key, self.last_key = arrays["start_key"].copy(), arrays["last_key"].copy()

    def _load_own(self, path: str, keys: np.ndarray, own: np.ndarray, added: np.ndarray) -> None:
        """Put a checkpoint's own arrivals back into the pool: as saved when this run keeps as many per group (an
        exact resume), else re-kept oldest first (``own:N`` changed: the newest N of each)."""
        if not self.pool.capacity:
            return
        config = getattr(self.env, "config", None)
        for key, ring, count in zip(keys, own, np.maximum(added, 0)):
            g = self.pool.group_of(int(key))
            held = ring[: min(int(count), len(ring))]
            if config is not None and len(held):  # a file's states are checked before a kernel sees them
                validate_states(self.env.env_cls, config, held, path, lambda i, k=int(key): f"own arrival {i} of {k}")
            if len(ring) == self.pool.capacity:
                self.pool.own[g], self.pool.added[g] = ring, count
            else:
                oldest_first = np.roll(ring, -int(count % len(ring))) if count > len(ring) else held
                self.pool.add(oldest_first, np.full(len(oldest_first), key, np.int64))
        self.sampler.grow(len(self.pool.keys))


def start_from(env, envs: np.ndarray, records: np.ndarray) -> None:
    """Restore ``envs`` to ``records`` (copies, changed here) as the starts of new episodes: each env keeps its own
    generator (restarts from one state see other dice) and its return so far is zeroed."""
    records["rng"] = env.snapshot(envs)["rng"]
    records["ep_return"] = 0.0
    env.restore(envs, records)


def restarted_memory(
    taken: np.ndarray, taken_states: tuple, picked: np.ndarray, hidden: list[int], rows_per_env: int
) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """An episode-end hook's answer to :meth:`restart`: the envs the archive took (``taken``, with its recurrent
    states ``taken_states``) and those the curriculum restored (``picked``), sorted, and their memory in row order:
    the archive's states for its envs, zeros for the curriculum's (``()`` for a policy without memory)."""
    envs = np.union1d(taken, picked).astype(np.int64)
    if not hidden or not envs.size:
        return envs, ()
    r = rows_per_env
    out = tuple(np.zeros((envs.size * r, size), np.float32) for size in hidden)
    if taken.size and taken_states:
        at = (np.searchsorted(envs, taken)[:, None] * r + np.arange(r)).reshape(-1)
        for part, stored in zip(out, taken_states):
            part[at] = stored
    return envs, out
