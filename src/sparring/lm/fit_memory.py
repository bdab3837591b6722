"""Memory of distillation's training passes, estimated before the first step, and the layers recomputed to cut it.

Measured on SmolLM2-135M (30 layers, hidden 576, intermediate 1536, vocabulary
49,152) over town turns of about 500 prompt tokens and 150 tokens of legal lines
(their trie), by counting the tensors autograd saves for the backward pass: a
turn keeps about 0.68 GiB, 1.4 MiB per token read, nearly all of it each layer's
activations (about ``10 * hidden + 4 * intermediate`` floats per token and layer);
the full-vocabulary log-probabilities of the scored line tokens are some 15 MiB
of it. Recomputing each layer in the backward pass (activation checkpointing)
keeps only each layer's input, ``hidden`` floats per token and layer: 0.05 GiB a
turn, for about twice the backward pass's time (``benchmarks/distill_pass_memory.py``).
"""

from __future__ import annotations

FLOATS_PER_HIDDEN = 10  # a layer's activations kept per token: about this many hidden-wide vectors...
FLOATS_PER_INTERMEDIATE = 4  # ...and this many intermediate-wide ones (measured on SmolLM2, see above)


def pass_bytes(config, turns: list[tuple[int, int]], recompute: bool) -> int:
    """About the bytes that a forward and backward pass over ``turns`` needs beyond the weights: each turn is
    (tokens read, line tokens scored), the model's sizes are ``config``'s (a transformers config:
    ``hidden_size``, ``intermediate_size``, ``num_hidden_layers``, ``vocab_size``); with ``recompute`` each
    layer's activations are recomputed in the backward pass (one layer's at a time, twice over for its gradients)."""
    h = config.hidden_size
    i = getattr(config, "intermediate_size", None) or 4 * h  # GPT-2's n_inner may be unset: 4 * hidden
    layers, vocab = config.num_hidden_layers, config.vocab_size
    tokens = sum(t for t, _ in turns)
    layer = 4 * (tokens * (FLOATS_PER_HIDDEN * h + FLOATS_PER_INTERMEDIATE * i) + sum(t * t for t, _ in turns))
    logits = 3 * 4 * vocab * sum(n for _, n in turns)  # the logits, their log-softmax and its gradient
    kept = 4 * tokens * h * layers + 2 * layer if recompute else layers * layer
    return kept + logits


def optimizer_bytes(trained: int) -> int:
    """Bytes of the gradients and AdamW's two moments of ``trained`` float32 parameters."""
    return 3 * 4 * trained


def recompute_layers(model) -> None:
    """Have ``model`` (a transformers model) recompute each layer's activations in the backward pass instead of
    keeping them (transformers 5 calls it activation checkpointing, 4 gradient checkpointing)."""
    kwargs = {"use_reentrant": False}  # the reentrant kind needs inputs that require grad: LoRA's do not
    if hasattr(model, "activation_checkpointing_enable"):
        model.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
