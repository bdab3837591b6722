"""Where do prioritized restarts (``train.curriculum replay:N``) practise? The waves of the kept states after a stretch
of training.

Usage:
  .venv/bin/python benchmarks/gauntlet_replay_waves.py [--init CHECKPOINT] [--steps 1500000] [--capacity 4096]
      [--set KEY=VALUE ...] [--shaping KEY=VALUE ...]

Trains ``gauntlet`` for ``--steps`` agent-steps with ``curriculum=replay:CAPACITY`` on top of ``--set`` (default:
the DAgger recipe of the scripted ``expert`` at width 256, the issue-38 clone, all of the budget cloning) from the
policy weights of ``--init`` (e.g. a ``gauntlet_budget.py --save`` checkpoint; empty: from scratch), then prints
per wave the kept states and their mean score (the mean |advantage| of the segment that followed each), and
where the envs are at the end.
"""

from __future__ import annotations

import argparse

import numpy as np
from arms import iterations, pairs

from sparring.kit import registry
from sparring.train.config import make_train_config
from sparring.train.trainer import Trainer

CLONE = ["threads=1", "imitate=expert", "imitate_mix=0.5", "imitate_lr=1e-3", "hidden=256"]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--init", default="", help="checkpoint whose policy weights training starts from")
    p.add_argument("--steps", type=float, default=1.5e6, help="agent-steps of training")
    p.add_argument("--capacity", type=int, default=4096, help="N of replay:N")
    p.add_argument("--set", nargs="*", default=CLONE, metavar="KEY=VALUE", help="train settings")
    p.add_argument("--shaping", nargs="*", default=["reward_hp=1", "reward_wave=0.1"], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    steps = int(args.steps)
    settings = {**pairs(args.set, "--set"), "curriculum": f"replay:{args.capacity}", "steps": steps}
    settings |= {"eval_episodes": 0, "tensorboard": False, **({"init": args.init} if args.init else {})}
    if settings.get("imitate"):
        settings["imitate_steps"] = steps
    cfg = make_train_config(registry.get("gauntlet"), settings)
    trainer = Trainer("gauntlet", cfg, pairs(args.shaping, "--shaping"))
    try:
        for _ in iterations(trainer):
            pass
        replay = trainer.curriculum
        waves, scores = replay.records["wave"][: replay.size], replay.score[: replay.size]
        print(f"{replay.size} kept states after {trainer.global_step:.3g} agent-steps; per wave: states, mean score")
        for wave in np.unique(waves):
            print(f"  wave {wave:2d}: {np.sum(waves == wave):5d}  {scores[waves == wave].mean():.4f}")
        now = np.bincount(trainer.env.snapshot()["wave"])
        print("envs at the end, per wave (wave:envs):", " ".join(f"{w}:{c}" for w, c in enumerate(now) if c))
    finally:
        trainer.close()


if __name__ == "__main__":
    main()
