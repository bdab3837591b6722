"""Text brains for characters (OpenAI-compatible endpoint, local language model; scripted and PPO checkpoint
brains are the players of :mod:`sparring.players`),
the project's own small model, and an OpenAI-compatible server for local model folders.

Heavy libraries (``transformers``, ``fastapi``) load only when a local model or the server is used; the
names below load on first use, so light modules (:mod:`sparring.lm.prompts`) import without numpy.
"""

from sparring.kit.lazy import lazy_names

_HOMES = {
    "BrainStats": "sparring.lm.text_brain",
    "LocalLMBrain": "sparring.lm.text_brain",
    "TextBrain": "sparring.lm.text_brain",
    "Observations": "sparring.lm.brains",
    "OpenAIBrain": "sparring.lm.openai_brain",
}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_names(__name__, _HOMES)
