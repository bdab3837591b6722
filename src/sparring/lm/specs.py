"""Brains for any env with a text face: a seat's turn in words, brain specs, and a choosing local model.

A seat's turn in words is :func:`turn` (the face's ``describe`` plus its legal
lines as ``"<label>: <words>"``); a text brain answers with one line.
:func:`make_brain` turns a spec (any player spec of :mod:`sparring.players`,
``scripted`` alone for the env's best scripted player, ``openai:URL:MODEL``,
``local:DIR``, ``local:FILE.gguf``, or an installed model's name such as ``smollm2``) into a
:class:`~sparring.players.Player`.
"""

from __future__ import annotations

import dataclasses
import os
import re

import numpy as np

from sparring.kit.batch import BatchedEnv
from sparring.kit.net import check_http_url
from sparring.kit.text import require_face
from sparring.lm.brains import Observations
from sparring.lm.decisions import COUNT
from sparring.lm.model_spec import named_model
from sparring.lm.prompts import PROMPTS
from sparring.lm.text_brain import BrainStats
from sparring.players.make import check_player, make_player, player_specs

DEFAULT_NOISE = 0.3  # a default teacher's chance of a uniformly random legal action instead of its own
KEY_ENV = "OPENAI_API_KEY"
TEXT_SPECS = "openai:URL:MODEL, local:DIR, local:FILE.gguf or smollm2 (after `make smollm2`)"


def specs_of(env_cls) -> str:
    """The valid brain specs of an env, for error messages and help."""
    return f"scripted (its best), {player_specs(env_cls)}, {TEXT_SPECS}"


@dataclasses.dataclass(frozen=True)
class Turn:
    """One seat's decision: the prompt, and its legal actions (one value per head) with their text lines."""

    text: str
    actions: list[tuple[int, ...]]
    lines: list[str]

    def index_of(self, action) -> int:
        """The position of ``action`` among the legal actions (ValueError if it is not one)."""
        return self.actions.index(tuple(int(v) for v in np.atleast_1d(action)))


def turn(env_cls, s, cfg, agent: int, prompt: str = "full") -> Turn:
    """Seat ``agent``'s turn in record ``s``, in one of :data:`PROMPTS`: "full" is the face's ``describe`` and
    its legal lines listed as ``"<label>: <words>"`` (the lines answered); "compact" is the face's ``brief`` alone,
    answered by the lines' words (a choosing brain scores every legal line, so listing them only costs tokens)."""
    face = require_face(env_cls)
    lines = face.lines(s, cfg, agent)
    actions = [x.action for x in lines]
    if prompt == "compact":
        return Turn(face.brief(s, cfg, agent), actions, [line.words for line in lines])
    if prompt != "full":
        raise ValueError(f"prompt must be one of {PROMPTS}, got {prompt!r}")
    texts = [line.text(i) for i, line in enumerate(lines)]
    return Turn(face.describe(s, cfg, agent) + "\nLegal actions:\n" + "\n".join(texts), actions, texts)


def prompt_text(env: BatchedEnv, index: int, agent: int) -> str:
    """The prompt of a text brain for ``agent`` of env ``index`` (a ``TextFn`` for Observations)."""
    return turn(env.env_cls, env.records[index], env.config, agent).text


def parse(answer: str, batch: Observations, i: int):
    """The env face's ``parse`` as a text brain's parser: the action (one value per head), or None."""
    env, row = batch.env, int(batch.rows[i])
    face = require_face(env.env_cls)
    return face.parse(answer, env.records[row // env.num_agents], env.config, row % env.num_agents).action


class Continuing:
    """Each seat's last action and its tick, so that in the compact prompt an action the face says
    :meth:`~sparring.kit.text.TextFace.continues` goes on without asking the model (one decision fewer).

    Seats are keyed by anything hashable (a row of a batch); an action is kept only on the tick right after the
    one it was taken on, so a reset or a restored state starts deciding again."""

    def __init__(self):
        self._last: dict = {}

    def kept(self, face, s, cfg, agent: int, key):
        """The seat's previous action (a tuple) if it was taken on the tick before and goes on now, else None."""
        last = self._last.get(key)
        if last is not None and last[0] == int(s["tick"]) - 1 and face.continues(s, cfg, agent, last[1]):
            return last[1]
        return None

    def took(self, key, s, action) -> None:
        """Note that seat ``key`` acts ``action`` on record ``s``'s tick."""
        self._last[key] = (int(s["tick"]), tuple(int(v) for v in np.atleast_1d(action)))


class ChoiceBrain:
    """A local model that picks one legal line per turn by scoring them all (never unparseable).

    ``temperature`` 0 takes the most likely line; above 0 it samples from
    ``softmax(scores / temperature)``. A prompt too long for the model's context
    takes the first legal line and counts as failed. ``prompt`` is one of
    :data:`PROMPTS` (default: the one the model was trained with, "full" for a model
    without a record of it); in "compact" a walk in progress goes on undecided
    (:class:`Continuing`).
    """

    def __init__(self, model, temperature: float = 0.0, seed: int = 0, batch_size: int = 16, prompt: str | None = None):
        from sparring.lm.choice import LineScorer
        from sparring.lm.local import LocalModel

        if temperature < 0 or batch_size < 1:
            raise ValueError(f"need temperature >= 0 and batch_size >= 1, got {temperature}, {batch_size}")
        self.local = model if isinstance(model, LocalModel) else LocalModel(model)
        self.scorer = LineScorer(self.local, prompt=prompt)
        self.temperature, self.batch_size = float(temperature), int(batch_size)
        self._rng = np.random.default_rng(seed)
        self._continuing = Continuing()
        self.name = f"local:{self.local.folder}"
        self.stats = BrainStats()

    def act(self, env: BatchedEnv, rows) -> np.ndarray:
        """The chosen legal action of every seat of ``rows``."""
        from sparring.lm.choice import choose_lines

        rows = np.asarray(rows, np.int64)
        face, cfg, prompt = require_face(env.env_cls), env.config, self.scorer.prompt
        out = np.zeros((len(rows), len(env.heads.sizes)), np.int32)
        asked, turns = [], []
        for i, r in enumerate(rows):
            s, agent = env.records[r // env.num_agents], int(r) % env.num_agents
            kept = self._continuing.kept(face, s, cfg, agent, int(r)) if prompt == "compact" else None
            if kept is not None:
                out[i] = kept
            else:
                asked.append(i)
                turns.append(turn(env.env_cls, s, cfg, agent, prompt))
        picked = choose_lines(
            self.scorer, [t.text for t in turns], [t.lines for t in turns], self.temperature, self._rng, self.batch_size
        )
        for i, t, k in zip(asked, turns, picked.index):
            out[i] = t.actions[max(k, 0)]
        for i, r in enumerate(rows):
            self._continuing.took(int(r), env.records[r // env.num_agents], out[i])
        self.stats.turns += len(rows)
        self.stats.kept += len(rows) - len(asked)
        COUNT.add(len(rows) - len(asked), 0)  # choose_lines counted the decisions
        self.stats.failed += picked.index.count(-1)
        self.stats.parsed += len(asked) - picked.index.count(-1)
        self.stats.prompt_tokens += picked.tokens
        return out


def check_brain(spec: str, env_cls) -> str:
    """``spec`` with ``scripted`` alone read as the env's best scripted player; a one-line ValueError naming the
    valid specs unless it names a brain of ``env_cls`` (a model is read only when the brain is made)."""
    kind, _, rest = spec.partition(":")
    if named_model(spec):  # an installed model by name (one line naming how to install one that is not)
        require_face(env_cls)
        return spec
    if kind == "local" and rest:
        require_face(env_cls)
        if not os.path.exists(rest):
            raise ValueError(
                f"brain {spec!r}: {rest!r} does not exist (give a model folder, e.g. from `sparring distill`, "
                "or a .gguf file)"
            )
        return spec
    if kind == "openai":
        url, _, model = rest.rpartition(":")
        how = "openai needs openai:URL:MODEL, e.g. openai:http://127.0.0.1:8000/v1:mymodel"
        if not (url.startswith(("http://", "https://")) and model):
            raise ValueError(f"brain {spec!r}: {how} (an http(s) URL, then the model's name)")
        if re.fullmatch(r"\d+(/.*)?", model) and url.count(":") == 1:  # openai:http://HOST:PORT/v1 without a model
            raise ValueError(f"brain {spec!r} names no model after the URL's port; {how}")
        check_http_url(url, f"brain {spec!r}: URL")
        require_face(env_cls)
        return spec
    if spec == "scripted" and env_cls.best_scripted:
        spec = f"scripted:{env_cls.best_scripted}"
    try:
        check_player(spec, env_cls)
    except ValueError as exc:
        raise ValueError(f"{exc}; or a text brain: {TEXT_SPECS}") from None
    return spec


def make_brain(
    spec: str,
    env: BatchedEnv,
    seed: int = 0,
    greedy: bool = False,
    temperature: float = 1.0,
    prompt: str | None = None,
    dtype: str | None = None,
):
    """The brain a spec names (see :func:`specs_of`); an OpenAI key, if any, comes from ``$OPENAI_API_KEY``.

    Text brains need the env's text face; a local model samples its lines at ``temperature`` (the policy GRPO
    trains samples at 1; 0 or ``greedy`` takes the most likely line), puts turns in ``prompt`` (one of
    :data:`~sparring.lm.prompts.PROMPTS`; default: the one it was trained with, else full) and
    loads its weights in ``dtype`` (e.g. "bfloat16", about twice as fast on a CPU with bf16 units; default
    float32; "auto": :func:`sparring.lm.play_defaults.playing_dtype`, as the CLI does). The rest are
    :func:`sparring.players.make.make_player`'s players (``greedy``: a checkpoint's most likely actions)."""
    spec = check_brain(spec, env.env_cls)
    kind, _, rest = spec.partition(":")
    if kind == "local" or named_model(spec):
        from sparring.lm.local import LocalModel
        from sparring.lm.model_spec import parse_spec
        from sparring.lm.play_defaults import playing_dtype

        with COUNT.loading():  # LocalModel checks the files: the path alone says whether a record is there
            model = LocalModel(spec, dtype=playing_dtype(dtype, parse_spec(spec)))
        brain = ChoiceBrain(model, temperature=0.0 if greedy else temperature, seed=seed, prompt=prompt)
        if kind != "local":
            brain.name = spec  # a model by its name (smollm2), not the wheel's file
        return brain
    if kind == "openai":
        from sparring.lm.openai_brain import OpenAIBrain

        url, _, model = rest.rpartition(":")
        safe = np.zeros(len(env.heads.sizes), np.int64)  # value 0 of every head: the kit's "do nothing"
        return OpenAIBrain(url, model, parse, safe, api_key=os.environ.get(KEY_ENV), seed=seed, text=prompt_text)
    return make_player(spec, env, seed, greedy)
