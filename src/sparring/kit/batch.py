"""The batched env: an array of records stepped by one compiled call.

Buffers follow PufferLib's convention: agent rows, ``[num_envs * num_agents, ...]``.
``step`` returns the buffers themselves, overwritten by the next call; copy what
you keep.

The compiled step gets one header of the buffers' addresses (:mod:`sparring.kit.codegen`),
built again whenever a buffer attribute is assigned: the setters check that the new array
has the buffer's shape and dtype and is C-contiguous, aligned and writeable, so the step
never writes through a stale or wrong address. With ``num_threads`` > 1, slices of the
batch step at once on a :class:`~sparring.kit.threads.SlicePool`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparring.kit.codegen import CHUNK, HEADER, compile_batch, first_bad_action, header_index, sum_chunks
from sparring.kit.compile_jobs import step_in_background
from sparring.kit.config import config_record, make_config
from sparring.kit.memory import check_fits
from sparring.kit.rng import mix_seed
from sparring.kit.threads import SlicePool
from sparring.kit.trust import validate_states

_COMPILED: dict[tuple, object] = {}
_INT32 = np.dtype(np.int32)
_NDARRAY = np.ndarray
_H = {name: header_index(name) for name in HEADER}


@njit(cache=True)
def _seed_states(seed, idx):
    out = np.empty(idx.shape[0], np.uint64)
    for k in range(idx.shape[0]):
        out[k] = mix_seed(seed, idx[k])
    return out


def compiled(env_cls: type, obs_dtype=np.float32):
    """The env's compiled batch module for observations of ``obs_dtype`` (built once per process; on a cold cache its
    step compiles in a second process meanwhile, :mod:`sparring.kit.compile_jobs`)."""
    key = (env_cls, np.dtype(obs_dtype).str)
    if key not in _COMPILED:
        module = compile_batch(env_cls, obs_dtype)
        step_in_background(module, env_cls, obs_dtype)  # a cold cache: the step compiles in a second process
        _COMPILED[key] = module
    return _COMPILED[key]


def _buffer(name: str, doc: str) -> property:
    """A buffer attribute whose assignment is checked and re-binds the compiled step's header."""
    key = "_" + name

    def get(self):
        return getattr(self, key)

    def set(self, value):
        self._rebind(name, value)

    return property(get, set, doc=doc)


PIECES_PER_THREAD = 8  # more pieces than threads: a thread that starts late, or is preempted, delays less


def thread_bounds(num_envs: int, num_threads: int) -> np.ndarray:
    """Env bounds of the pieces of a threaded step: near-equal runs of whole chunks of ``CHUNK`` envs,
    ``PIECES_PER_THREAD`` per thread (fewer when there are fewer chunks; one piece for one thread)."""
    chunks = -(-num_envs // CHUNK)
    pieces = 1 if num_threads == 1 else min(PIECES_PER_THREAD * num_threads, chunks)
    cuts = np.round(np.linspace(0, chunks, pieces + 1)).astype(np.int64)
    return np.minimum(cuts * CHUNK, num_envs)


def env_bytes(env_cls: type, obs_spec, keep_final: bool = False) -> int:
    """Bytes one env of a :class:`BatchedEnv` allocates: its record (and a copy), its rows' buffers."""
    row = obs_spec.size * obs_spec.dtype.itemsize * (2 if keep_final else 1) + env_cls.actions.total + 16
    return 2 * env_cls.record_dtype.itemsize + env_cls.num_agents * row + 32


class BatchedEnv:
    """``num_envs`` instances of one env class, stepped together.

    Args:
      env_cls: an :class:`~sparring.kit.spec.Env` subclass.
      num_envs: number of env instances.
      seed: base seed; env ``i`` is seeded from (seed, i), so its episodes do
        not depend on the batch size.
      autoreset: reset finished envs inside ``step`` (obs then shows the new
        episode); when False they keep their final state until ``reset_envs``.
      keep_final: also write the final observation of finished envs to
        ``final_obs`` (for Gymnasium's same-step autoreset).
      num_threads: threads that step pieces of the batch (1: the calling thread
        alone), at most one per ``CHUNK`` (16) envs; records, buffers and episode
        info are the same bytes whatever the count (see :mod:`sparring.kit.threads`).
      **config: env config overrides (see ``env_cls.Config``).

    Attributes: ``records`` (the whole state), the row buffers ``obs``, ``mask``,
    ``rewards``, ``terminals``, ``truncations``; per env ``done`` (its episode
    ended in the last step) and ``ended_return`` (that episode's return, mean
    over learner seats); ``learner_rows`` (rows whose actions the env uses);
    ``num_threads`` (the threads a step uses). A buffer may be replaced by another
    array of its shape and dtype (e.g. a view of shared memory); the step then writes there.
    """

    records = _buffer("records", "The whole state: one record per env.")
    cfg = _buffer("cfg", "The config as a one-element record array (kernels read element 0; change it in place).")
    obs = _buffer("obs", "Observations [rows, obs size].")
    final_obs = _buffer("final_obs", "With keep_final: the final observation of envs that just ended, else empty.")
    mask = _buffer("mask", "Action masks [rows, sum of head sizes].")
    rewards = _buffer("rewards", "Rewards of the last step [rows].")
    terminals = _buffer("terminals", "Terminal flags of the last step [rows].")
    truncations = _buffer("truncations", "Truncation flags of the last step [rows].")
    done = _buffer("done", "Per env: its episode ended in the last step.")
    ended_return = _buffer("ended_return", "Per env: the return of the episode that ended (mean over learner seats).")

    def __init__(
        self,
        env_cls: type,
        num_envs: int = 1,
        seed: int = 0,
        autoreset: bool = True,
        keep_final: bool = False,
        num_threads: int = 1,
        **config,
    ):
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or num_threads < 1:
            raise ValueError(f"num_threads must be a positive int, got {num_threads!r}")
        self.env_cls = env_cls
        self.config = make_config(env_cls, config)
        self._cfg = config_record(env_cls, self.config)
        self.num_envs = int(num_envs)
        self.num_agents = int(env_cls.num_agents)
        self.rows = self.num_envs * self.num_agents
        self.obs_spec = env_cls.obs_spec(self.config)
        seats = env_cls.learner_seats(self.config)
        self.learner_rows = np.zeros(self.num_envs * self.num_agents, np.bool_)
        self._seat_weight = np.zeros(self.num_agents, np.float64)
        for seat in seats:
            self.learner_rows[seat :: self.num_agents] = True
            self._seat_weight[seat] = 1.0 / len(seats)
        self.heads = env_cls.actions
        self.seed = int(seed)
        self._autoreset = bool(autoreset)
        self._keep_final = bool(keep_final)
        check_fits(
            self.num_envs * env_bytes(env_cls, self.obs_spec, self.keep_final),
            f"env {env_cls.name!r} with num_envs={self.num_envs} ({self.obs_spec.size} observation values per agent)",
            "lower num_envs (--num-envs, --train.num_envs) or the env's size (--env.KEY)",
        )
        self._k = compiled(env_cls, self.obs_spec.dtype)
        self._step_one, self._episode_info = self._k.batch_step, self._k.episode_info
        self._alloc()
        bounds = thread_bounds(self.num_envs, int(num_threads))
        self.num_threads = min(int(num_threads), len(bounds) - 1)
        self._head = self._header(0, self.num_envs, whole=True)
        self._pieces = np.stack([self._header(lo, hi, whole=False) for lo, hi in zip(bounds[:-1], bounds[1:])])
        self._workers = SlicePool(self._k, self._pieces, self.num_threads) if self.num_threads > 1 else None
        self.reset(seed)

    def _alloc(self) -> None:
        rec_dtype = self.env_cls.record_dtype
        self._records = np.zeros(self.num_envs, rec_dtype)
        self._blank = np.zeros(1, rec_dtype)
        self._pool = np.zeros(0, rec_dtype)
        self._pool_prob = 0.0
        self._obs = np.zeros((self.rows, self.obs_spec.size), self.obs_spec.dtype)
        self._final_obs = np.zeros((self.rows if self._keep_final else 0, self.obs_spec.size), self.obs_spec.dtype)
        self._mask = np.ones((self.rows, self.heads.total), np.bool_)
        self._rewards = np.zeros(self.rows, np.float32)
        self._terminals = np.zeros(self.rows, np.bool_)
        self._truncations = np.zeros(self.rows, np.bool_)
        self._done = np.zeros(self.num_envs, np.bool_)
        self._stepped = np.zeros(self.num_envs, np.bool_)  # the step's own: which envs it stepped, to observe
        n_metrics = max(1, len(self.env_cls.metrics))
        self._ended_return = np.zeros(self.num_envs, np.float64)
        # one accumulator row per chunk of envs and a last row for their sum (see codegen.sum_chunks)
        chunks = -(-self.num_envs // CHUNK)
        self._acc = np.zeros((chunks + 1, 3 + n_metrics + len(self.env_cls.phases)), np.float64)
        self._acc_total = self._acc[chunks]
        self._all = np.arange(self.num_envs, dtype=np.int64)
        self._act_shape = (self.rows, len(self.heads.sizes))

    # -- the compiled step's headers --------------------------------------------------
    def _header(self, lo: int, hi: int, whole: bool) -> np.ndarray:
        head = np.zeros(len(HEADER), np.int64)
        head[[_H["lo"], _H["hi"], _H["whole"]]] = lo, hi, whole
        self._fill(head)
        return head

    def _fill(self, head: np.ndarray) -> None:
        """Write the buffers' addresses, sizes and flags into ``head`` (its slice bounds stay)."""
        arrays = {
            "recs": self._records,
            "cfgs": self._cfg,
            "blank": self._blank,
            "sizes": self.heads.sizes,
            "seat_weight": self._seat_weight,
            "rew": self._rewards,
            "term": self._terminals,
            "trunc": self._truncations,
            "obs": self._obs,
            "mask": self._mask,
            "done": self._done,
            "ended_return": self._ended_return,
            "acc": self._acc,
            "pool": self._pool,
            "final_obs": self._final_obs,
            "stepped": self._stepped,
        }
        for name, array in arrays.items():
            head[_H[name]] = array.ctypes.data
        sizes = {
            "num_envs": self.num_envs,
            "obs_size": self.obs_spec.size,
            "mask_size": self.heads.total,
            "heads": len(self.heads.sizes),
            "pool_size": len(self._pool),
            "final_rows": len(self._final_obs),
            "chunks": len(self._acc) - 1,
            "autoreset": self._autoreset,
            "keep_final": self._keep_final,
        }
        for name, value in sizes.items():
            head[_H[name]] = value
        head.view(np.float64)[_H["pool_prob"]] = self._pool_prob

    def _bind(self) -> None:
        for head in (self._head, *self._pieces):
            self._fill(head)

    def _rebind(self, name: str, value) -> None:
        """Replace buffer ``name`` with the array ``value`` after checking it fits, then re-bind the headers."""
        current = getattr(self, "_" + name)
        if not isinstance(value, np.ndarray) or value.shape != current.shape or value.dtype != current.dtype:
            is_array = isinstance(value, np.ndarray)
            got = f"{value.dtype} array of shape {value.shape}" if is_array else type(value).__name__
            raise ValueError(f"BatchedEnv.{name} must be a {current.dtype} array of shape {current.shape}, got {got}")
        if not (value.flags.c_contiguous and value.flags.aligned and value.flags.writeable):
            raise ValueError(
                f"BatchedEnv.{name} must be C-contiguous, aligned and writeable (the compiled step writes through "
                f"its address); copy it with np.ascontiguousarray first"
            )
        setattr(self, "_" + name, value)
        self._bind()

    @property
    def autoreset(self) -> bool:
        """Finished envs restart inside ``step``; when False they wait for ``reset_envs``."""
        return self._autoreset

    @autoreset.setter
    def autoreset(self, value: bool) -> None:
        self._autoreset = bool(value)
        self._bind()

    @property
    def keep_final(self) -> bool:
        """Finished envs also write their final observation to ``final_obs`` (fixed at construction)."""
        return self._keep_final

    # -- episodes -----------------------------------------------------------------
    def reset(self, seed: int | None = None):
        """Start fresh episodes in every env; returns ``(obs, mask)``."""
        if seed is not None:
            self.seed = int(seed)
        self._acc[:] = 0.0
        self._fresh(self._all, _seed_states(np.uint64(self.seed % 2**64), self._all))
        return self.obs, self.mask

    def reset_envs(self, indices, records: np.ndarray | None = None, validate: bool = False) -> None:
        """Per env: start its next episode (continuing its own generator, as auto-reset does), or load ``records``
        (``validate``: see :meth:`restore`)."""
        idx = self._indices(indices)
        if records is None:
            self._fresh(idx, self.records["rng"][idx].copy())
        else:
            self.restore(idx, records, validate)

    def _fresh(self, idx: np.ndarray, states: np.ndarray) -> None:
        self.done[idx] = False
        self._k.batch_reset(self.records, self.cfg, self._blank, states, self.obs, self.mask, idx)

    def set_reset_pool(self, records: np.ndarray | None, prob: float = 1.0, validate: bool = False) -> None:
        """Auto-reset loads a random record of ``records`` with probability ``prob``.

        The loaded record keeps the env's own generator state, so restarts from
        one stored state diverge. ``None`` clears the pool. ``validate``: check
        the records first, as :meth:`restore` does.
        """
        if records is None or len(records) == 0:
            self._pool = np.zeros(0, self.env_cls.record_dtype)
            self._bind()
            return
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"reset pool prob must be in [0, 1], got {prob}")
        if validate:
            self._validate(records, "the records given to set_reset_pool")
        self._pool = self._as_records(records).copy()  # a fresh C-contiguous copy: the step reads its address
        self._pool_prob = float(prob)
        self._bind()

    def step(self, actions):
        """Advance every env one tick with ``actions`` [rows, heads] (ints).

        Returns ``(obs, rewards, terminals, truncations, mask, info)``; ``info``
        aggregates the episodes that finished in this call (empty if none):
        ``episodes`` (count), ``episode_return`` (mean over learner seats),
        ``episode_length`` (ticks), each metric's mean, and ``phase/<name>``
        (how many ended in that phase).
        """
        acts = actions
        if (
            type(acts) is not _NDARRAY
            or acts.dtype is not _INT32
            or acts.shape != self._act_shape
            or not acts.flags.c_contiguous
        ):
            acts = self._convert_actions(actions)
        if self._workers is None:
            status = self._step_one(self._head, acts)  # -1 - episodes ended, or the first bad action row
            if status >= 0:
                raise ValueError(self._bad_action_message(acts, status))
        else:
            status = self._step_slices(acts)
        # this step's sums (sum_chunks overwrites them at each step that ends episodes) as the info dict
        info = self._episode_info(self._acc_total) if status < -1 else {}
        return self._obs, self._rewards, self._terminals, self._truncations, self._mask, info

    def _step_slices(self, acts: np.ndarray) -> int:
        """The threaded step: check every action first (slices stay in lockstep), step the slices at once,
        sum their episode stats in chunk order; returns -1 - episodes ended, as the one-call step does."""
        bad = self._k.first_bad(acts, self.heads.sizes)
        if bad >= 0:
            raise ValueError(self._bad_action_message(acts, bad))
        status = self._workers.run(acts)  # per piece: -1 - episodes ended
        ended = -len(status) - int(status.sum())
        if ended:
            sum_chunks(self._acc)
        return -1 - ended

    # -- snapshots ----------------------------------------------------------------
    def snapshot(self, indices=None) -> np.ndarray:
        """Copies of the records of ``indices`` (all envs by default)."""
        if indices is None:
            return self.records.copy()
        return self.records[self._indices(indices)]

    def restore(self, indices, records: np.ndarray, validate: bool = False) -> None:
        """Assign ``records`` to ``indices`` and refresh their observations.

        Kernels trust the records they are given: an index out of range in a
        compiled kernel reads or writes outside its array. Records from outside
        this process (a file, another program) must be checked first: with
        ``validate=True`` (a :class:`~sparring.kit.trust.BadState` names the bad
        record and field), or with :func:`sparring.kit.trust.validate_states`,
        which the project's loaders (checkpoints, recordings, archives, state
        sets) call with the file's name before any record gets here.
        """
        idx = self._indices(indices)
        if validate:
            self._validate(records, "the records given to restore")
        recs = self._as_records(records)
        if len(recs) != len(idx):
            raise ValueError(f"restore got {len(recs)} records for {len(idx)} indices")
        if indices is None:
            self.records[:] = recs
        else:
            self.records[idx] = recs
        self.done[idx] = False
        self._k.batch_observe(self.records, self.cfg, self.obs, self.mask, idx)

    def clone(self, src, dst) -> None:
        """Copy the state of env(s) ``src`` into env(s) ``dst`` (one source may fill many)."""
        recs, dst_idx = self.records[self._indices(src)], self._indices(dst)
        if len(recs) == 1:
            recs = np.repeat(recs, len(dst_idx))
        self.restore(dst_idx, recs)

    # -- scripted policies and slow paths ------------------------------------------
    def scripted_actions(self, name: str, out: np.ndarray | None = None) -> np.ndarray:
        """Actions [rows, heads] of the env's scripted policy ``name`` for the current states."""
        if name not in self._k.policy_names:
            raise ValueError(
                f"env {self.env_cls.name!r} has no scripted policy {name!r}; known: {self._k.policy_names}"
            )
        if out is None:
            out = np.zeros((self.rows, len(self.heads.sizes)), np.int32)
        getattr(self._k, f"scripted_{self._k.policy_names.index(name)}")(self.records, self.cfg, out)
        return out

    def render_ansi(self, index: int = 0) -> str:
        """Text picture of env ``index`` (the env's ``render_ansi``)."""
        return self.env_cls.render_ansi(self.records[index], self.config)

    def describe(self, index: int = 0, agent: int = 0) -> str:
        """Text description of env ``index`` for ``agent``."""
        return self.env_cls.describe(self.records[index], self.config, agent)

    # -- validation ----------------------------------------------------------------
    def _indices(self, indices) -> np.ndarray:
        if indices is None:
            return self._all
        idx = np.atleast_1d(np.asarray(indices))
        if idx.dtype == np.bool_ or not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"env indices must be integers, got dtype {idx.dtype}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_envs):
            raise IndexError(f"env indices must be in [0, {self.num_envs}), got {idx.tolist()[:8]}")
        return idx.astype(np.int64)

    def _validate(self, records, source: str) -> None:
        validate_states(self.env_cls, self.config, np.atleast_1d(np.asarray(records)), source)

    def _as_records(self, records) -> np.ndarray:
        recs = np.atleast_1d(np.asarray(records))
        if recs.dtype != self.env_cls.record_dtype:
            raise TypeError(f"records have dtype {recs.dtype}, expected the record dtype of env {self.env_cls.name!r}")
        return recs

    def _convert_actions(self, actions) -> np.ndarray:
        """Validate shape and dtype, check ranges before any narrowing, return C int32."""
        acts = np.asarray(actions)
        n_heads = len(self.heads.sizes)
        if acts.ndim == 1 and n_heads == 1:
            acts = acts.reshape(-1, 1)
        if acts.shape != self._act_shape:
            raise ValueError(
                f"actions must have shape {self._act_shape} = (num_envs*num_agents, heads "
                f"{list(self.heads.names)}), got {acts.shape}"
            )
        if not np.issubdtype(acts.dtype, np.integer):
            raise TypeError(f"actions must be integers, got dtype {acts.dtype}")
        bad = first_bad_action(acts, self.heads.sizes)
        if bad >= 0:
            raise ValueError(self._bad_action_message(acts, bad))
        return np.ascontiguousarray(acts, dtype=np.int32)

    def _bad_action_message(self, acts: np.ndarray, row: int) -> str:
        sizes = dict(zip(self.heads.names, self.heads.sizes.tolist()))
        return f"action row {row} is {acts[row].tolist()}; head sizes are {sizes} (valid values 0..size-1)"
