"""The project's own small language model, built here from text with no downloads.

:func:`train_tokenizer` trains a byte-level BPE tokenizer (``tokenizers``) on text
lines; :func:`build_model` makes a small Llama-style causal LM (``transformers``)
for it; :func:`build_small_model` does both and saves an ordinary Hugging Face
model folder (``save_pretrained``), chat template included, so the loader of
:mod:`sparring.lm.local` reads it exactly as it reads any other local model folder.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable

from sparring.kit.atomic import atomic_folder

BOS, EOS, PAD, UNK = "<|bos|>", "<|end|>", "<|pad|>", "<|unk|>"
ROLES = ("system", "user", "assistant")
ROLE_TOKENS = tuple(f"<|{role}|>" for role in ROLES)
SPECIAL_TOKENS = (PAD, BOS, EOS, UNK) + ROLE_TOKENS
# One turn is "<|role|>content<|end|>"; generation starts after "<|assistant|>" and stops at "<|end|>".
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>' + message['content'] + '<|end|>' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}"
)


@dataclasses.dataclass(frozen=True)
class ModelSize:
    """Shape of the Llama-style model (defaults: 3.3-3.7 M parameters, by the vocabulary the text supports)."""

    hidden: int = 256
    """Width of the residual stream."""
    layers: int = 4
    """Transformer blocks."""
    heads: int = 4
    """Attention heads (hidden must divide by it)."""
    intermediate: int = 688
    """Width of the SwiGLU feed-forward layer."""
    context: int = 1024
    """Longest sequence (prompt plus answer) in tokens."""

    def __post_init__(self):
        for name in ("hidden", "layers", "heads", "intermediate", "context"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"model size: {name} must be >= 1, got {getattr(self, name)}")
        if self.hidden % self.heads:
            raise ValueError(f"model size: hidden ({self.hidden}) must be a multiple of heads ({self.heads})")


def train_tokenizer(lines: Iterable[str], vocab_size: int = 2048):
    """A byte-level BPE ``PreTrainedTokenizerFast`` trained on ``lines``, with the chat template and special tokens.

    Byte-level means any text encodes (no unknown characters); the learned merges
    only make the text it was trained on cheaper.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    floor = 256 + len(SPECIAL_TOKENS)
    if vocab_size < floor:
        raise ValueError(
            f"vocab_size must be >= {floor} (256 bytes + {len(SPECIAL_TOKENS)} special tokens), got {vocab_size}"
        )
    lines = [line for line in lines if isinstance(line, str) and line.strip()]
    if not lines:
        raise ValueError("train_tokenizer needs at least one non-empty text line")
    tok = Tokenizer(models.BPE(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(lines, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=BOS,
        eos_token=EOS,
        pad_token=PAD,
        unk_token=UNK,
        additional_special_tokens=list(ROLE_TOKENS),
        model_max_length=None,
        padding_side="left",
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model(tokenizer, size: ModelSize = ModelSize(), seed: int = 0):
    """A freshly initialised ``LlamaForCausalLM`` of ``size`` for ``tokenizer`` (weights seeded by ``seed``)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=size.hidden,
        intermediate_size=size.intermediate,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        num_key_value_heads=size.heads,
        max_position_embeddings=size.context,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.bos_token_id = tokenizer.bos_token_id
    return model


def save_model_folder(model, tokenizer, out: str, overwrite: bool = False, info: dict | None = None) -> str:
    """``save_pretrained`` model and tokenizer (and ``info`` as ``sparring.json``) into ``out``, atomically."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    if os.path.exists(out) and not overwrite:
        raise FileExistsError(f"{os.path.abspath(out)} exists; choose a new folder or pass overwrite=True")

    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with atomic_folder(out) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        if info is not None:
            with open(os.path.join(tmp, "sparring.json"), "w", encoding="utf-8") as f:
                json.dump(info, f, indent=1)
    return out


def _turn_tokens(tokenizer, line: str) -> int:
    """Tokens of ``line`` as a user's turn in ``tokenizer``'s chat template, with the answer's opening."""
    messages = [{"role": "user", "content": line}]
    turn = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return len(tokenizer(turn, add_special_tokens=False)["input_ids"])


def build_small_model(
    lines: Iterable[str],
    out: str,
    size: ModelSize = ModelSize(),
    vocab_size: int = 2048,
    seed: int = 0,
    overwrite: bool = False,
) -> str:
    """Train a tokenizer on ``lines``, build an untrained model of ``size`` and save both as a model folder.

    ``size.context`` must hold one prompt: the longest line as a user's turn in the chat template, and one
    token of its answer (a ValueError says how many tokens that is)."""
    lines = list(lines)
    tokenizer = train_tokenizer(lines, vocab_size)
    need = 1 + max(_turn_tokens(tokenizer, line) for line in sorted(lines, key=len)[-8:] or [""])
    if size.context < need:
        raise ValueError(
            f"model size: a context of {size.context} tokens cannot hold one prompt: the longest text line as a "
            f"user's turn is {need - 1} tokens, and its answer needs one more; give a context (--context) of at "
            f"least {need}"
        )
    return save_model_folder(build_model(tokenizer, size, seed), tokenizer, out, overwrite)
