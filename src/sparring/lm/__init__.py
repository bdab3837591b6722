"""Brains for characters (scripted, PPO checkpoint, OpenAI-compatible endpoint, local language model),
the project's own small model, and an OpenAI-compatible server for local model folders.

Heavy libraries (``transformers``, ``fastapi``) load only when a local model or the server is used.
"""

from sparring.lm.brains import Brain, CheckpointBrain, Observations, ScriptedBrain
from sparring.lm.openai_brain import OpenAIBrain
from sparring.lm.text_brain import BrainStats, LocalLMBrain, TextBrain

__all__ = ["Brain", "BrainStats", "CheckpointBrain", "LocalLMBrain", "Observations", "OpenAIBrain", "ScriptedBrain",
           "TextBrain"]
