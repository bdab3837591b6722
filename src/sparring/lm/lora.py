"""LoRA for GRPO and distillation (through ``peft``): adapters on any causal LM's projections, the adapter-off
KL reference, and saving the adapter or, on request, the merged model.

The targets are found from the model's own modules (:func:`lora_targets`): every
linear layer inside its repeated blocks (attention and MLP projections, whatever
the architecture calls them: Llama's ``q_proj``/``gate_proj``, GPT-NeoX's
``query_key_value``/``dense_h_to_4h``, GPT-2's ``c_attn``/``c_fc``), never the
embeddings or the output head.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
import warnings

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]  # Llama's, for reference
_BLOCK = re.compile(r"\.\d+\.")  # a module inside a numbered block: "model.layers.3.self_attn.q_proj"


def lora_targets(model) -> list[str]:
    """Names (last name component, first-seen order) of the linear layers in ``model``'s repeated blocks."""
    import torch
    from transformers.pytorch_utils import Conv1D

    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    names: list[str] = []
    for name, module in model.named_modules():
        if module is head or not isinstance(module, (torch.nn.Linear, Conv1D)) or not _BLOCK.search(f".{name}"):
            continue
        leaf = name.rsplit(".", 1)[-1]
        if leaf not in names:
            names.append(leaf)
    if not names:
        raise ValueError(f"{type(model).__name__} has no linear layers inside numbered blocks to put LoRA on")
    return names


def add_lora(model, rank: int, targets: list[str] | None = None):
    """``model`` wrapped by peft with fresh rank-``rank`` LoRA adapters on ``targets`` (default
    :func:`lora_targets`: its attention and MLP projections); only the adapters train."""
    from peft import LoraConfig, get_peft_model

    if int(rank) < 1:
        raise ValueError(f"LoRA rank must be >= 1, got {rank}")
    targets = list(targets) if targets else lora_targets(model)
    with peft_quiet():
        return get_peft_model(
            model,
            LoraConfig(
                r=int(rank), lora_alpha=2 * int(rank), lora_dropout=0.0, target_modules=targets, task_type="CAUSAL_LM"
            ),
        )


def save_adapter(peft_model, out: str, overwrite: bool = False) -> str:
    """Save only the LoRA adapter of ``peft_model`` (``adapter_config.json`` + weights) into ``out``, atomically."""
    from sparring.kit.atomic import atomic_folder

    out = os.path.abspath(out)
    if os.path.exists(out) and not overwrite:
        raise FileExistsError(f"{out} exists; choose a new folder or pass overwrite=True")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with atomic_folder(out) as tmp, peft_quiet():
        peft_model.save_pretrained(tmp)
    return out


def save_merged(peft_model, tokenizer, out: str, overwrite: bool = False, info: dict | None = None) -> str:
    """Save base weights + adapter merged, in float32, as an ordinary model folder (``peft_model`` itself is left
    unmerged; a bfloat16 base is widened before the merge, so the adapter's small change is not rounded away)."""
    from sparring.lm.model_spec import save_model

    with peft_quiet():
        merged = copy.deepcopy(peft_model).float().merge_and_unload()
    return save_model(merged, tokenizer, out, overwrite, info)


def load_adapter(model, folder: str, trainable: bool = False):
    """``model`` with the LoRA adapter saved in ``folder`` (by :func:`save_adapter`) applied, as a peft model."""
    from peft import PeftModel

    if not os.path.isfile(os.path.join(folder, "adapter_config.json")):
        raise ValueError(f"{folder} is not a LoRA adapter folder (no adapter_config.json)")
    with peft_quiet():
        return PeftModel.from_pretrained(model, folder, is_trainable=trainable, local_files_only=True)


@contextlib.contextmanager
def peft_quiet():
    """Peft asks transformers a deprecated question (a FutureWarning); nothing for the user to do."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing", category=FutureWarning)
        yield


class AdapterOff:
    """The KL reference of a LoRA run: ``scorer`` (over the model inside ``peft_model``) with the adapters
    disabled, so the base weights serve without a second copy."""

    def __init__(self, peft_model, scorer):
        self.peft_model, self.scorer = peft_model, scorer

    def scores(self, *args, **kwargs):
        """:meth:`LineScorer.scores` of the base model."""
        with self.peft_model.disable_adapter():
            return self.scorer.scores(*args, **kwargs)
