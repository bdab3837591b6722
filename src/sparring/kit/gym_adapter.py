"""Gymnasium adapters: one env instance as an ``Env``, a batch of games as a ``VectorEnv``.

Both follow Gymnasium 1.x: masks in the form ``space.sample(mask=...)`` takes (see
:mod:`sparring.kit.spaces`) plus ``action_masks()`` for sb3-contrib's ``MaskablePPO``; seeds that
continue when none is given; only the seats the env takes actions for from outside (its learner
seats, :meth:`~sparring.kit.spec.Env.learner_seats`) are acted for. Every registered env is a
Gymnasium id too (``sparring/NAME-v0``, :mod:`sparring.kit.gym_registration`).

When an episode ends, ``info["sparring_episode"]`` holds what sparring records about it: the
seat's ``return``, the ``length`` in ticks, the ``phase`` it ended in and the env's metrics (a
key of its own: Gymnasium's ``RecordEpisodeStatistics`` writes ``info["episode"]``).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from sparring.kit.batch import BatchedEnv
from sparring.kit.registry import get
from sparring.kit.rng import mix_seed
from sparring.kit.spaces import action_space, observation_space, space_mask, space_masks, to_rows

EPISODE_KEY = "sparring_episode"
_STATS = ("return", "length", "phase")


def _env_cls(env):
    cls = get(env) if isinstance(env, str) else env
    clash = set(_STATS) & set(cls.metrics)
    if clash:
        raise ValueError(f"env {cls.name!r} has metrics named {sorted(clash)}, which the adapters use for {_STATS}")
    return cls


def learner_seat(cls, config, seat: int | str | None) -> int:
    """The index of ``seat`` (an index or a seat name; None: the first), a learner seat of ``cls`` under ``config``."""
    learners = cls.learner_seats(config)
    if seat is None:
        return int(learners[0])
    index = cls.seats.index(seat) if isinstance(seat, str) and seat in cls.seats else seat
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool) and int(index) in learners:
        return int(index)
    valid = ", ".join(f"{i} ({cls.seats[i]})" for i in learners)
    raise ValueError(
        f"seat must be a seat of env {cls.name!r} whose actions come from outside with this config: one of "
        f"{valid}; got {seat!r} (the env plays its other seats itself)"
    )


def _episode_stats(batch: BatchedEnv, games: np.ndarray, seats: np.ndarray) -> dict:
    """Per (game, seat) pair, the ended episode as recorded in the game's record: return, length, phase, metrics."""
    cls, recs = batch.env_cls, batch.records[games]
    stats = {
        "return": recs["ep_return"][np.arange(len(games)), seats].astype(np.float64),
        "length": recs["tick"].astype(np.int64),
        "phase": np.asarray(cls.phases)[recs["phase"]],
    }
    for k, name in enumerate(cls.metrics):
        stats[name] = recs["metrics"][:, k].astype(np.float64)
    return stats


class GymEnv(gymnasium.Env):
    """One env instance seen from one learner seat (an index or a seat name; by default the first).

    The env's other learner seats play ``others``: ``"noop"`` (all heads 0) or the name of one
    of the env's scripted policies; seats the env plays itself need nothing. ``info["action_mask"]``
    holds the seat's mask (int8; a tuple per head for several heads), ``action_masks()`` the flat
    bool one. At an episode's end ``info["sparring_episode"]`` holds its statistics and
    ``info["is_success"]`` (Stable-Baselines3's key) whether the seat won (:meth:`Env.outcome`).
    ``options`` of ``reset`` are not used.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 8}

    def __init__(
        self, env, seat: int | str | None = None, others: str = "noop", render_mode: str | None = None, **config
    ):
        cls = _env_cls(env)
        if others != "noop" and others not in cls.scripted:
            raise ValueError(f"others must be 'noop' or one of {sorted(cls.scripted)}, got {others!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.batch = BatchedEnv(cls, num_envs=1, autoreset=False, **config)
        self.seat = learner_seat(cls, self.batch.config, seat)
        self.others, self.render_mode = others, render_mode
        self.observation_space = observation_space(self.batch.obs_spec)
        self.action_space = action_space(cls.actions)
        self._acts = np.zeros((cls.num_agents, len(cls.actions.sizes)), np.int32)
        self._over = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode; without a seed, continue the generator seeded before."""
        super().reset(seed=seed)
        self.batch.reset(int(self.np_random.integers(2**62)))
        self._over = False
        return self._obs(), {"action_mask": self._mask()}

    def step(self, action):
        """Act for the seat; other learner seats act as ``others``."""
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        if self.others == "noop":
            self._acts[:] = 0
        else:
            self.batch.scripted_actions(self.others, out=self._acts)
        self._acts[self.seat] = to_rows(action, self.batch.heads)
        _, rew, term, trunc, _, _ = self.batch.step(self._acts)
        terminated, truncated = bool(term[self.seat]), bool(trunc[self.seat])
        info = {"action_mask": self._mask()}
        if self.batch.done[0] or terminated or truncated:
            self._over = True
            stats = _episode_stats(self.batch, np.zeros(1, np.int64), np.array([self.seat]))
            info[EPISODE_KEY] = {key: value[0].item() for key, value in stats.items()}
            outcome = self.batch.env_cls.outcome(self.seat, stats["return"], self.batch.records["metrics"])
            info["is_success"] = bool(outcome[0] == 0)
        return self._obs(), float(rew[self.seat]), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The seat's flat bool mask (``sum(heads)`` entries), as sb3-contrib's ``MaskablePPO`` asks for it."""
        return self.batch.mask[self.seat].copy()

    def render(self):
        """ANSI text or an RGB array, per ``render_mode``."""
        cls, rec = self.batch.env_cls, self.batch.records[0]
        if self.render_mode == "ansi":
            return cls.render_ansi(rec, self.batch.config)
        if self.render_mode == "rgb_array":
            return cls.render_rgb(rec, self.batch.config)
        return None

    def _obs(self) -> np.ndarray:
        return self.batch.obs[self.seat].copy()

    def _mask(self):
        return space_mask(self.batch.mask[self.seat], self.batch.heads)


class GymVectorEnv(VectorEnv):
    """``num_envs`` games as a Gymnasium ``VectorEnv`` whose sub-envs are the games' learner seats.

    Sub-env ``g * L + j`` is the ``j``-th learner seat of game ``g`` (``L`` learner seats per game
    with this config): one sub-env per game for duel against its scripted opponent, squared or
    serpent; eight per game for town, two for duel with ``opponent="learner"``. Seats the env plays
    itself are not sub-envs. A seat that leaves before its game ends (a fainted town character)
    reports ``terminated`` on every step until the game ends, as the env does.

    Autoreset is same-step: an ended game's sub-envs return the next episode's observation, the
    last one in ``info["final_obs"]`` and that step's masks in ``info["final_info"]``. Info values
    are per-sub-env arrays with their ``_key`` masks (``DictInfoToList`` works):
    ``action_mask`` (int8 ``[n, size]`` for one head, else an object array of per-head tuples),
    ``sparring_episode`` at episode ends. ``action_masks()`` gives the flat bool masks.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, env, num_envs: int = 1, seed: int = 0, **config):
        cls = _env_cls(env)
        self.batch = BatchedEnv(cls, num_envs=num_envs, seed=seed, autoreset=False, **config)
        self._rows = np.flatnonzero(self.batch.learner_rows)
        self._game, self._seat = np.divmod(self._rows, cls.num_agents)
        self.num_envs = len(self._rows)
        self.single_observation_space = observation_space(self.batch.obs_spec)
        self.single_action_space = action_space(cls.actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._acts = np.zeros((self.batch.rows, len(cls.actions.sizes)), np.int32)
        self._all = np.ones(self.num_envs, np.bool_)

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict | None = None):
        """Fresh episodes in every game; returns ``(obs, info)``. ``options`` are not used.

        ``seed``: None continues each game's generator (the next episodes, not the last ones
        again); an int seeds game ``g`` from ``(seed, g)`` as :class:`BatchedEnv` does; a list has
        one seed (or None: continue) per sub-env, the same for the sub-envs of one game, and gives
        game ``g`` the episode a one-game batch gets from its seed.
        """
        if seed is None:
            self.batch.reset_envs(np.arange(self.batch.num_envs))
        elif isinstance(seed, (int, np.integer)):
            self.batch.reset(int(seed))
        else:
            self._reset_per_game(list(seed))
        return self.batch.obs[self._rows], {"action_mask": self._masks(), "_action_mask": self._all.copy()}

    def _reset_per_game(self, seeds: list) -> None:
        if len(seeds) != self.num_envs:
            raise ValueError(f"a list of seeds needs one per sub-env ({self.num_envs}), got {len(seeds)}")
        per_game: dict[int, object] = {}
        for r, s in enumerate(seeds):
            if s is not None and not isinstance(s, (int, np.integer)):
                raise TypeError(f"seeds must be ints or None, got {s!r} for sub-env {r}")
            g = int(self._game[r])
            if per_game.setdefault(g, s) != s:
                raise ValueError(f"sub-envs of game {g} are seats of one game: give them one seed, got {seeds}")
        for g, s in per_game.items():
            if s is not None:
                self.batch.records["rng"][g] = mix_seed(np.uint64(int(s) % 2**64), np.uint64(0))
        self.batch.reset_envs(np.arange(self.batch.num_envs))

    def step(self, actions):
        """Step every game with the sub-envs' actions (``[n]`` for one head, ``[n, heads]`` for several)."""
        self._acts[self._rows] = self._checked(actions)
        obs, rew, term, trunc, mask, _ = self.batch.step(self._acts)
        info = {}
        if self.batch.done.any():
            ended = self.batch.done[self._game]
            final = np.empty(self.num_envs, dtype=object)
            for r in np.flatnonzero(ended):
                final[r] = obs[self._rows[r]].copy()
            info["final_obs"], info["_final_obs"] = final, ended
            info["final_info"] = {"action_mask": self._final_masks(ended), "_action_mask": ended.copy()}
            info["_final_info"] = ended.copy()
            info[EPISODE_KEY], info[f"_{EPISODE_KEY}"] = self._stats(ended), ended.copy()
            self.batch.reset_envs(np.flatnonzero(self.batch.done))
        info["action_mask"], info["_action_mask"] = self._masks(), self._all.copy()
        return self.batch.obs[self._rows], rew[self._rows], term[self._rows], trunc[self._rows], info

    def action_masks(self) -> np.ndarray:
        """The sub-envs' flat bool masks ``[n, sum(heads)]``, as sb3-contrib's ``MaskablePPO`` asks for them."""
        return self.batch.mask[self._rows]

    def _masks(self) -> np.ndarray:
        return space_masks(self.batch.mask[self._rows], self.batch.heads)

    def _final_masks(self, ended: np.ndarray) -> np.ndarray:
        """The last step's masks of ended sub-envs; zeros (one head) or None elsewhere, as ``SyncVectorEnv`` has it."""
        rows = np.flatnonzero(ended)
        some = space_masks(self.batch.mask[self._rows[rows]], self.batch.heads)
        if some.dtype == object:
            out = np.full(self.num_envs, None, dtype=object)
        else:
            out = np.zeros((self.num_envs, *some.shape[1:]), some.dtype)
        out[rows] = some
        return out

    def _stats(self, ended: np.ndarray) -> dict:
        rows = np.flatnonzero(ended)
        some = _episode_stats(self.batch, self._game[rows], self._seat[rows])
        stats = {}
        for key, value in some.items():
            stats[key] = np.zeros(self.num_envs, value.dtype)
            stats[key][rows] = value
        return stats

    def _checked(self, actions) -> np.ndarray:
        acts = np.asarray(actions)
        sizes = self.batch.heads.sizes
        shape = (self.num_envs,) if len(sizes) == 1 else (self.num_envs, len(sizes))
        if acts.shape != shape:
            raise ValueError(f"actions must have shape {shape} (sub-envs, heads {list(self.batch.heads.names)})")
        if not np.issubdtype(acts.dtype, np.integer):
            raise TypeError(f"actions must be integers, got dtype {acts.dtype}")
        acts = acts.reshape(self.num_envs, len(sizes))
        bad = np.flatnonzero(((acts < 0) | (acts >= sizes)).any(axis=1))
        if bad.size:
            heads = dict(zip(self.batch.heads.names, sizes.tolist()))
            raise ValueError(f"action of sub-env {bad[0]} is {acts[bad[0]].tolist()}; head sizes are {heads}")
        return acts
