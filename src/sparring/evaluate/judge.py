"""``sparring judge``: brains judged against brains they did not train with, with ratings of every brain.

A brain is a player spec (``random``, ``scripted:NAME``, ``scripted:NAME:NOISE``,
``checkpoint:PATH``) or, for an env with a text face, a text brain (``local:PATH``, ``openai:URL:MODEL``;
:func:`sparring.lm.specs.make_brain`). A two-seat env (duel) plays a round robin between the brains
(:mod:`sparring.evaluate.round_robin`); an env of more seats (town) plays every focal brain
among every background brain (:mod:`sparring.evaluate.crowd_judge`). Both rate every brain with openskill
(:mod:`sparring.evaluate.ratings`). The judge plays every seat itself, so the env's own
players are switched off (duel's ``opponent`` is ``learner``, town's ``background`` 0).
"""

from __future__ import annotations

import dataclasses

from sparring.evaluate.crowd_judge import judge_crowd
from sparring.evaluate.round_robin import round_robin
from sparring.kit import registry
from sparring.kit.config import make_config
from sparring.lm.specs import check_brain
from sparring.players.opponents import opponent_choices


def judge(
    env_name: str,
    brains: list[str],
    backgrounds: list[str] | None = None,
    episodes: int = 200,
    focal: int | None = None,
    seed: int = 12345,
    num_envs: int = 256,
    greedy: bool = False,
    model_options: dict | None = None,
    env_overrides: dict | None = None,
    progress=None,
    emergence: bool = False,
) -> dict:
    """The judge's report for ``env_name``: ``episodes`` games per pair of ``brains`` (two-seat envs), or towns
    per (focal brain, background brain) pairing, ``backgrounds`` defaulting to ``brains`` and the focal brain
    playing ``focal`` seats (default half). ``greedy`` makes checkpoints take their most likely actions;
    ``model_options`` are the local models' keywords of :func:`sparring.lm.specs.make_brain` (temperature,
    prompt, dtype);
    ``emergence`` adds each pairing's figures of the env's declared analysis (``env_cls.emergence``, e.g.
    town's work, trades and prices: see :mod:`sparring.kit.tally`)."""
    env_cls = registry.get(env_name)
    for flag, specs in (("--brain", brains), ("--background", backgrounds or [])):
        for spec in specs:
            try:
                check_brain(spec, env_cls)
            except ValueError as exc:
                why = str(exc).removeprefix(f"brain {spec!r}").removeprefix(":").strip()
                raise ValueError(f"{flag} {spec!r}: {why}") from None
            if spec.startswith("checkpoint:"):
                _check_checkpoint(flag, spec, env_cls)
        twice = sorted({s for s in specs if specs.count(s) > 1})
        if twice:
            raise ValueError(f"{flag} {twice[0]!r} is given twice; give each brain once")
    if not brains:
        raise ValueError("give the brains to judge with --brain SPEC (repeated)")
    config = _every_seat_outside(env_cls, dict(env_overrides or {}))
    shared = dict(seed=seed, num_envs=num_envs, greedy=greedy, model_options=model_options, progress=progress)
    if emergence and (env_cls.num_agents <= 2 or not hasattr(env_cls, "emergence")):
        raise ValueError(
            f"--emergence needs an env of more than two seats that declares an emergence analysis (town); "
            f"{env_name!r} declares none"
        )
    if env_cls.num_agents > 2:
        return judge_crowd(
            env_cls, config, brains, backgrounds or brains, episodes, focal, **shared, emergence=emergence
        )
    if env_cls.num_agents == 2:
        if backgrounds or focal is not None:
            raise ValueError(
                f"{env_name!r} has two seats: the judge plays a round robin between the --brain given "
                "(--background and --focal are for envs of more seats, e.g. town's characters)"
            )
        return round_robin(env_cls, config, brains, episodes, **shared)
    raise ValueError(
        f"the judge plays envs of two seats (a round robin) or more (focal and background seats); "
        f"{env_name!r} has {env_cls.num_agents} seat"
    )


def _check_checkpoint(flag: str, spec: str, env_cls) -> None:
    """A checkpoint brain's folder read before anything plays: it exists and was trained on this env."""
    from sparring.players.load import read_meta  # torch loads only for a checkpoint

    try:
        trained = read_meta(spec.partition(":")[2])["env"]
    except ValueError as exc:
        raise ValueError(f"{flag} {spec!r}: {exc}") from None
    if trained != env_cls.name:
        raise ValueError(f"{flag} {spec!r} was trained on env {trained!r}, not {env_cls.name!r}")


def _every_seat_outside(env_cls, config: dict) -> dict:
    """``config`` with the env's own players switched off (its opponent knob at ``learner``, its background
    count at 0); a user's override that keeps them on is an error naming it."""
    knobs = {f.name for f in dataclasses.fields(env_cls.Config)}
    switched = {}
    if "learner" in opponent_choices(env_cls):
        switched["opponent"] = "learner"
    if "background" in knobs:
        switched["background"] = 0
    for key, value in switched.items():
        given = config.get(key)
        if given is not None and str(given) != str(value):
            raise ValueError(
                f"--env.{key} {given!r}: the judge seats every brain itself, so it plays with {key}={value!r}; "
                "put the env's own players in as brains instead (--brain scripted:NAME)"
            )
        config[key] = value
    seats = env_cls.learner_seats(make_config(env_cls, config))
    if len(seats) != env_cls.num_agents:
        raise ValueError(
            f"env {env_cls.name!r} plays some seats itself with this config; the judge needs every seat "
            f"played from outside (it takes {[env_cls.seats[k] for k in seats]})"
        )
    return config
