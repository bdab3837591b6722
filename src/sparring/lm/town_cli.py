"""``sparring play town --brain ...``, ``sparring distill town`` and ``sparring grpo town`` (registered by the CLI)."""

from __future__ import annotations

import argparse
import dataclasses
import json

TOWNS = "town, town16, town64"


def _town(name: str) -> str:
    if not name.startswith("town"):
        raise ValueError(f"this command plays a town env ({TOWNS}), got {name!r}")
    return name


def cmd_play_brains(args, env_config: dict) -> int:
    """Play a town with a brain per character, record it, print goal success and fallbacks."""
    from sparring.lm.town_play import play_town

    report = play_town(args.brain, args.episodes, args.seed, args.record, _town(args.env), **env_config)
    print(report.text())
    return 0


def cmd_distill(args, env_config: dict) -> int:
    """Distil a teacher brain into a new small model folder."""
    from sparring.lm.distill import DistillConfig, distill

    cfg = DistillConfig(**{f.name: getattr(args, f.name) for f in dataclasses.fields(DistillConfig)})
    try:
        report = distill(args.out, cfg, _town(args.env), **env_config)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    print(f"saved {args.out}: {report['parameters']} parameters; held-out action accuracy "
          f"{report['held_out_accuracy']:.3f} over {report['held_out_turns']} turns "
          f"(train {report['train_accuracy']:.3f})")
    return 0


def cmd_grpo(args, env_config: dict) -> int:
    """Run or resume GRPO; live metrics on stderr, the final line on stdout."""
    from sparring.lm.grpo import GRPOConfig, Run, grpo, main_log

    if args.resume and env_config:
        raise ValueError(f"--resume keeps the run's env config; drop {sorted(env_config)}")
    cfg = GRPOConfig(**{f.name: getattr(args, f.name) for f in dataclasses.fields(GRPOConfig)})
    history = grpo(args.out, args.model, cfg, args.resume, _town(args.env), main_log, **env_config)
    run = Run(args.out)
    last = history[-1] if history else {}
    print(json.dumps({"out": run.out, "iterations": len(history), "last": last, "plot": run.plot}))
    return 0


def add_play_args(p: argparse.ArgumentParser) -> None:
    """The brain options of ``sparring play``."""
    p.add_argument("--brain", action="append", metavar="SPEC",
                   help="a brain per character in order, the last repeating: scripted[:NAME], "
                        "scripted:planner_noisy[:P], checkpoint:PATH, openai:URL:MODEL (key from $OPENAI_API_KEY), "
                        "local:DIR (town envs)")
    p.add_argument("--episodes", type=int, default=1, help="with --brain: episodes to play")
    p.add_argument("--record", metavar="DIR", help="with --brain: record the episodes to DIR/town.parquet")


def add_commands(sub: argparse._SubParsersAction, env_overrides) -> None:
    """Register ``distill`` and ``grpo``; ``env_overrides(extra)`` turns ``--env.KEY VALUE`` into a dict."""
    from sparring.lm.distill import DistillConfig
    from sparring.lm.grpo import GRPOConfig

    p = sub.add_parser("distill", help="record a teacher's town turns and fine-tune a new small model on them")
    p.add_argument("env", help=TOWNS)
    p.add_argument("--out", required=True, help="new model folder")
    _config_args(p, DistillConfig(), skip={"teacher"})
    p.add_argument("--teacher", default=DistillConfig.teacher, help="brain spec, e.g. scripted:planner_noisy:0.3")
    p.set_defaults(fn=lambda args, extra: cmd_distill(args, env_overrides(extra)))
    p = sub.add_parser("grpo", help="GRPO of a model folder as town character 0 on the in-game outcome")
    p.add_argument("env", help=TOWNS)
    p.add_argument("--model", help="the base model folder (not needed with --resume)")
    p.add_argument("--out", required=True, help="run folder: model/, metrics.jsonl, success.png, state")
    p.add_argument("--resume", action="store_true", help="continue the run in --out where it stopped")
    _config_args(p, GRPOConfig())
    p.set_defaults(fn=lambda args, extra: cmd_grpo(args, env_overrides(extra)))


def _config_args(p: argparse.ArgumentParser, defaults, skip=frozenset()) -> None:
    for f in dataclasses.fields(defaults):
        if f.name in skip:
            continue
        value = getattr(defaults, f.name)
        kind = int if f.name == "threads" else type(value)
        p.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, type=kind, default=value,
                       help=f"(default {value})")
