"""Text brains for characters (OpenAI-compatible endpoint, local language model; scripted and PPO checkpoint
brains are the players of :mod:`sparring.players`),
the project's own small model, and an OpenAI-compatible server for local model folders.

Heavy libraries (``transformers``, ``fastapi``) load only when a local model or the server is used; the
names below load on first use, so light modules (:mod:`sparring.lm.prompts`) import without numpy.
"""

import importlib

_HOMES = {
    "BrainStats": "sparring.lm.text_brain",
    "LocalLMBrain": "sparring.lm.text_brain",
    "TextBrain": "sparring.lm.text_brain",
    "Observations": "sparring.lm.brains",
    "OpenAIBrain": "sparring.lm.openai_brain",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    """Load one of :data:`__all__` from its module on first use (PEP 562)."""
    if name not in _HOMES:
        raise AttributeError(f"module 'sparring.lm' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
