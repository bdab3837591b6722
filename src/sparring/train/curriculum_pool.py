"""The states a start-state curriculum draws from, per group: its sources' states and the learner's own arrivals.

A source's states are fixed when the run starts (:mod:`sparring.train.curriculum_sources`). With an
``own:N`` entry in ``train.curriculum`` the pool also keeps, per group, the newest ``N`` records of
the learner's own episodes taken on the step they arrived in that group (gauntlet: the tick a run
reached a wave), so starts look like the learner's own play (its hp, prayer and doses so far), not
a reference player's. A group the learner reaches for the first time becomes a new group of the
pool. Within a group a state is drawn uniformly from the source's states and the kept arrivals
together.
"""

from __future__ import annotations

import numpy as np

from sparring.train.curriculum_sources import StartStates


class StatePool:
    """Grouped start states: fixed ones from the sources, and (``starts.own`` > 0) the learner's newest arrivals.

    Group indices are stable for the whole run: groups a source holds come first (keys ascending), then
    groups first reached by the learner, in the order reached.
    """

    def __init__(self, starts: StartStates, record_dtype: np.dtype):
        self.key_name = starts.key_name
        self.capacity = int(starts.own)
        self.keys = starts.keys.astype(np.int64).copy()
        self.fixed = starts.records
        self.order = np.argsort(starts.group, kind="stable")
        counts = np.bincount(starts.group, minlength=len(self.keys)).astype(np.int64)
        self.first, self.fixed_size = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64), counts
        self.own = np.zeros((len(self.keys), self.capacity), record_dtype)  # a ring of arrivals per group
        self.added = np.zeros(len(self.keys), np.int64)  # arrivals ever kept per group

    def labels(self) -> list[str]:
        """A metric name part per group: ``<key name>_<key>`` (``group_<key>`` when the env names none)."""
        return [f"{self.key_name or 'group'}_{int(k)}" for k in self.keys]

    def sizes(self) -> np.ndarray:
        """States available per group."""
        return self.fixed_size + np.minimum(self.added, self.capacity)

    def group_of(self, key: int) -> int:
        """The index of group ``key``, made (empty) when the pool keeps own arrivals and has none yet; -1 else."""
        at = np.flatnonzero(self.keys == key)
        if at.size:
            return int(at[0])
        if not self.capacity:
            return -1
        self.keys = np.append(self.keys, np.int64(key))
        self.first = np.append(self.first, np.int64(0))
        self.fixed_size = np.append(self.fixed_size, np.int64(0))
        self.own = np.concatenate([self.own, np.zeros((1, self.capacity), self.own.dtype)])
        self.added = np.append(self.added, np.int64(0))
        return len(self.keys) - 1

    def add(self, records: np.ndarray, keys: np.ndarray) -> None:
        """Keep ``records`` (the learner's, on arriving in the groups ``keys``), newest over oldest per group."""
        if not self.capacity:
            return
        for record, key in zip(records, np.asarray(keys, np.int64)):
            g = self.group_of(int(key))
            self.own[g, self.added[g] % self.capacity] = record
            self.added[g] += 1

    def draw(self, groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A copy of one state of each of ``groups`` (indices of groups with states), each drawn uniformly."""
        sizes = self.sizes()[groups]
        within = np.minimum((rng.random(len(groups)) * sizes).astype(np.int64), sizes - 1)
        fixed = within < self.fixed_size[groups]
        out = np.empty(len(groups), self.own.dtype)
        if fixed.any():
            out[fixed] = self.fixed[self.order[self.first[groups[fixed]] + within[fixed]]]
        if (~fixed).any():
            g = groups[~fixed]
            out[~fixed] = self.own[g, within[~fixed] - self.fixed_size[g]]
        return out
