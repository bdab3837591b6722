"""The ways a turn is put to a model, and the system prompt of each (no heavy imports: the CLI's help reads it).

"full" is the face's ``describe`` and every legal line listed; "compact" is the face's ``brief`` and the lines'
words alone (see :func:`sparring.lm.specs.turn`).
"""

DEFAULT_SYSTEM = "You play one character in a game. Answer with exactly one of the legal actions listed, nothing else."
COMPACT_SYSTEM = "You play one character in a game. Answer with your next action, nothing else."
SYSTEMS = {"full": DEFAULT_SYSTEM, "compact": COMPACT_SYSTEM}
"""The system prompt of each way to put a turn."""
PROMPTS = tuple(SYSTEMS)
"""How a turn can be put to a model."""
