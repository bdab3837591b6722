"""Realistic `gauntlet` start states: the reference player's records on arriving at every wave, saved as a state set.

    .venv/bin/python benchmarks/gauntlet_states.py --out states/gauntlet_reference.npz [--per-wave 200]
        [--player expert] [--seed 0] [--runs 2*PER_WAVE] [--uniform-supplies] [--env.KEY VALUE ...]

The scripted ``--player`` (``expert``, the reference that clears about 89% of runs from
wave 1; or ``checkpoint:RUN``, a trained policy sampling its actions) plays ``--runs`` runs
from the env's start to their end, and each run's record
is kept on the tick it reaches each wave (its hp, prayer, doses, pillars and metrics so
far; the wave's monsters spawn ``WAVE_GAP`` ticks later; wave 1 is a fresh start); each
wave keeps a uniform draw of ``--per-wave`` of them
(:func:`sparring.envs.gauntlet.states.arrival_states`). The file is a state set
(:mod:`sparring.kit.state_set`) grouped by ``wave``, with the env config the runs
played under and the player, seed and per-wave count in its ``extra``; any command
that takes start states reads it (e.g. ``--train.curriculum``). It prints, per wave,
the states kept and their mean hp, prayer, heals and restores.

``--uniform-supplies`` then redraws every state's hp (30% to full), prayer, heals and restores
uniformly (wave 1 kept as the true start): the same arrivals with supplies from empty to full, so a
learner started there sees what supplies are worth (a curriculum pilot in docs/trainer.md).

About 3 s and 2.4 MB for 200 per wave (400-byte records); the file is not in the
repository: write it with this command.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from sparring.envs.gauntlet.env import BOUNDS, Gauntlet
from sparring.envs.gauntlet.states import arrival_states
from sparring.envs.gauntlet.world import WAVES
from sparring.kit.config import make_config
from sparring.kit.files import check_output
from sparring.kit.state_set import load_state_set, save_state_set


def player_actions(player: str, seed: int):
    """``player`` as arrival_states takes it: a scripted name as is; ``checkpoint:RUN`` a function that samples the
    trained policy's actions for every row (seeded with ``seed``), as training plays."""
    if not player.startswith("checkpoint:"):
        return player
    from sparring.players.make import make_player

    made = {}

    def act(env, acts: np.ndarray) -> None:
        if "player" not in made:
            made["player"] = make_player(player, env, seed)
        acts[:] = made["player"].act(env, np.arange(env.rows))

    return act


def uniform_supplies(records: np.ndarray, rng: np.random.Generator) -> None:
    """Redraw hp (30% of the maximum to full), prayer, heals and restores of every state after wave 1, in place."""
    late = records["wave"] > 1
    n = int(late.sum())
    for field, low in (("hp", int(0.3 * BOUNDS["hp"][1])), ("pp", 0), ("heals", 0), ("restores", 0)):
        records[field][late] = rng.integers(low, BOUNDS[field][1] + 1, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the state set to write (.npz)")
    parser.add_argument("--per-wave", type=int, default=200, help="states kept per wave (default 200)")
    names = ", ".join(Gauntlet.scripted)
    parser.add_argument("--player", default="expert", help=f"a scripted player ({names}) or checkpoint:RUN")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=None, help="runs played (default: 2 * --per-wave)")
    parser.add_argument("--uniform-supplies", action="store_true", help="redraw hp, prayer and doses uniformly")
    args, extra = parser.parse_known_args()
    overrides = {k[len("--env.") :]: v for k, v in zip(extra[::2], extra[1::2]) if k.startswith("--env.")}
    if len(overrides) * 2 != len(extra):
        parser.error(f"unexpected arguments {extra}; env overrides look like --env.KEY VALUE")
    if args.player not in Gauntlet.scripted and not args.player.startswith("checkpoint:"):
        parser.error(f"--player {args.player!r}: expected one of {', '.join(Gauntlet.scripted)} or checkpoint:RUN")
    runs = 2 * args.per_wave if args.runs is None else args.runs
    if args.per_wave < 1 or runs < 1:
        parser.error("--per-wave and --runs must be at least 1")
    try:
        out = check_output(args.out, "--out")
        config = dataclasses.asdict(make_config(Gauntlet, overrides))  # typed, as the set's readers compare it
    except ValueError as exc:
        parser.error(str(exc))
    start = time.perf_counter()
    records = arrival_states(args.per_wave, player_actions(args.player, args.seed), args.seed, runs, **config)
    seconds = time.perf_counter() - start
    if args.uniform_supplies:
        uniform_supplies(records, np.random.default_rng([args.seed, 1]))
    waves = records["wave"].astype(np.int64)
    save_state_set(
        out,
        Gauntlet,
        records,
        config,
        groups=waves,
        group_key="wave",
        extra={
            "player": args.player,
            "per_wave": args.per_wave,
            "seed": args.seed,
            "runs": runs,
            "arrivals": "the record on the tick the run reached the wave",
            "supplies": "uniform" if args.uniform_supplies else "as played",
        },
    )
    saved = load_state_set(out, Gauntlet)  # read back: what a consumer will get
    print(f"{len(saved.records)} {args.player} arrival states in {seconds:.1f} s -> {out}")
    print(f"  {'wave':>4} {'states':>6} {'hp':>5} {'prayer':>6} {'heals':>5} {'restores':>8} {'tick':>5}")
    for w in range(1, WAVES + 1):
        at = saved.records[saved.groups == w]
        if len(at):
            print(
                f"  {w:>4} {len(at):>6} {at['hp'].mean():>5.1f} {at['pp'].mean():>6.1f} {at['heals'].mean():>5.2f} "
                f"{at['restores'].mean():>8.2f} {at['tick'].mean():>5.0f}"
            )
        else:
            print(f"  {w:>4} {0:>6}   (not reached)")


if __name__ == "__main__":
    main()
