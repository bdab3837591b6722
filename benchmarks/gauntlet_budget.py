"""Clear rate and mean wave from wave 1 against training budget, for one recipe: the table PufferLib publishes
for Fight Caves.

Usage:
  .venv/bin/python benchmarks/gauntlet_budget.py [--env gauntlet] [--seed 0] [--at 8.4e6 25e6 50e6 100e6]
      [--episodes 300] [--greedy] [--set KEY=VALUE ...] [--env-set KEY=VALUE ...] [--shaping KEY=VALUE ...]
      [--json OUT] [--save DIR]

One run of ``sparring.train.Trainer`` with the env's [train] defaults plus ``--set`` (a ``--set imitate=NAME``
warm start clones first, as ``sparring train`` does), trained to the last ``--at`` budget in agent-steps. Each
time the run passes a budget, training pauses and the policy plays ``--episodes`` fresh runs from the start of
the encounter (wave 1; no auto-reset, no shaping: ``--shaping`` applies to training only), then training goes
on; the evaluation's time is not training time. Printed per budget: agent-steps, training minutes on this
machine (as loaded as it was), the clear rate with its 95% Wilson interval, the mean wave reached with a 95%
bootstrap interval, and the distribution of waves reached.

Budgets are in steps so that a busy machine does not shrink them: on a quiet core of the 2-core reference
machine gauntlet trains at about 28 K agent-steps/s with one thread (cloning and PPO alike), so the default
budgets are about 5, 15, 30 and 60 minutes there. A table from one run shows how a policy grows with budget; it
does not say how the run's seed varies (the learning-rate schedule, when annealed, follows the whole budget).
With ``--save DIR`` a checkpoint of the run is written at each budget (``DIR/checkpoints/step-N``), so a later
run can start from it: with ``--set init=DIR/checkpoints/step-N`` (fine-tuning that clone, e.g. with
``kl_teacher=COEF``) the budgets count the checkpoint's steps too, so its table continues the clone's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from arms import add_setting_args, histogram, iterations, pairs

from sparring.kit.stats import bootstrap_ci, wilson_interval
from sparring.players.load import read_meta
from sparring.explore.reach import reach
from sparring.kit import registry
from sparring.kit.atomic import atomic_file
from sparring.train.checkpoint import save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="gauntlet")
    p.add_argument("--seed", type=int, default=0, help="train.seed; the evaluation runs use 100000 + seed")
    p.add_argument(
        "--at", type=float, nargs="+", default=[8.4e6, 25e6, 50e6, 100e6], help="budgets in agent-steps, ascending"
    )
    p.add_argument("--episodes", type=int, default=300, help="evaluation runs per budget, from the start")
    p.add_argument("--save", metavar="DIR", help="write a checkpoint of the run into DIR at each budget")
    add_setting_args(p)
    return p.parse_args(argv)


def measure(args, trainer: Trainer, eval_config: dict, before: int) -> dict:
    """Play ``--episodes`` fresh runs with the current policy; the budget's row of the table (its steps count the
    ``before`` steps of an ``init`` checkpoint)."""
    trainer.policy.eval()
    result = reach(
        args.env, trainer.policy, args.episodes, seed=100_000 + args.seed, greedy=args.greedy, env_config=eval_config
    )
    trainer.policy.train()
    reached, clears = np.asarray(result["reach"]), int(np.sum(result["clear"]))
    return {
        "steps": before + trainer.global_step,
        "minutes": trainer.elapsed / 60.0,
        "clears": clears,
        "clear_rate": clears / len(reached),
        "clear_ci": wilson_interval(clears, len(reached)),
        "mean": float(reached.mean()),
        "mean_ci": bootstrap_ci(reached.astype(np.float64)),
        "field": result["field"],
        "histogram": histogram(reached.tolist()),
    }


def main(argv=None) -> None:
    args = parse_args(argv)
    budgets = sorted(int(b) for b in args.at)
    if args.episodes < 1 or budgets[0] < 1:
        raise SystemExit("--episodes and every --at budget must be at least 1")
    env_config, shaping = pairs(args.env_set, "--env-set"), pairs(args.shaping, "--shaping")
    settings = pairs(args.set, "--set")
    before = read_meta(settings["init"])["step"] if settings.get("init") else 0  # the warm start's steps count
    if budgets[0] <= before:
        raise SystemExit(f"every --at budget must be above the {before} agent-steps of the --set init checkpoint")
    settings = {**settings, "seed": args.seed, "steps": budgets[-1] - before, "minutes": 0}
    cfg = make_train_config(registry.get(args.env), {**settings, "eval_episodes": 0, "tensorboard": False})
    trainer = Trainer(args.env, cfg, {**env_config, **shaping})
    eval_config = {k: v for k, v in trainer.env_config.items() if k not in shaping}
    print(f"{args.env}: one run to {budgets[-1]:.3g} agent-steps, {args.episodes} runs from the start per budget")
    print(f"settings: {settings}; shaping in training: {shaping or 'none'}", flush=True)
    rows, start = [], time.perf_counter()
    try:
        for _ in iterations(trainer):
            if before + trainer.global_step >= budgets[0]:
                budgets.pop(0)
                if args.save:
                    save_checkpoint(args.save, trainer, keep=len(args.at))
                row = measure(args, trainer, eval_config, before)
                rows.append(row)
                print(
                    f"{row['steps']:>12.3g} steps {row['minutes']:6.1f} min: clears {row['clears']}/{args.episodes} "
                    f"= {row['clear_rate']:.3f} [{row['clear_ci'][0]:.3f}, {row['clear_ci'][1]:.3f}], mean "
                    f"{row['field']} {row['mean']:.2f} [{row['mean_ci'][0]:.2f}, {row['mean_ci'][1]:.2f}]; "
                    f"{row['field']} reached (value:count) {row['histogram']}",
                    flush=True,
                )
                if not budgets:
                    break
    finally:
        trainer.close()
    print(f"({time.perf_counter() - start:.0f} s in all)")
    if args.json:
        with atomic_file(args.json) as fh:
            json.dump({"args": vars(args), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
