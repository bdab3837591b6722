"""Text brains for characters (OpenAI-compatible endpoint, local language model; scripted and PPO checkpoint
brains are the players of :mod:`sparring.players`),
the project's own small model, and an OpenAI-compatible server for local model folders.

Heavy libraries (``transformers``, ``fastapi``) load only when a local model or the server is used.
"""

from sparring.lm.brains import Observations
from sparring.lm.openai_brain import OpenAIBrain
from sparring.lm.text_brain import BrainStats, LocalLMBrain, TextBrain

__all__ = ["BrainStats", "LocalLMBrain", "Observations", "OpenAIBrain", "TextBrain"]
