"""A local causal language model, generating chat answers (used by the server, the brains and the scorers).

Any model folder or GGUF file that ``transformers`` loads works (the small model
built by :mod:`sparring.lm.model`, a user's own instruct model, SmolLM2's GGUF):
:func:`load_local` takes a model spec (:mod:`sparring.lm.model_spec`). Nothing is
ever downloaded: loading is local-only, and a model without a chat template is
refused with a message saying how to give one instead of guessing a prompt format.
"""

from __future__ import annotations

import dataclasses
import os
import threading


@dataclasses.dataclass(frozen=True)
class Completion:
    """One generated answer: its text, token counts and why generation stopped ("stop" or "length")."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str


def recorded_prompt(folder: str) -> str | None:
    """The prompt (see :data:`~sparring.lm.prompts.PROMPTS`) a model folder was trained with, from its
    ``sparring.json`` (written by distill and GRPO), or None; a damaged file or an unknown prompt is a
    :class:`~sparring.kit.files.DamagedFile`."""
    from sparring.kit.files import DamagedFile, read_json
    from sparring.lm.prompts import PROMPTS

    path = os.path.join(folder, "sparring.json")
    if not os.path.isfile(path):
        return None
    remedy = "fix or remove that file (--prompt then says how to put turns to the model)"
    prompt = read_json(path, "model record", remedy).get("prompt")
    if prompt is not None and prompt not in PROMPTS:
        raise DamagedFile(path, f"records the prompt {prompt!r}, not one of {PROMPTS}", remedy)
    return prompt


class LocalModel:
    """Tokenizer + causal LM loaded from a model spec; :meth:`chat` answers a batch of conversations.

    ``spec`` is a model folder, a ``.gguf`` file or ``local:`` followed by either
    (see :mod:`sparring.lm.model_spec`: GGUF weights are dequantized on load, the
    model's own chat template is used, ``chat_template`` "plain" or a Jinja file
    gives one to a model without). ``dtype`` (e.g. "bfloat16") loads the weights in
    that type; the default float32 keeps scores exact. Calls are serialised by a
    lock, so one instance may be shared by threads (the server's request handlers);
    two CPU-bound generations at once would only slow each other down. ``threads``,
    when given, sets torch's CPU threads for the whole process. ``prompt`` is the way
    of putting turns the folder records (:func:`recorded_prompt`), or None.
    """

    def __init__(
        self, spec: str, threads: int | None = None, dtype: str | None = None, chat_template: str | None = None
    ):
        import torch

        from sparring.lm.model_spec import context_of, load_model, load_tokenizer, named_model, parse_spec, resolve

        self._torch = torch
        if threads is not None:
            if int(threads) < 1:
                raise ValueError(f"threads must be >= 1, got {threads}")
            torch.set_num_threads(int(threads))
        folder, gguf = resolve(spec)
        self.folder = os.path.join(folder, gguf) if gguf else folder  # what the spec names: a folder or a .gguf
        # a model by name is served by it (smollm2), others by their folder's or file's name
        self.name = spec.removeprefix("local:") if named_model(spec) else os.path.basename(parse_spec(spec))
        self.tokenizer = load_tokenizer(spec, chat_template)
        self.tokenizer.padding_side = "left"  # batched generation continues every row from its last token
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = load_model(spec, dtype)
        self.context = context_of(self.model)
        self.prompt = recorded_prompt(folder)
        self._lock = threading.Lock()

    def check_prompt(self, prompt_tokens: int) -> None:
        """ValueError (one line) unless a prompt of ``prompt_tokens`` tokens fits this model's context."""
        from sparring.lm.model_spec import check_context

        check_context(self.context, prompt_tokens, self.folder)

    def save(self, out: str, overwrite: bool = False, info: dict | None = None) -> str:
        """Save model and tokenizer as an ordinary model folder (works for GGUF-loaded models)."""
        from sparring.lm.model_spec import save_model

        return save_model(self.model, self.tokenizer, out, overwrite, info)

    def prompt_ids(self, messages: list[dict]) -> list[int]:
        """Token ids of ``messages`` formatted by the chat template, ready for the assistant's answer."""
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def chat(
        self,
        conversations: list[list[dict]],
        max_new_tokens: int = 32,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
        stop: list[str] | None = None,
    ) -> list[Completion]:
        """Answer each conversation (a list of ``{"role", "content"}``); greedy when ``temperature`` is 0."""
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {max_new_tokens}")
        prompts = [self.prompt_ids(messages) for messages in conversations]
        return self.generate(prompts, max_new_tokens, temperature, top_p, seed, stop)

    def generate(
        self,
        prompts: list[list[int]],
        max_new_tokens: int,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
        stop: list[str] | None = None,
    ) -> list[Completion]:
        """Continue each prompt (token ids) by at most ``max_new_tokens`` tokens, stopping at end of turn."""
        return self.generate_each(
            prompts, [max_new_tokens] * len(prompts), [stop or []] * len(prompts), temperature, top_p, seed
        )

    def generate_each(
        self,
        prompts: list[list[int]],
        limits: list[int],
        stops: list[list[str]],
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
    ) -> list[Completion]:
        """Like :meth:`generate`, in one batch, with each prompt's own token limit and stop sequences."""
        torch, tok = self._torch, self.tokenizer
        if not len(prompts) == len(limits) == len(stops) or min(limits) < 1:
            raise ValueError(
                f"need one limit >= 1 and one stop list per prompt; got {len(prompts)} prompts, "
                f"limits {limits}, {len(stops)} stop lists"
            )
        longest, most = max(len(p) for p in prompts), max(limits)
        if longest + most > self.context:
            raise ValueError(
                f"prompt of {longest} tokens + {most} new tokens exceeds the model's context of {self.context} tokens"
            )
        batch = tok.pad({"input_ids": prompts}, return_tensors="pt")
        sampling = (
            {"do_sample": True, "temperature": float(temperature), "top_p": float(top_p)}
            if temperature > 0
            else {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        )
        with self._lock, torch.inference_mode():
            if seed is not None:
                torch.manual_seed(int(seed))
            out = self.model.generate(
                **batch,
                max_new_tokens=int(most),
                pad_token_id=tok.pad_token_id,
                eos_token_id=tok.eos_token_id,
                **sampling,
            )
        start = batch["input_ids"].shape[1]
        return [
            self._completion(row[start : start + limit].tolist(), len(p), stop)
            for row, p, limit, stop in zip(out, prompts, limits, stops)
        ]

    def _completion(self, new: list[int], prompt_tokens: int, stop: list[str] | None) -> Completion:
        eos = self.tokenizer.eos_token_id
        ended = eos in new  # rows that finish early are padded after their end-of-turn token
        used = new.index(eos) + 1 if ended else len(new)
        text = self.tokenizer.decode(new[: used - 1] if ended else new, skip_special_tokens=True)
        for s in stop or ():
            if s and s in text:
                text, ended = text[: text.index(s)], True
        return Completion(text, prompt_tokens, used, "stop" if ended else "length")


def load_local(
    spec: str, threads: int | None = None, dtype: str | None = None, chat_template: str | None = None
) -> LocalModel:
    """The :class:`LocalModel` of a model spec (``local:PATH``, a model folder or a ``.gguf`` file).

    ``threads`` sets torch's CPU threads; ``dtype`` loads the weights as e.g.
    "bfloat16" (about 1.8x faster scoring on a CPU with bf16 instructions; on 32
    town turns SmolLM2's line scores moved by 0.14 nats on average, 0.53 at most,
    and kept their argmax); ``chat_template`` ("plain" or a Jinja file) gives a
    model without a template one. Bad input raises a one-line ValueError.
    """
    return LocalModel(spec, threads, dtype, chat_template)
