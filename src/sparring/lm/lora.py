"""LoRA for GRPO (through ``peft``): adapters on a Llama model's projections, and the adapter-off KL reference."""

from __future__ import annotations

import contextlib
import warnings

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def add_lora(model, rank: int):
    """``model`` wrapped by peft with fresh rank-``rank`` LoRA adapters on the Llama attention and MLP
    projections; only the adapters train."""
    from peft import LoraConfig, get_peft_model

    with peft_quiet():
        return get_peft_model(
            model,
            LoraConfig(
                r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules=LORA_TARGETS, task_type="CAUSAL_LM"
            ),
        )


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
