"""Two language-model characters learning together by GRPO: each learner's success against its base and teacher.

Characters ``--learners`` (0 and 1) of a one-day town (``--days``) have the
gathering goal (be at the tavern with three others at once); the other six are
the planner. Steps: (1) distil a small model from
``scripted:planner:NOISE``, labelled with the teacher's plan
(``--labels plan``, its action before the noise; ``teacher`` copies its noisy
actions), (2) evaluate the teacher, then the base, as every learner over
``--episodes`` towns with fixed seeds (sampling at ``--temperature``), (3) GRPO
for ``--grpo-minutes`` with every learner its own copy of the base and its own
optimizer, (4) evaluate the learners together on the same towns. Prints each
learner's success with 95% Wilson intervals (teacher, base, after GRPO),
whether base and teacher overlap and whether the learner's intervals before
and after overlap, its success over the GRPO iterations, and the plot.

The full run (one torch thread; distillation about 12 minutes, then about 55 on the busy 2-core machine):
    .venv/bin/python benchmarks/grpo_town_learners.py --out runs/grpo_town_learners
A second run reuses the distilled base and its saved evaluations: add --base runs/grpo_town_learners/base.
A smoke run of a few minutes: add --smoke. Only the teacher's and the base's evaluations (e.g. with one learner,
--learners 0): add --evaluate-only.

Measured 2026-12-02 with --base (a base distilled with these defaults, plan labels: held-out accuracy 0.818
against the plan; the lead's training on the other core): teacher 18/300 and 15/300 (characters 0, 1), base
23/300 = 0.077 [0.052, 0.112] and 19/300 = 0.063 [0.041, 0.097] (21 min), 15 min of GRPO = 5 iterations
(0.54 groups/min, 24 K tokens/s while sampling), after 33/300 = 0.110 [0.079, 0.150] and 35/300 = 0.117
[0.085, 0.158] (17 min): both learners up, both intervals still overlapping the base's; 54.5 min in all.
With --grpo-minutes 30 (the saved evaluations reused, the test suite on the other core for part of it): 9
iterations, after 39/300 = 0.130 [0.097, 0.173] and 44/300 = 0.147 [0.111, 0.191]: character 1's interval
clear of its base's, character 0's not; 47.7 min (GRPO 31, the final evaluation 16.5).
With --grpo-minutes 40 --seed 1 (12 iterations, GRPO 41.5 min): 32/300 = 0.107 [0.077, 0.147] and 42/300 = 0.140
[0.105, 0.184]: character 1 clear of its base again. --learners 0 --evaluate-only: teacher 23/300, base 21/300,
base - teacher -0.007 [-0.050, +0.036].
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import torch
from grpo_town import add_run_args, distilled_base, run_grpo

from sparring.kit.atomic import atomic_file
from sparring.lm.choice import LineScorer
from sparring.lm.grpo import Run, _load
from sparring.lm.learners import evaluate_learners, intervals_overlap, learners_env
from sparring.lm.specs import make_brain

EVAL_SEED = 90_210  # evaluation towns: never a distillation or GRPO seed


def _evaluate(brains: list, args, label: str, cache: str | None = None) -> list[dict]:
    """Success of each learner played by its brain on the evaluation towns; with ``cache`` (a folder), kept in
    (and read back from) a JSON file there named by the evaluation's settings and ``label``."""
    name = f"eval-{label}-{args.episodes}-{args.temperature:g}-{args.goal}-{args.days}-{args.learners}.json"
    saved = os.path.join(cache, name.replace(" ", "_")) if cache else None
    if saved and os.path.isfile(saved):
        with open(saved, encoding="utf-8") as f:
            results = json.load(f)
    else:
        results = evaluate_learners(
            brains, args.characters, args.episodes, EVAL_SEED, args.temperature, args.goal, days=args.days
        )
        if saved:
            with atomic_file(saved, encoding="utf-8") as f:
                json.dump(results, f)
    for r in results:
        low, high = r["ci95"]
        print(
            f"{label}, character {r['character']}: success {r['success_rate']:.3f} [{low:.3f}, {high:.3f}] "
            f"({r['successes']}/{r['episodes']}; {r['seconds']:.0f} s)",
            flush=True,
        )
    return results


def _difference(a: dict, b: dict) -> str:
    """``a``'s success rate less ``b``'s, with a 95% interval (Newcombe's hybrid score method from the two Wilson
    intervals): the two evaluations are independent samples of the same towns."""
    pa, pb = a["success_rate"], b["success_rate"]
    (la, ua), (lb, ub) = a["ci95"], b["ci95"]
    d = pa - pb
    return f"{d:+.3f} [{d - np.hypot(pa - la, ub - pb):+.3f}, {d + np.hypot(ua - pa, pb - lb):+.3f}]"


def _scorer(folder: str) -> LineScorer:
    model, tok = _load(folder)
    return LineScorer(model, tok)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=f"runs/grpo_town_learners-{time.strftime('%Y%m%d-%H%M%S')}")
    p.add_argument("--base", help="a base model folder distilled before (e.g. OUT/base): skip distillation")
    p.add_argument("--learners", default="0,1", help="learning characters, comma-separated")
    p.add_argument("--labels", default="plan", help="distillation labels: plan or teacher")
    p.add_argument("--evaluate-only", action="store_true", help="stop after the teacher's and the base's evaluations")
    add_run_args(p, episodes=300, grpo_minutes=15.0)
    args = p.parse_args()
    if args.smoke:
        args.distill_episodes, args.distill_steps, args.episodes, args.grpo_minutes = 8, 30, 32, 1.0
    args.characters = [int(c) for c in args.learners.split(",")]
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    started = time.perf_counter()
    base, report = distilled_base(args, args.labels)
    teacher = make_brain(f"scripted:planner:{args.noise:g}", learners_env(1, 0, args.characters), args.seed)
    taught = _evaluate([teacher] * len(args.characters), args, f"teacher {teacher.name}", cache=base)
    base_scorer = _scorer(base)
    before = _evaluate([base_scorer] * len(args.characters), args, "base", cache=base)
    del base_scorer
    if args.evaluate_only:
        for c, t, b in zip(args.characters, taught, before):
            print(f"character {c}: base - teacher {_difference(b, t)}")
        return
    run_dir, history = run_grpo(args, base, args.characters)
    run = Run(run_dir, args.characters)
    after = _evaluate([_scorer(run.model_of(c)) for c in args.characters], args, "after GRPO")
    learners = []
    for c, t, b, a in zip(args.characters, taught, before, after):
        curve = [h["learners"][str(c)]["success_rate"] for h in history]
        learners.append(
            {
                "character": c,
                "teacher": t,
                "base": b,
                "after": a,
                "base_vs_teacher_overlap": intervals_overlap(b, t),
                "base_minus_teacher": _difference(b, t),
                "after_vs_base_overlap": intervals_overlap(a, b),
                "grpo_success_by_iteration": curve,
            }
        )
    summary = {
        "learners": learners,
        "iterations": len(history),
        "grpo_groups_per_min": float(np.median([h["groups_per_min"] for h in history])),
        "grpo_tokens_per_s": float(np.median([h["tokens_per_s"] for h in history])),
        "plot": run.plot,
        "distill": report,
        "minutes": (time.perf_counter() - started) / 60,
        "args": {k: v for k, v in vars(args).items() if k != "characters"},
    }
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print(
        f"GRPO: {len(history)} iterations, {summary['grpo_groups_per_min']:.2f} groups/min, "
        f"{summary['grpo_tokens_per_s']:.0f} tokens/s while sampling (medians); plot {summary['plot']}"
    )
    for row in learners:
        t, b, a = (row[k]["success_rate"] for k in ("teacher", "base", "after"))
        curve = " ".join(f"{x:.2f}" for x in row["grpo_success_by_iteration"])
        print(
            f"character {row['character']}: teacher {t:.3f}, base {b:.3f} (base - teacher "
            f"{row['base_minus_teacher']}), after GRPO {a:.3f} (overlap with the base: "
            f"{'yes' if row['after_vs_base_overlap'] else 'no'}); success in GRPO groups by iteration: {curve}"
        )
    print(f"total {summary['minutes']:.1f} min")


if __name__ == "__main__":
    main()
