"""Text brains: a prompt per character, an answer in words, an injected parser back to actions.

:class:`TextBrain` holds what every text brain shares: the messages it sends,
the parser (an env's, e.g. town's ``parse_action``, wrapped as ``parse(answer,
batch, i)``), the safe action used when an answer failed or did not parse, and
the counts of both. :class:`LocalLMBrain` answers with a local model folder;
:class:`~sparring.lm.openai_brain.OpenAIBrain` with any OpenAI-compatible endpoint.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

from sparring.lm.brains import Observations, TextFn
from sparring.lm.decisions import COUNT
from sparring.lm.prompts import DEFAULT_SYSTEM

# parse(answer, batch, i) -> the action of character i (an int for one head, or one int per head), None if unparseable
ParseFn = Callable[[str, Observations, int], "int | Sequence[int] | None"]


@dataclasses.dataclass
class BrainStats:
    """Counts of a text brain's turns since it was made (or since :meth:`TextBrain.reset_stats`)."""

    turns: int = 0
    """Characters it was asked to act for."""
    parsed: int = 0
    """Answers that parsed to an allowed action."""
    failed: int = 0
    """Turns without an answer (request errors, timeouts, garbage replies, prompts too long): safe action."""
    unparseable: int = 0
    """Answers the parser could not map to an allowed action: safe action."""
    kept: int = 0
    """Turns whose previous action went on without asking the model (the compact prompt's ``continues``)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    last_error: str = ""
    """The most recent failure or unparseable answer, for logs."""

    @property
    def fallbacks(self) -> int:
        """Turns that took the safe action."""
        return self.failed + self.unparseable


class TextBrain:
    """Base of the text brains; subclasses implement :meth:`answer`.

    A :class:`~sparring.players.Player`: ``act(env, rows)`` words each character's view with
    ``text(env, env_index, agent)`` (default: the env's ``describe``). ``safe_action`` (an int
    for one head, or one value per head) is what a character does when its answer failed or
    did not parse; it should be legal in every state (town's "wait" is). ``last_answers``
    keeps the latest batch's raw answers for logging.
    """

    name = "text"

    def __init__(
        self, parse: ParseFn, safe_action: int | Sequence[int], system: str = DEFAULT_SYSTEM, text: TextFn | None = None
    ):
        if not callable(parse):
            raise TypeError(f"parse must be callable as parse(answer, batch, i), got {type(parse).__name__}")
        self.parse = parse
        self.safe_action = np.atleast_1d(np.asarray(safe_action, np.int64)).astype(np.int32)
        if self.safe_action.ndim != 1:
            raise ValueError(f"safe_action must be an int or one int per action head, got {safe_action!r}")
        self.system, self.text = system, text
        self.stats = BrainStats()
        self.last_answers: list[str | None] = []

    def messages(self, text: str) -> list[dict]:
        """The chat messages sent for one character whose view is ``text``."""
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + [{"role": "user", "content": text}]

    def answer(self, conversations: list[list[dict]]) -> list[str | None]:
        """One answer per conversation; None where no answer came (the reason in ``stats.last_error``)."""
        raise NotImplementedError

    def reset_stats(self) -> BrainStats:
        """Start counting afresh; returns the counts so far."""
        old, self.stats = self.stats, BrainStats()
        return old

    def act(self, env, rows) -> np.ndarray:
        """:meth:`decide` for the views of ``rows`` of ``env``."""
        return self.decide(Observations.from_env(env, rows, text=self.text))

    def decide(self, batch: Observations) -> np.ndarray:
        """Ask every character of ``batch`` for its answer, parse it, and fall back to the safe action where that
        fails."""
        if len(self.safe_action) != len(batch.heads):
            raise ValueError(
                f"safe_action {self.safe_action.tolist()} has {len(self.safe_action)} values; "
                f"the env has {len(batch.heads)} action heads {batch.heads}"
            )
        answers = self.answer([self.messages(t) for t in batch.texts]) if len(batch) else []
        self.last_answers = answers
        out = np.empty((len(batch), len(batch.heads)), np.int32)
        for i, text in enumerate(answers):
            out[i] = self._action(text, batch, i)
        self.stats.turns += len(batch)
        COUNT.add(len(batch), len(batch))
        return out

    def _action(self, text: str | None, batch: Observations, i: int) -> np.ndarray:
        if text is None:
            self.stats.failed += 1
            return self.safe_action
        parsed = self.parse(text, batch, i)
        action = None if parsed is None else np.atleast_1d(np.asarray(parsed, np.int64))
        if action is None or not batch.allows(i, action):
            self.stats.unparseable += 1
            self.stats.last_error = f"answer {text[:200]!r} " + (
                "did not parse" if action is None else f"parsed to {action.tolist()}, not allowed now"
            )
            return self.safe_action
        self.stats.parsed += 1
        return action.astype(np.int32)


class LocalLMBrain(TextBrain):
    """Answers from a local causal LM folder (``from_pretrained``), generated in batches of ``batch_size``."""

    def __init__(
        self,
        model,
        parse: ParseFn,
        safe_action: int | Sequence[int],
        system: str = DEFAULT_SYSTEM,
        max_tokens: int = 24,
        temperature: float = 0.0,
        seed: int | None = None,
        batch_size: int = 16,
        text: TextFn | None = None,
    ):
        from sparring.lm.local import LocalModel

        super().__init__(parse, safe_action, system, text)
        if max_tokens < 1 or batch_size < 1 or temperature < 0:
            raise ValueError(
                f"need max_tokens >= 1, batch_size >= 1, temperature >= 0; got {max_tokens}, "
                f"{batch_size}, {temperature}"
            )
        self.model = model if isinstance(model, LocalModel) else LocalModel(model)
        self.name = f"local:{self.model.folder}"
        self.max_tokens, self.temperature, self.batch_size = max_tokens, temperature, batch_size
        if seed is not None:
            import torch

            torch.manual_seed(seed)  # sampling noise comes from torch's global generator, seeded once here

    def answer(self, conversations: list[list[dict]]) -> list[str | None]:
        """Generated answers; a prompt that does not fit the model's context counts as failed."""
        prompts = [self.model.prompt_ids(c) for c in conversations]
        fits = [i for i, p in enumerate(prompts) if len(p) + self.max_tokens <= self.model.context]
        if len(fits) < len(prompts):
            self.stats.last_error = (
                f"{len(prompts) - len(fits)} prompt(s) + {self.max_tokens} answer tokens do "
                f"not fit the model's context of {self.model.context} tokens"
            )
        answers: list[str | None] = [None] * len(prompts)
        for start in range(0, len(fits), self.batch_size):
            chunk = fits[start : start + self.batch_size]
            done = self.model.generate([prompts[i] for i in chunk], self.max_tokens, self.temperature)
            for i, c in zip(chunk, done):
                self.stats.prompt_tokens += c.prompt_tokens
                self.stats.completion_tokens += c.completion_tokens
                answers[i] = c.text
        return answers
