"""Players named by a spec string, as every command takes them: ``random``, ``scripted:NAME``,
``scripted:NAME:NOISE`` and ``checkpoint:PATH``."""

from __future__ import annotations

from sparring.players.noisy import NoisyPlayer
from sparring.players.simple import RandomPlayer, ScriptedPlayer


def player_specs(env_cls) -> str:
    """The valid player specs for an env, for error messages and help."""
    scripted = ", ".join(f"scripted:{n}" for n in sorted(env_cls.scripted))
    noisy = " (scripted:NAME:P: with probability P a random legal action instead)" if scripted else ""
    return "random, checkpoint:PATH" + (f", {scripted}{noisy}" if scripted else "")


def check_player(spec: str, env_cls) -> None:
    """Raise a one-line ValueError naming the valid specs unless ``spec`` names a player of ``env_cls``
    (a checkpoint's folder is read only when the player is made)."""
    kind, _, arg = spec.partition(":")
    name, _, noise = arg.partition(":")
    if kind == "scripted" and name in env_cls.scripted:
        if noise:
            try:
                ok = 0.0 <= float(noise) <= 1.0
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f"player {spec!r}: the noise after {name!r} must be a probability in [0, 1]")
        return
    if spec == "random" or (kind == "checkpoint" and arg):
        return
    if kind == "scripted" and name:
        raise ValueError(
            f"unknown player {spec!r}: env {env_cls.name!r} has no scripted policy {name!r}; known: "
            f"{[*env_cls.scripted]}; valid players: {player_specs(env_cls)}"
        )
    raise ValueError(f"unknown player {spec!r}; valid: {player_specs(env_cls)}")


def make_player(spec: str, env, seed: int = 0, greedy: bool = False):
    """The player ``spec`` names for ``env`` (a :class:`~sparring.kit.BatchedEnv`).

    ``seed`` seeds a random player's generator, a noisy player's dice or a checkpoint's sampling;
    ``greedy`` makes a checkpoint take its most likely actions.
    """
    check_player(spec, env.env_cls)
    kind, _, arg = spec.partition(":")
    if kind == "scripted":
        name, _, noise = arg.partition(":")
        return NoisyPlayer(ScriptedPlayer(env, name), float(noise), seed) if noise else ScriptedPlayer(env, name)
    if kind == "checkpoint":
        from sparring.players.network import checkpoint_player  # torch loads only for a checkpoint

        return checkpoint_player(arg, env, seed, greedy)
    return RandomPlayer(seed)
