"""What an env author declares: observation, action heads, state record, config.

An env is a subclass of :class:`Env` with class attributes and Numba kernels.
``__init_subclass__`` validates the declaration at import time, so a mistake is
reported where it was made, not at the first step.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, ClassVar

import numpy as np
from numba import njit
from numba.core import types
from numba.core.registry import CPUDispatcher

from sparring.kit.cache import mark

KIT_FIELDS = ("rng", "tick", "phase")
# Numba options of kernels and helpers. No cfunc wrapper: they are called from compiled code (and tests call
# them from Python, through the CPython wrapper), never passed around as first-class C functions, and the
# wrapper Numba builds by default costs each compiled function about a quarter of its fixed compile cost.
_OPTIONS = {"cache": True, "error_model": "numpy", "no_cfunc_wrapper": True}


class HelperDispatcher(CPUDispatcher):
    """A helper's dispatcher: a call from compiled code with a constant argument (a module constant such as
    ``FARM``, a literal ``3``) compiles the version for the constant's type (int64), not one version per value.

    Numba types a constant argument as its literal value, so ``at_place(s, a, FARM)`` and ``at_place(s, a, WELL)``
    were two compiled functions (town compiled ``at_place`` eight times, each a unit of its own with its fixed
    cost). A helper never needs the value at compile time: LLVM still folds it where the helper is inlined.
    """

    def get_call_template(self, args, kws):
        unliteral = tuple(types.unliteral(a) for a in args)
        return super().get_call_template(unliteral, {k: types.unliteral(v) for k, v in kws.items()})


def kernel(fn: Callable) -> Any:
    """Compile an env kernel (``reset``, ``step``, ``observe``, a scripted policy, a small helper).

    Kernels run over ONE record ``s`` and are inlined into the kit's batched
    loops at Numba's IR level, which is fastest for small code. Larger rule
    code belongs in :func:`helper` functions, which compile once each.
    """
    return njit(**_OPTIONS, inline="always")(mark(fn))


def helper(fn: Callable) -> Any:
    """Compile a larger rule function called from kernels, as a function of its own.

    IR-level inlining copies a kernel into every call site; for big or deeply
    nested rules that multiplies compile time, so use ``helper`` there (LLVM
    still inlines where it pays). Numba compiles one version per argument
    types: pass the same types from every call site to keep that to one (a
    constant counts as its type, e.g. int64, not as its value: see
    :class:`HelperDispatcher`).
    """
    options = {k: v for k, v in _OPTIONS.items() if k != "cache"}
    dispatcher = HelperDispatcher(mark(fn), locals={}, targetoptions={"nopython": True, "boundscheck": None, **options})
    dispatcher.enable_caching()
    return dispatcher


@dataclasses.dataclass(frozen=True)
class Obs:
    """Per-agent observation: a flat vector of ``size`` values of ``dtype`` in [low, high]."""

    size: int
    dtype: Any = np.float32
    low: float = -np.inf
    high: float = np.inf

    def __post_init__(self):
        if int(self.size) <= 0:
            raise ValueError(f"Obs size must be a positive int, got {self.size!r}")
        object.__setattr__(self, "dtype", np.dtype(self.dtype))


class Heads:
    """Multi-discrete action heads, in order: ``Heads(move=5, attack=4)``."""

    def __init__(self, **sizes: int):
        if not sizes:
            raise ValueError("Heads needs at least one head, e.g. Heads(move=5)")
        for name, n in sizes.items():
            if not isinstance(n, (int, np.integer)) or n < 1:
                raise ValueError(f"action head {name!r} must have a positive int size, got {n!r}")
        self.names = tuple(sizes)
        self.sizes = np.array([int(n) for n in sizes.values()], dtype=np.int32)

    @property
    def total(self) -> int:
        """Length of the flat action mask: the sum of head sizes."""
        return int(self.sizes.sum())

    @property
    def offsets(self) -> np.ndarray:
        """Where each head's slice of the flat mask starts."""
        return np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int32)

    def __repr__(self) -> str:
        return "Heads(" + ", ".join(f"{n}={s}" for n, s in zip(self.names, self.sizes)) + ")"


@dataclasses.dataclass
class NoConfig:
    """An env without knobs."""


def choice(default: str, choices: tuple[str, ...], doc: str) -> Any:
    """A string config field stored in kernels as the index of its value in ``choices``."""
    if default not in choices:
        raise ValueError(f"default {default!r} is not one of {choices}")
    return dataclasses.field(default=default, metadata={"choices": tuple(choices), "doc": doc})


def knob(default: Any, doc: str, low: float | None = None, high: float | None = None) -> Any:
    """A numeric or bool config field with its documentation; a number must lie in [``low``, ``high``] when given
    (and be finite: a float knob never takes NaN or infinity)."""
    bounds = {} if low is None and high is None else {"range": (low, high)}
    return dataclasses.field(default=default, metadata={"doc": doc, **bounds})


class Env:
    """Base class of every environment: declarations plus kernels over one record.

    Class attributes to declare:
      name: registry name; num_agents: agent rows per env; seats: a name per
      agent row (default ``("player",)`` for one agent, ``seat0, seat1...`` for more);
      obs: an :class:`Obs`, or a function of the config returning one;
      actions: :class:`Heads`; state: ``{field: dtype | (dtype, shape)}``;
      bounds: the valid range of state fields, ``{field: (low, high)}`` (inclusive; a bound
      may be an array broadcast over the field's shape, None for the dtype's limit), or a
      function of the config returning one (``staticmethod`` or ``classmethod``). Every
      field a kernel uses as an index or a loop bound needs one: states read from files are
      checked against them before a kernel sees them (:mod:`sparring.kit.trust`), since an
      out-of-range index in a compiled kernel reads or writes outside its array;
      phases: phase names (``s.phase`` indexes them); metrics: episode metric
      names (``s.metrics[i]``, reported when an episode ends);
      Config: a dataclass of knobs; scripted: ``{name: kernel}`` policies
      ``(s, cfg, agent, act)``; best_scripted: the strongest of them.
    Kernels (static, compiled with :func:`kernel`):
      ``reset(s, cfg)``, ``step(s, cfg, act, rew, term, trunc)`` with ``act``
      of shape [agents, heads] and per-agent ``rew/term/trunc``, and
      ``observe(s, cfg, obs, mask)`` with [agents, ...] views.
    learner_seats(cfg): seats fed from outside (default all); the env plays the
      others itself, inside the kernels. outcome(seat, returns, metrics): win/loss/draw
      of one seat per episode (default: see :meth:`Env.outcome`).
    Optional slow paths (plain Python over one record ``s`` and config ``cfg``):
      ``render_ansi(s, cfg)``, ``render_rgb(s, cfg)``, ``describe(s, cfg, agent)``,
      ``invariants(s, cfg)`` -> list of messages, ``cell(s, cfg)`` -> hashable,
      ``draw(s, cfg)`` -> shapes for the HTML viewer.
    Text face (optional; language-model brains, distill, GRPO, judge and the servers need it):
      text: a subclass of :class:`sparring.kit.text.TextFace` (what a seat sees in words, its legal lines,
      parsing answers back; success, progress and goals for training).
    Analyses (optional; the judge of envs of more than two seats runs them): tally: a subclass of
      :class:`sparring.kit.tally.SeatTally`; ``emergence``, ``format_emergence``, ``emergence_plots``
      (see :mod:`sparring.kit.tally`).
    Start groups (optional; start-state curricula group the states they restart from by them):
      start_group_key: what the key means (e.g. ``"wave"``; ``""``: one group);
      ``start_groups(records)`` -> int64 key per record (default: all 0).
    """

    name: ClassVar[str]
    num_agents: ClassVar[int] = 1
    seats: ClassVar[tuple[str, ...]] = ()
    obs: ClassVar[Any]
    actions: ClassVar[Heads]
    state: ClassVar[dict]
    bounds: ClassVar[Any] = {}
    phases: ClassVar[tuple] = ("play",)
    metrics: ClassVar[tuple] = ()
    Config: ClassVar[type] = NoConfig
    scripted: ClassVar[dict] = {}
    best_scripted: ClassVar[str | None] = None
    start_group_key: ClassVar[str] = ""

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "name" not in cls.__dict__:
            return  # an intermediate base class
        if "seats" not in cls.__dict__ and len(cls.seats) != int(cls.num_agents):  # not declared, nor inherited
            cls.seats = ("player",) if int(cls.num_agents) == 1 else tuple(f"seat{i}" for i in range(cls.num_agents))
        _validate(cls)
        cls.record_dtype = build_record_dtype(cls)
        cls.cfg_dtype = build_config_dtype(cls.Config)

    @classmethod
    def obs_spec(cls, config: Any) -> Obs:
        """The observation spec for this config."""
        return cls.obs(config) if callable(cls.obs) else cls.obs

    @classmethod
    def learner_seats(cls, config: Any) -> tuple[int, ...]:
        """Seats whose actions come from outside (all by default).

        An env whose config hands some seats to a scripted policy inside the
        kernels (e.g. ``opponent="robot"``) returns the others; the actions given
        for scripted seats are ignored, and trainers learn only from learner rows.
        """
        return tuple(range(cls.num_agents))

    @classmethod
    def outcome(cls, seat: int, returns: np.ndarray, metrics: np.ndarray) -> np.ndarray:
        """Per episode, 0 (win), 1 (loss) or 2 (draw) for ``seat``, from its own return and the episode metrics.

        ``returns`` are that seat's episode returns [N] and ``metrics`` the env metrics
        [N, len(metrics)]. By default seat 0 reads the env's ``win`` metric (and ``draw``
        if declared), else its ``success`` metric; every other seat, and seat 0 without
        those metrics, goes by the sign of its own return. Never a mean across seats.
        """
        names = list(cls.metrics)
        if seat == 0 and ("win" in names or "success" in names):
            won = metrics[:, names.index("win" if "win" in names else "success")] > 0.5
            drawn = metrics[:, names.index("draw")] > 0.5 if "draw" in names else np.zeros_like(won)
            return np.where(won, 0, np.where(drawn, 2, 1))
        return np.where(returns > 0, 0, np.where(returns < 0, 1, 2))

    @staticmethod
    def start_groups(records: np.ndarray) -> np.ndarray:
        """The start group of each record (int64 [N]), named by ``start_group_key``; by default all 0 (one group).

        A start-state curriculum (:mod:`sparring.train.curriculum`) keeps the learner's success per
        group and draws more starts from groups where it is neither near 0 nor near 1: a key
        should follow the encounter's progress (gauntlet: the wave), with few distinct values.
        """
        return np.zeros(len(records), np.int64)

    @staticmethod
    def invariants(s, cfg) -> list[str]:
        """Messages for violated invariants; none declared by default."""
        return []

    @staticmethod
    def draw(s, cfg) -> list[dict] | None:
        """The frame of record ``s`` as shapes for the HTML episode viewer; None (the default): no drawing.

        Shapes are dicts in world units (x right, y down; the viewer fits the
        union of every frame's shapes to its canvas), drawn in order:
        ``{"type": "rect", "x", "y", "w", "h"}``, ``{"type": "circle", "x", "y", "r"}``,
        ``{"type": "line", "x1", "y1", "x2", "y2"}``, ``{"type": "text", "x", "y", "text"}``
        (``size`` in world units), ``{"type": "bar", "x", "y", "w", "h", "value", "max"}``
        (a meter filled to value/max, optional ``label``), ``{"type": "arrow", "x1", "y1", "x2", "y2"}``;
        optional ``fill``, ``stroke`` (CSS colours) and ``width`` (line width in world units); any
        shape may carry ``log`` (a line for the viewer's event log of that tick) and ``kind``.
        An override may take a third argument, ``draw(s, cfg, before)``: the viewer then also passes
        the previous recorded state (None on an episode's first), to show what happened in between.
        Without it the viewer shows ``render_ansi`` text.
        """
        return None


def _validate(cls: type) -> None:
    where = f"env {cls.__name__}"
    for attr in ("actions", "state", "obs"):
        if not hasattr(cls, attr):
            raise TypeError(f"{where} must declare `{attr}`")
    for k in ("reset", "step", "observe"):
        if not hasattr(getattr(cls, k, None), "py_func"):
            raise TypeError(f"{where}: `{k}` must be a kernel (decorate it with @kernel)")
    if not isinstance(cls.actions, Heads):
        raise TypeError(f"{where}: `actions` must be Heads(...), got {cls.actions!r}")
    if int(cls.num_agents) < 1:
        raise ValueError(f"{where}: num_agents must be >= 1, got {cls.num_agents}")
    if not cls.phases:
        raise ValueError(f"{where}: phases needs at least one name")
    seats = tuple(cls.seats)
    if (
        len(seats) != int(cls.num_agents)
        or len(set(seats)) != len(seats)
        or not all(isinstance(n, str) and n.isidentifier() for n in seats)
    ):
        raise ValueError(f"{where}: seats must be {cls.num_agents} distinct names (letters, digits, _), got {seats!r}")
    clash = set(cls.state) & (set(KIT_FIELDS) | {"ep_return", "metrics"})
    if clash:
        raise ValueError(f"{where}: state fields {sorted(clash)} are reserved by the kit")
    private = [name for name in cls.state if name.startswith("_")]
    if private:
        raise ValueError(f"{where}: state fields {private} start with '_', which the kit keeps for padding")
    if not (callable(cls.bounds) or isinstance(cls.bounds, dict)):
        raise TypeError(f"{where}: bounds must be a dict {{field: (low, high)}} or a function of the config")
    if isinstance(cls.bounds, dict):
        unknown = sorted(set(cls.bounds) - set(cls.state))
        bad = [name for name, pair in cls.bounds.items() if not (isinstance(pair, tuple) and len(pair) == 2)]
        if unknown or bad:
            raise ValueError(
                f"{where}: bounds must map state fields to (low, high) pairs; unknown fields "
                f"{unknown}, not pairs {bad} (the kit bounds rng, tick and phase itself)"
            )
    if not dataclasses.is_dataclass(cls.Config):
        raise TypeError(f"{where}: Config must be a dataclass")
    for name, fn in cls.scripted.items():
        if not hasattr(fn, "py_func"):
            raise TypeError(f"{where}: scripted policy {name!r} must be a kernel")
    if not isinstance(cls.start_group_key, str):
        raise TypeError(f"{where}: start_group_key must be a string (e.g. 'wave'), got {cls.start_group_key!r}")
    if cls.best_scripted is not None and cls.best_scripted not in cls.scripted:
        raise ValueError(f"{where}: best_scripted {cls.best_scripted!r} is not in scripted {sorted(cls.scripted)}")


def build_record_dtype(cls: type) -> np.dtype:
    """One aligned structured dtype: kit fields, the env's state, episode return, metrics.

    Alignment gaps become explicit ``_padN`` byte fields, so every byte of a
    record belongs to a field: compiled record copies then carry all of them,
    and equal states have equal bytes.
    """
    fields = [("rng", np.uint64), ("tick", np.int32), ("phase", np.int32)]
    for name, spec in cls.state.items():
        fields.append((name, np.dtype(spec[0]), spec[1]) if isinstance(spec, tuple) else (name, np.dtype(spec)))
    fields.append(("ep_return", np.float32, (int(cls.num_agents),)))
    fields.append(("metrics", np.float32, (max(1, len(cls.metrics)),)))
    return _explicitly_padded(fields)


def _explicitly_padded(fields: list) -> np.dtype:
    out, offset, pads = [], 0, 0
    for field in fields:
        base = np.dtype(field[1])
        gap = -offset % base.alignment
        if gap:
            out.append((f"_pad{pads}", np.uint8, (gap,)))
            pads, offset = pads + 1, offset + gap
        out.append(field)
        offset += np.dtype((base, field[2])).itemsize if len(field) == 3 else base.itemsize
    if offset % 8:
        out.append((f"_pad{pads}", np.uint8, (8 - offset % 8,)))
    dtype = np.dtype(out, align=True)
    assert dtype.itemsize == sum(dtype.fields[n][0].itemsize for n in dtype.names), "record has hidden padding"
    return dtype


def build_config_dtype(config_cls: type) -> np.dtype:
    """The config as a numeric record: bools as u1, ints as i8, floats as f8, choices as i8."""
    fields = []
    for f in dataclasses.fields(config_cls):
        if "choices" in f.metadata:
            fields.append((f.name, np.int64))
        elif f.type in (bool, "bool"):
            fields.append((f.name, np.bool_))
        elif f.type in (int, "int"):
            fields.append((f.name, np.int64))
        elif f.type in (float, "float"):
            fields.append((f.name, np.float64))
        else:
            raise TypeError(f"config field {f.name!r} has type {f.type!r}; valid: int, float, bool, or choice(...)")
    if not fields:
        fields.append(("_unused", np.int64))
    return np.dtype(fields, align=True)
