"""The fast default of a local model that plays (``play``, ``judge``): its weights' dtype.

``--dtype auto`` (the default) loads a pretrained model (one without sparring's record, ``sparring.json``) in
bfloat16 on a CPU with bfloat16 units and in float32 elsewhere, saying why once; a model sparring trained
(distill, GRPO) plays in float32, the type it was trained and measured in. Measured on SmolLM2-135M in town
(``benchmarks/lm_defaults.py``; docs/town.md): bfloat16 took float32's most likely line on 128 of 128 turns in
either prompt, at 1.5 to 3.4 times its speed on this machine's cores (no AMX). The compact prompt is not the
default for such a model: zero-shot it fainted in 27 of 48 towns against the full prompt's 9.
"""

from __future__ import annotations

import os
import sys

AUTO = "auto"
BF16_FLAGS = ("amx_bf16", "avx512_bf16", "bf16")
"""CPU feature flags (/proc/cpuinfo: x86's AMX and AVX-512 ones, Arm's) that mean bfloat16 units."""
_said: set[str] = set()


def bf16_units(cpuinfo: str = "/proc/cpuinfo") -> str | None:
    """The first of :data:`BF16_FLAGS` this CPU has, or None (also where /proc/cpuinfo cannot be read)."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            words = {w for line in f if line.lower().startswith(("flags", "features")) for w in line.split()}
    except OSError:
        return None
    return next((flag for flag in BF16_FLAGS if flag in words), None)


def has_record(path: str) -> bool:
    """Whether a model folder (or a .gguf file's folder) holds sparring's record of its training."""
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    return os.path.isfile(os.path.join(folder, "sparring.json"))


def playing_dtype(dtype: str | None, path: str) -> str | None:
    """``dtype`` resolved for the model at ``path`` (a folder or a .gguf file): :data:`AUTO` is bfloat16 for a
    model with no record on a CPU with bfloat16 units, else float32 (the reason written to stderr once a
    process); anything else as given."""
    if dtype != AUTO:
        return dtype
    if has_record(path):
        return "float32"
    if bf16_units():
        return "bfloat16"
    reason = "this CPU has no bfloat16 units (or /proc/cpuinfo does not say); --dtype bfloat16 forces them"
    if reason not in _said:
        _said.add(reason)
        print(f"sparring: local models play in float32: {reason}", file=sys.stderr)
    return "float32"
