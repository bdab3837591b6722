"""A causal language model from a local folder, generating chat answers (used by the server and LocalLMBrain).

Any folder that ``transformers`` loads with ``from_pretrained`` works: the small
model built by :mod:`sparring.lm.model`, or a user's own instruct model. Nothing is
ever downloaded: loading is local-only, and a folder without a chat template is
refused with a message instead of guessing a prompt format.
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


class LocalModel:
    """Tokenizer + causal LM loaded from ``folder``; :meth:`chat` answers a batch of conversations.

    Calls are serialised by a lock, so one instance may be shared by threads (the
    server's request handlers); two CPU-bound generations at once would only slow
    each other down. ``threads``, when given, sets torch's CPU threads for the whole
    process (1 was fastest on the busy 2-core build machine).
    """

    def __init__(self, folder: str, threads: int | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        if not os.path.isfile(os.path.join(folder, "config.json")):
            raise ValueError(
                f"{folder!r} is not a model folder (no config.json); build one with "
                "sparring.lm.model.build_small_model or give a local Hugging Face model folder"
            )
        hf_logging.disable_progress_bar()
        self._torch = torch
        if threads is not None:
            torch.set_num_threads(int(threads))
        self.folder = os.path.abspath(folder)
        self.tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        if not self.tokenizer.chat_template:
            raise ValueError(f"the tokenizer in {folder!r} has no chat template; a chat model folder needs one")
        self.tokenizer.padding_side = "left"  # batched generation continues every row from its last token
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True)
        self.model.eval()
        self.context = int(getattr(self.model.config, "max_position_embeddings", 0) or 2048)
        self._lock = threading.Lock()

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
