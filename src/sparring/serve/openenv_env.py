"""Any sparring env with a text face as an OpenEnv ``Environment``: one env per session, one learning seat.

A session plays one seat (``reset(seat=...)``, seat 0 by default); the env plays the
others where it can (its face's ``configure``) and the env's best scripted player takes
any other seat fed from outside. Each observation carries the seat's prompt (the face's
view and its legal lines), the structured observation and mask for non-LM clients, the
reward of the seat's last step and every seat's, done, and the env's metrics in
``metadata``. Ticks where the seat does not act (a fainted town character) are played
through, their rewards summed into the next answer.

Exact restored groups: ``state().snapshot`` stores the session's exact state (dice
included) in the server's :class:`~sparring.serve.snapshots.SnapshotStore` and names it;
``reset(snapshot=ID)`` in any session restores it, checked by the kit's trust checks, so
members of a group started from one id differ only by what they choose. Over plain HTTP
(where OpenEnv makes every request its own env, built ``stateless``) the observation of
``/reset`` names its state's snapshot, and ``/step`` takes ``snapshot`` beside the action
and its observation names the new state's: a client with no session plays an episode by
passing each answer's id to the next step.

An action is exactly one of ``line`` (an index into the legal lines), ``text`` (a free
answer, read by the face's ``parse``), ``action`` (one value per head, checked against
the mask) or ``scripted`` (the env's best scripted player chooses). Bad input raises
:class:`~sparring.serve.errors.RequestError` (a 4xx and one line).
"""

from __future__ import annotations

import secrets
import uuid
from typing import Any, Optional

import numpy as np
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import ConfigDict, Field, model_validator

from sparring.kit import registry
from sparring.kit.config import make_config
from sparring.kit.text import require_face
from sparring.kit.trust import BadState
from sparring.lm.learners import filler, learners_env
from sparring.lm.specs import turn
from sparring.players import ScriptedPlayer
from sparring.serve.errors import RequestError
from sparring.serve.snapshots import Snapshot, SnapshotStore

MAX_TEXT = 4096  # characters of a free-text answer
MAX_HEADS = 64
RESET_OPTIONS = ("seed", "episode_id", "seat", "goal", "snapshot")


class SparringAction(Action):
    """Exactly one of ``line``, ``text``, ``action`` or ``scripted`` (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)

    line: Optional[int] = Field(default=None, ge=0, le=1_000_000, description="index into the legal lines")
    text: Optional[str] = Field(default=None, max_length=MAX_TEXT, description="a free answer, parsed by the face")
    action: Optional[list[int]] = Field(default=None, max_length=MAX_HEADS, description="one value per head")
    scripted: bool = Field(default=False, description="let the env's best scripted player choose")

    @model_validator(mode="after")
    def _exactly_one(self):
        given = [self.line is not None, self.text is not None, self.action is not None, self.scripted]
        if sum(given) != 1:
            raise ValueError("give exactly one of line, text, action or scripted=true")
        return self


class SparringObservation(Observation):
    """The seat's turn: its prompt and legal lines, the structured observation and mask, per-seat rewards."""

    env: str = Field(default="", description="the env's registered name")
    seat: int = Field(default=0, description="the seat this session plays")
    seat_name: str = Field(default="", description="its name in reports (town: the character)")
    text: str = Field(default="", description="the seat's view in words and its legal lines (the face's prompt)")
    lines: list[str] = Field(default_factory=list, description="the legal lines, '<label>: <words>'")
    obs: list[float] = Field(default_factory=list, description="the seat's structured observation")
    mask: list[bool] = Field(default_factory=list, description="the seat's flat action mask (sum of head sizes)")
    rewards: list[float] = Field(default_factory=list, description="every seat's reward since the last answer")
    returns: list[float] = Field(default_factory=list, description="every seat's episode return so far")
    tick: int = Field(default=0, description="ticks played in this episode")
    acting: bool = Field(default=True, description="whether the seat decides now (False once done)")
    parsed: str = Field(default="", description="how the last action was read: line, exact, id, contained, ...")
    snapshot: Optional[str] = Field(default=None, description="over plain HTTP /reset and /step: the state's id")


class SparringState(State):
    """The session's episode: env, seat, goal, tick, done, the env config, and ``snapshot``, an id naming this
    exact state (``reset(snapshot=ID)`` restores it)."""

    env: str = ""
    seat: int = 0
    goal: str = "any"
    tick: int = 0
    done: bool = False
    snapshot: Optional[str] = None
    config: dict[str, Any] = Field(default_factory=dict)


class SparringEnvironment(Environment[SparringAction, SparringObservation, SparringState]):
    """One session's env (see the module docstring); ``env`` a registered name, ``config`` its ``--env.KEY``
    values, ``store`` the server's snapshots; ``stateless`` for the env of one plain HTTP request (its reset's
    observation names a snapshot, as its step's does)."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each instance owns its env; the shared store is locked

    def __init__(self, env: str, config: dict, store: SnapshotStore, stateless: bool = False):
        super().__init__()
        self.stateless = bool(stateless)
        self.env_name = env
        self.env_cls = registry.get(env)
        self.face = require_face(self.env_cls)
        self.config = dict(config)
        self.store = store
        self._batch = None
        self._seat, self._goal, self._tick, self._done = 0, "any", 0, False
        self._episode = None
        self._snap_id: str | None = None
        self._fill: list[int] = []
        self._filler = None
        self._rewards = np.zeros(self.env_cls.num_agents)

    # -- the OpenEnv interface ---------------------------------------------------------------
    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> SparringObservation:
        """A fresh episode (``seed``, ``seat``, ``goal``), or the exact state ``snapshot`` names."""
        unknown = sorted(set(kwargs) - set(RESET_OPTIONS))
        if unknown:
            raise RequestError(400, f"unknown reset option(s) {unknown}; known: {list(RESET_OPTIONS)}")
        seat, goal, snapshot = kwargs.get("seat"), kwargs.get("goal"), kwargs.get("snapshot")
        if episode_id is not None and (not isinstance(episode_id, str) or len(episode_id) > 255):
            raise RequestError(422, "episode_id must be text of at most 255 characters")
        if snapshot is not None:
            self._restore(snapshot, seat, goal)
        else:
            self._fresh(seed, seat, "any" if goal is None else goal)
        self._episode = episode_id or str(uuid.uuid4())
        self._rewards[:] = 0.0
        self._snap_id = None
        self._play_through()
        out = self._observe(0.0, "reset")
        if self.stateless:
            out.snapshot = self._save()
        return out

    def step(
        self, action: SparringAction, timeout_s: Optional[float] = None, snapshot: Optional[str] = None, **kwargs: Any
    ) -> SparringObservation:
        """Play the seat's ``action`` for one tick (then through ticks where it does not act); with ``snapshot``
        (stateless HTTP), from that state, naming the new state's snapshot in the observation."""
        if kwargs:
            raise RequestError(400, f"unknown step option(s) {sorted(kwargs)}; known: timeout_s, snapshot")
        if snapshot is not None:
            self._restore(snapshot, None, None)
            self._episode, self._snap_id = str(uuid.uuid4()), None
        if self._batch is None:
            raise RequestError(
                409,
                "no episode yet: reset first (over plain HTTP each request is a new env: pass the last answer's "
                "observation.snapshot as snapshot)",
            )
        if self._done:
            raise RequestError(409, "the episode is over (done); reset to start another")
        if not isinstance(action, SparringAction):
            raise RequestError(422, "the action must be a SparringAction")
        move, how = self._resolve(action)
        self._rewards[:] = 0.0
        self._tick_once(move)
        self._play_through()
        self._snap_id = None
        out = self._observe(float(self._rewards[self._seat]), how)
        if snapshot is not None:
            out.snapshot = self._save()
        return out

    @property
    def state(self) -> SparringState:
        """The episode's state, with ``snapshot`` naming it (stored on first ask after each change)."""
        snap = self._save() if self._batch is not None else None
        return SparringState(
            episode_id=self._episode,
            step_count=self._tick,
            env=self.env_name,
            seat=self._seat,
            goal=self._goal,
            tick=self._tick,
            done=self._done,
            snapshot=snap,
            config=self.config,
        )

    def get_metadata(self) -> EnvironmentMetadata:
        """The env's name and its face's instructions."""
        doc = (self.env_cls.__doc__ or "").strip().splitlines()
        return EnvironmentMetadata(
            name=f"sparring:{self.env_name}",
            description=self.face.instructions or (doc[0] if doc else self.env_name),
            version="1",
            documentation_url="docs/openenv.md",
        )

    # -- episodes -----------------------------------------------------------------------------
    def _seat_index(self, seat) -> int:
        if seat is None:
            return 0
        names = list(self.env_cls.seats)
        shown = list(self.face.seat_names(self.env_cls))
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names):
            return seat
        if isinstance(seat, str) and seat in names:
            return names.index(seat)
        if isinstance(seat, str) and seat in shown:
            return shown.index(seat)
        raise RequestError(
            400, f"unknown seat {str(seat)[:40]!r}; seats of {self.env_name}: {names} or 0..{len(names) - 1}"
        )

    def _build(self, seed: int, seat: int, goal: str):
        try:
            self._batch = learners_env(1, seed, [seat], self.env_name, goal, **self.config)
        except ValueError as exc:
            raise RequestError(400, str(exc)) from None
        b = self._batch
        self._fill, self._filler = filler(b, [seat], seed)
        self._seat, self._goal, self._tick, self._done = seat, goal, 0, False

    def _fresh(self, seed, seat, goal) -> None:
        if seed is None:
            seed = secrets.randbelow(2**31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise RequestError(422, f"seed must be an integer in [0, 2**63), got {str(seed)[:40]!r}")
        if not isinstance(goal, str):
            raise RequestError(422, f"goal must be text, got {type(goal).__name__}")
        self._build(seed, self._seat_index(seat), goal)

    def _restore(self, sid, seat, goal) -> None:
        snap = self.store.get(sid, self.env_name)
        if snap.config != _config_key(self.config):
            raise RequestError(400, f"snapshot {sid!r} was taken under another config of {self.env_name}")
        if seat is not None and self._seat_index(seat) != snap.seat:
            raise RequestError(400, f"snapshot {sid!r} is a state of seat {snap.seat}; leave seat out to play it")
        if goal is not None and goal != snap.goal:
            raise RequestError(400, f"snapshot {sid!r} keeps its goal {snap.goal!r}; leave goal out")
        self._build(0, snap.seat, "any")
        try:
            self._batch.restore([0], snap.record, validate=True)
        except BadState as exc:
            raise RequestError(400, f"snapshot {sid!r} failed the kit's trust checks: {exc}") from None
        self._goal, self._tick, self._done = snap.goal, snap.tick, snap.done

    def _save(self) -> str:
        if self._snap_id is None:
            snap = Snapshot(
                self.env_name,
                _config_key(self.config),
                self._seat,
                self._goal,
                self._batch.snapshot([0]),
                self._done,
                self._tick,
            )
            self._snap_id = self.store.put(snap)
        return self._snap_id

    def _acting(self) -> bool:
        return not self._done and bool(self.face.acting(self._batch.records[0], self._batch.config, self._seat))

    def _tick_once(self, move: np.ndarray | None) -> None:
        b = self._batch
        acts = np.zeros((b.rows, len(b.heads.sizes)), np.int32)
        if move is not None:
            acts[self._seat] = move
        if self._filler is not None:
            rows = np.asarray(self._fill, np.int64)
            acts[rows] = self._filler.act(b, rows)
        b.step(acts)
        self._rewards += b.rewards[: b.num_agents]
        self._tick += 1
        self._done = bool(b.done[0])

    def _play_through(self) -> None:
        while not self._done and not self._acting():
            self._tick_once(None)

    # -- actions and observations -------------------------------------------------------------
    def _resolve(self, action: SparringAction) -> tuple[np.ndarray, str]:
        b, rec, cfg, seat = self._batch, self._batch.records[0], self._batch.config, self._seat
        heads = b.heads.sizes
        if action.scripted:
            best = self.env_cls.best_scripted
            if not best:
                raise RequestError(400, f"env {self.env_name!r} has no scripted player; send line, text or action")
            return ScriptedPlayer(b, best).act(b, np.array([seat]))[0], "scripted"
        if action.action is not None:
            values = action.action
            if len(values) != len(heads):
                raise RequestError(
                    400, f"action needs {len(heads)} values (heads {list(b.heads.names)}), got {len(values)}"
                )
            starts = np.concatenate([[0], np.cumsum(heads)[:-1]])
            for name, v, size, start in zip(b.heads.names, values, heads, starts):
                if not 0 <= v < size or not b.mask[seat, start + v]:
                    raise RequestError(400, f"action value {v} of head {name!r} is not allowed now (see mask)")
            return np.asarray(values, np.int32), "action"
        lines = self.face.lines(rec, cfg, seat)
        if action.line is not None:
            if action.line >= len(lines):
                raise RequestError(400, f"line {action.line} is not legal now; legal lines are 0..{len(lines) - 1}")
            return np.asarray(lines[action.line].action, np.int32), "line"
        parsed = self.face.parse(action.text, rec, cfg, seat)
        if parsed.index is None:
            raise RequestError(400, f"the answer matches no legal line: {parsed.detail.splitlines()[0][:200]}")
        return np.asarray(parsed.action, np.int32), parsed.how

    def _observe(self, reward: float, how: str) -> SparringObservation:
        b, seat = self._batch, self._seat
        rec, cfg = b.records[0], b.config
        acting = self._acting()
        seen = turn(self.env_cls, rec, cfg, seat) if acting else None
        text = seen.text if acting else self.face.describe(rec, cfg, seat)
        names = list(self.env_cls.metrics)
        metrics = np.asarray(rec["metrics"], np.float64)[: len(names)]
        meta: dict[str, Any] = {"metrics": {n: float(v) for n, v in zip(names, metrics)}, "episode_id": self._episode}
        if self._done:
            meta["success"] = bool(self.face.success(self.env_cls, rec, cfg, seat))
            text += "\nThe episode is over."
        return SparringObservation(
            done=self._done,
            reward=float(reward),
            metadata=meta,
            env=self.env_name,
            seat=seat,
            seat_name=str(self.face.seat_names(self.env_cls)[seat]),
            text=text,
            lines=seen.lines if acting else [],
            obs=b.obs[seat].astype(np.float64).tolist(),
            mask=b.mask[seat].tolist(),
            rewards=self._rewards.astype(np.float64).tolist(),
            returns=np.asarray(rec["ep_return"], np.float64).tolist(),
            tick=self._tick,
            acting=acting,
            parsed=how,
        )


def _config_key(config: dict) -> tuple:
    return tuple(sorted((str(k), str(v)) for k, v in config.items()))


def check_env(env: str, config: dict) -> dict:
    """``config`` checked against ``env`` (registered, with a text face, the keys and values valid): a one-line
    ValueError otherwise. Returns the config as given (each session builds its env from it)."""
    cls = registry.get(env)
    require_face(cls)
    make_config(cls, dict(config))
    return dict(config)
