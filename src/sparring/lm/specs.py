"""Brains for the town: its prompts and legal lines, brain specs, a handicapped teacher and a choosing local model.

A character's turn in words is :func:`turn` (``describe`` plus the legal
actions as ``"<id>: <words>"`` lines); a text brain answers with one line.
:func:`make_brain` turns a spec (``scripted[:NAME]``, ``checkpoint:PATH``,
``openai:URL:MODEL``, ``local:DIR``) into a :class:`~sparring.players.Player`.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from sparring.envs.town.text import action_text, describe, legal_actions, parse_action
from sparring.kit.batch import BatchedEnv
from sparring.players import Player, ScriptedPlayer
from sparring.lm.brains import Observations
from sparring.lm.text_brain import BrainStats

SAFE_ACTION = 0  # "wait": legal in every state
NOISY_PLANNER = "planner_noisy"
DEFAULT_NOISE = 0.3  # planner_noisy's chance of a uniformly random legal action instead of the plan
KEY_ENV = "OPENAI_API_KEY"
SPECS = "scripted[:NAME], scripted:planner_noisy[:P], checkpoint:PATH, openai:URL:MODEL or local:DIR"


@dataclasses.dataclass(frozen=True)
class Turn:
    """One character's decision: the prompt, and its legal action ids with their text lines."""

    text: str
    actions: list[int]
    lines: list[str]


def turn(s, cfg, agent: int) -> Turn:
    """Character ``agent``'s turn in record ``s``: ``describe`` + the legal lines, and those lines."""
    ids = legal_actions(s, cfg, agent)
    lines = [f"{a}: {action_text(s, agent, a)}" for a in ids]
    return Turn(describe(s, cfg, agent) + "\nLegal actions:\n" + "\n".join(lines), ids, lines)


def prompt_text(env: BatchedEnv, index: int, agent: int) -> str:
    """The prompt of a text brain for ``agent`` of env ``index`` (a ``TextFn`` for Observations)."""
    return turn(env.records[index], env.config, agent).text


def parse(answer: str, batch: Observations, i: int) -> int | None:
    """Town's ``parse_action`` as a text brain's parser: the action id, or None when unparseable."""
    env, row = batch.env, int(batch.rows[i])
    return parse_action(answer, env.records[row // env.num_agents], env.config, row % env.num_agents).action


class NoisyPlanner:
    """The planner, except that with probability ``noise`` a character takes a uniformly random legal action.

    A teacher that is decent but not optimal: what it does wrong is noise a
    learner can learn to leave out. Its dice are its own (seeded), not the env's.
    """

    def __init__(self, env: BatchedEnv, noise: float = DEFAULT_NOISE, seed: int = 0):
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"planner_noisy: the noise must be a probability in [0, 1], got {noise}")
        self._planner = ScriptedPlayer(env, "planner")
        self.noise, self._rng = float(noise), np.random.default_rng(seed)
        self.name = f"scripted:{NOISY_PLANNER}:{noise:g}"

    def act(self, env: BatchedEnv, rows) -> np.ndarray:
        """The planner's actions, each replaced by a random legal one with probability ``noise``."""
        rows = np.asarray(rows, np.int64)
        out = self._planner.act(env, rows)
        for i in np.flatnonzero(self._rng.random(len(rows)) < self.noise):
            out[i, 0] = self._rng.choice(np.flatnonzero(env.mask[rows[i]]))
        return out


class ChoiceBrain:
    """A local model folder that picks one legal line per turn by scoring them all (never unparseable).

    ``temperature`` 0 takes the most likely line; above 0 it samples from
    ``softmax(scores / temperature)``. A prompt too long for the model's context
    takes the safe action and counts as failed.
    """

    def __init__(self, model, temperature: float = 0.0, seed: int = 0, batch_size: int = 16):
        from sparring.lm.choice import LineScorer
        from sparring.lm.local import LocalModel

        if temperature < 0 or batch_size < 1:
            raise ValueError(f"need temperature >= 0 and batch_size >= 1, got {temperature}, {batch_size}")
        self.local = model if isinstance(model, LocalModel) else LocalModel(model)
        self.scorer = LineScorer(self.local.model, self.local.tokenizer)
        self.temperature, self.batch_size = float(temperature), int(batch_size)
        self._rng = np.random.default_rng(seed)
        self.name = f"local:{self.local.folder}"
        self.stats = BrainStats()

    def act(self, env: BatchedEnv, rows) -> np.ndarray:
        """The chosen legal action of every character of ``rows``."""
        from sparring.lm.choice import choose_lines

        rows = np.asarray(rows, np.int64)
        turns = [turn(env.records[r // env.num_agents], env.config, int(r) % env.num_agents) for r in rows]
        picked = choose_lines(
            self.scorer, [t.text for t in turns], [t.lines for t in turns], self.temperature, self._rng, self.batch_size
        )
        out = np.full((len(rows), 1), SAFE_ACTION, np.int32)
        for i, (t, k) in enumerate(zip(turns, picked.index)):
            if k >= 0:
                out[i, 0] = t.actions[k]
        self.stats.turns += len(rows)
        self.stats.failed += picked.index.count(-1)
        self.stats.parsed += len(rows) - picked.index.count(-1)
        self.stats.prompt_tokens += picked.tokens
        return out


def make_brain(spec: str, env: BatchedEnv, seed: int = 0) -> Player:
    """The brain a spec names (see ``SPECS``); an OpenAI key, if any, comes from ``$OPENAI_API_KEY``."""
    kind, _, rest = spec.partition(":")
    if kind == "scripted":
        name, _, noise = rest.partition(":")
        if name == NOISY_PLANNER:
            try:
                return NoisyPlanner(env, float(noise) if noise else DEFAULT_NOISE, seed)
            except ValueError as exc:
                raise ValueError(f"brain {spec!r}: {exc}") from None
        if noise:
            raise ValueError(f"brain {spec!r}: only {NOISY_PLANNER} takes a noise level")
        return ScriptedPlayer(env, name or env.env_cls.best_scripted)
    if kind == "checkpoint" and rest:
        from sparring.players.network import checkpoint_player  # torch loads only for a checkpoint

        return checkpoint_player(rest, env, seed)
    if kind == "local" and rest:
        if not os.path.isdir(rest):
            raise ValueError(
                f"brain {spec!r}: {rest!r} is not a folder (give a model folder, e.g. from `sparring distill town`)"
            )
        return ChoiceBrain(rest, seed=seed)
    if kind == "openai":
        url, _, model = rest.rpartition(":")
        if url.startswith(("http://", "https://")) and model:
            from sparring.lm.openai_brain import OpenAIBrain

            return OpenAIBrain(
                url, model, parse, SAFE_ACTION, api_key=os.environ.get(KEY_ENV), seed=seed, text=prompt_text
            )
        raise ValueError(
            f"brain {spec!r}: openai needs openai:URL:MODEL with an http(s) URL, e.g. "
            "openai:http://127.0.0.1:8000/v1:mymodel"
        )
    raise ValueError(f"unknown brain {spec!r}; valid: {SPECS}")
