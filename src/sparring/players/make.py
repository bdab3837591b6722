"""Players named by a spec string, as every command takes them: ``random``, ``scripted:NAME``, ``checkpoint:PATH``."""

from __future__ import annotations

from sparring.players.simple import RandomPlayer, ScriptedPlayer


def player_specs(env_cls) -> str:
    """The valid player specs for an env, for error messages and help."""
    scripted = ", ".join(f"scripted:{n}" for n in sorted(env_cls.scripted))
    return "random, checkpoint:PATH" + (f", {scripted}" if scripted else "")


def make_player(spec: str, env, seed: int = 0, greedy: bool = False):
    """The player ``spec`` names for ``env`` (a :class:`~sparring.kit.BatchedEnv`).

    ``seed`` seeds a random player's generator or a checkpoint's sampling;
    ``greedy`` makes a checkpoint take its most likely actions.
    """
    kind, _, arg = spec.partition(":")
    if kind == "scripted" and arg:
        return ScriptedPlayer(env, arg)
    if kind == "checkpoint" and arg:
        from sparring.players.network import checkpoint_player  # torch loads only for a checkpoint

        return checkpoint_player(arg, env, seed, greedy)
    if spec == "random":
        return RandomPlayer(seed)
    raise ValueError(f"unknown player {spec!r}; valid: {player_specs(env.env_cls)}")
