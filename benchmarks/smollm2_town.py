"""SmolLM2-135M as a character brain: zero-shot, distilled from the noisy planner, then GRPO; success on fixed envs.

Usage (one torch thread; each stage is saved in OUT and skipped when OUT already has it, so a stopped run
goes on where it stopped):
    .venv/bin/python benchmarks/smollm2_town.py --out runs/smollm2_town [--env town] [--episodes 300]
    .venv/bin/python benchmarks/smollm2_town.py --out runs/smollm2_duel --env duel --env-config opponent=reactive

Stages (``--stages``; two runs on one OUT can share the work: once OUT/distilled is saved, ``--stages grpo``
on the second core while the first evaluates the distilled base): (1) the pretrained model as it comes (``make
smollm2``'s GGUF file), choosing among the legal lines; (2) LoRA distillation from the env's best scripted
player with noise (``--noise``; town: ``planner``, plan labels), saved merged; (3) GRPO with LoRA on the env's
outcome, groups restored from one state, for ``--grpo-minutes``, saved merged. Every stage is evaluated on the
same ``--episodes`` envs (fixed seeds, seat 0, sampling at temperature 1, the policy GRPO trains) with a 95%
Wilson interval; evaluations load the weights in ``--eval-dtype`` (bfloat16 by default: about twice float32's
speed on a CPU with bf16 units) and GRPO trains LoRA adapters over a ``--grpo-dtype`` base (float32 by
default). Turns are put in ``--prompt`` (compact by default: the face's ``brief``, the lines' words, a walk in
progress going on undecided). Town's learner is character 0
of a one-day town with the gathering goal (as ``grpo_town.py``); OUT/summary.json collects every stage's
figures and minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch

from sparring.kit import registry
from sparring.kit.atomic import atomic_file
from sparring.kit.progress import Progress
from sparring.lm.choice import LineScorer
from sparring.lm.distill import DistillConfig, distill
from sparring.lm.grpo import GRPOConfig, Run, grpo
from sparring.lm.learners import evaluate_learners
from sparring.lm.local import load_local
from sparring.lm.model_spec import smollm2_gguf
from sparring.lm.prompts import PROMPTS

EVAL_SEED = 90_210  # evaluation envs: never a distillation or GRPO seed (as grpo_town.py)


def evaluate(spec: str, args, label: str) -> dict:
    """Seat 0's success with the model ``spec`` on the evaluation envs, saved to OUT/eval-LABEL.json (read back
    when it is there)."""
    saved = os.path.join(args.out, f"eval-{label}.json")
    if os.path.isfile(saved):
        with open(saved, encoding="utf-8") as f:
            result = json.load(f)
    else:
        local = load_local(spec, dtype=args.eval_dtype)
        result = evaluate_learners(
            [LineScorer(local, prompt=args.prompt)],
            [0],
            args.episodes,
            EVAL_SEED,
            1.0,
            args.goal,
            num_envs=args.num_envs,
            env=args.env,
            **args.config,
        )[0]
        with atomic_file(saved, encoding="utf-8") as f:
            json.dump(result, f)
    low, high = result["ci95"]
    print(
        f"{label}: success {result['successes']}/{result['episodes']} = {result['success_rate']:.3f} "
        f"[{low:.3f}, {high:.3f}]; {result['decisions_per_s']:.2f} decisions/s, {result['turns_per_s']:.2f} "
        f"turns/s, {result['tokens_per_s']:.0f} tokens/s ({result['seconds'] / 60:.1f} min)",
        flush=True,
    )
    return result


def distilled(args, base: str) -> tuple[str, dict]:
    """OUT/distilled: the base with LoRA adapters trained on the noisy scripted teacher's turns, merged."""
    out = os.path.join(args.out, "distilled")
    if not os.path.isdir(out):
        cfg = DistillConfig(
            teacher=f"scripted:{args.teacher or registry.get(args.env).best_scripted}:{args.noise:g}",
            goal=args.goal,
            episodes=args.distill_episodes,
            steps=args.distill_steps,
            batch_size=args.distill_batch,
            lr=args.distill_lr,
            base=base,
            lora=args.lora,
            seed=args.seed,
            labels=args.labels,
            prompt=args.prompt,
        )
        with Progress(f"distill {args.env}") as progress:
            distill(out, cfg, args.env, progress=progress, **args.config)
    with open(os.path.join(out, "sparring.json"), encoding="utf-8") as f:
        report = json.load(f)["distill"]
    print(
        f"distilled: LoRA rank {args.lora}, {report['trained_parameters']} trained parameters, "
        f"{report['train_turns']} turns, held-out accuracy {report['held_out_accuracy']:.3f} "
        f"({report['seconds'] / 60:.1f} min)",
        flush=True,
    )
    return out, report


def improved(args, base: str) -> tuple[str, list[dict]]:
    """OUT/grpo: GRPO with LoRA from ``base`` for ``--grpo-minutes`` (resumed if it was stopped), merged."""
    run_dir = os.path.join(args.out, "grpo")
    run = Run(run_dir)
    if not os.path.isdir(run.model):
        cfg = GRPOConfig(
            group=args.group,
            groups=args.groups,
            lr=args.grpo_lr,
            kl=args.kl,
            iterations=10**6,
            minutes=args.grpo_minutes,
            shaping=args.shaping,
            goal=args.goal,
            seed=args.seed,
            lora=args.lora,
            dtype=args.grpo_dtype,
            merged=True,
            prompt=args.prompt,
            learners=[0],
        )
        resume = os.path.isfile(run.state)  # a stopped run goes on (with --grpo-minutes more)
        with Progress(f"grpo {args.env}") as progress:
            grpo(run_dir, None if resume else base, cfg, resume, args.env, progress, **args.config)
    with open(run.metrics, encoding="utf-8") as f:
        history = [json.loads(line) for line in f]
    print(f"GRPO: {len(history)} iterations", flush=True)
    return run.model, history


def env_config(pairs: list[str]) -> dict:
    """``KEY=VALUE`` pairs as an env config (numbers read as numbers)."""
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--env", default="town")
    p.add_argument("--env-config", nargs="*", default=None, help="KEY=VALUE (default for town: days=1)")
    p.add_argument("--goal", default=None, help="seat 0's goal (default for town: gathering; else any)")
    p.add_argument("--episodes", type=int, default=300)
    p.add_argument("--num-envs", type=int, default=50)
    p.add_argument("--prompt", choices=PROMPTS, default="compact")
    p.add_argument("--eval-dtype", default="bfloat16")
    p.add_argument("--teacher", default="", help="scripted player taught from (default: the env's best)")
    p.add_argument("--noise", type=float, default=0.3)
    p.add_argument("--labels", default=None, help="distill labels (default for town: plan; else teacher)")
    p.add_argument("--distill-episodes", type=int, default=64)
    p.add_argument("--distill-steps", type=int, default=150)
    p.add_argument("--distill-batch", type=int, default=8)
    p.add_argument("--distill-lr", type=float, default=1e-3)
    p.add_argument("--lora", type=int, default=16)
    p.add_argument("--grpo-minutes", type=float, default=45.0)
    p.add_argument("--group", type=int, default=8)
    p.add_argument("--groups", type=int, default=2)
    p.add_argument("--grpo-lr", type=float, default=2e-4)
    p.add_argument("--grpo-dtype", default="float32", help="GRPO's frozen base: float32 or bfloat16")
    p.add_argument("--kl", type=float, default=0.02)
    p.add_argument("--shaping", type=float, default=0.3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--stages", nargs="+", default=["zero-shot", "distilled", "grpo"])
    args = p.parse_args()
    town = args.env == "town"
    args.config = env_config(args.env_config if args.env_config is not None else (["days=1"] if town else []))
    args.goal = args.goal or ("gathering" if town else "any")
    args.labels = args.labels or ("plan" if town else "teacher")
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    gguf = smollm2_gguf() or p.error("SmolLM2 is not installed: run `make smollm2`")
    summary, started = {"args": vars(args)}, time.perf_counter()
    if "zero-shot" in args.stages:
        summary["zero-shot"] = evaluate(gguf, args, "zero-shot")
    if "distilled" in args.stages or "grpo" in args.stages:
        base, summary["distill"] = distilled(args, gguf)
        if "distilled" in args.stages:  # `--stages grpo` alone leaves the base's evaluation to another run
            summary["distilled"] = evaluate(base, args, "distilled")
        if "grpo" in args.stages:
            model, history = improved(args, base)
            summary["grpo_iterations"] = len(history)
            summary["grpo"] = evaluate(model, args, "grpo")
    summary["minutes_this_run"] = (time.perf_counter() - started) / 60
    with atomic_file(os.path.join(args.out, "summary.json"), encoding="utf-8") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
