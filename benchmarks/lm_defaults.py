"""Whether the fast settings play as well as the slow ones: SmolLM2 in town, bfloat16 against float32, compact
prompts against full ones.

Usage (one torch thread a process; two processes can split ``--settings``, one per core; each prints its
returns, so two processes' settings can be tested against each other):
    .venv/bin/python benchmarks/lm_defaults.py --settings float32/full bfloat16/full float32/compact bfloat16/compact
    .venv/bin/python benchmarks/lm_defaults.py --turns 0 --settings bfloat16/full --episodes 48 --seed 190210

Agreement: each setting's most likely legal line (temperature 0) over the same ``--turns`` town turns (character
0's along planner episodes, as ``lm_choice_per_s.py``), against float32's in the same prompt (the dtype's
effect) and against the full prompt's in the same dtype (the prompt's), with 95% Wilson intervals; a line is
compared by the action it takes. Play: character 0's success and mean return (a bootstrap interval) over
``--episodes`` fixed towns (seeds from ``--seed``, never a training seed; one day, the env's own goals), sampling
at temperature 1 as ``sparring play`` does, with its decisions and turns a second, and a Mann-Whitney test of
the returns of each two settings.

Cited by docs/town.md, "A pretrained small model: SmolLM2-135M" (the defaults of ``--dtype`` and ``--prompt``).
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import torch
from lm_choice_per_s import town_turns
from scipy.stats import mannwhitneyu

from sparring.kit.stats import bootstrap_ci, wilson_interval
from sparring.lm.choice import LineScorer, choose_lines
from sparring.lm.learners import learners_env, play_learners
from sparring.lm.local import load_local
from sparring.lm.model_spec import smollm2_gguf
from sparring.lm.prompts import PROMPTS

EVAL_SEED = 90_210


def greedy_actions(scorer, turns) -> list[tuple]:
    """The action of the most likely legal line of every turn."""
    picked = choose_lines(scorer, [t.text for t in turns], [t.lines for t in turns], 0.0, np.random.default_rng(0))
    return [t.actions[max(k, 0)] for t, k in zip(turns, picked.index)]


def agreement(a: list[tuple], b: list[tuple]) -> str:
    """``0.953 [0.90, 0.98] (122/128)``: the share of turns where the two take the same action."""
    same = sum(x == y for x, y in zip(a, b))
    low, high = wilson_interval(same, len(a))
    return f"{same / len(a):.3f} [{low:.3f}, {high:.3f}] ({same}/{len(a)})"


def main() -> None:
    """Parse the flags, then print each setting's agreement and play."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    settings = [f"{d}/{p}" for d in ("float32", "bfloat16") for p in PROMPTS]
    parser.add_argument("--settings", nargs="+", default=settings, choices=settings)
    parser.add_argument("--turns", type=int, default=128, help="turns compared for agreement (0: skip)")
    parser.add_argument("--episodes", type=int, default=16, help="towns played per setting (0: skip)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=EVAL_SEED, help="the first town's seed")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    spec = smollm2_gguf() or parser.error("SmolLM2 is not installed: run `make smollm2`")
    turns = town_turns(args.turns, PROMPTS) if args.turns else {}
    chosen: dict[tuple[str, str], list[tuple]] = {}
    for dtype in ("float32", "bfloat16") if args.turns else ():
        local = load_local(spec, dtype=dtype)
        for prompt in PROMPTS:
            if f"{dtype}/{prompt}" not in args.settings and (dtype, prompt) != ("float32", prompt):
                continue
            t0 = time.perf_counter()
            chosen[dtype, prompt] = greedy_actions(LineScorer(local, prompt=prompt), turns[prompt])
            print(f"{dtype}/{prompt}: {len(turns[prompt])} greedy choices in {time.perf_counter() - t0:.0f} s")
    for dtype, prompt in chosen:
        if f"{dtype}/{prompt}" not in args.settings:
            continue
        parts = []
        if dtype != "float32":
            parts.append(f"same line as float32/{prompt} {agreement(chosen[dtype, prompt], chosen['float32', prompt])}")
        if prompt != "full" and (dtype, "full") in chosen:
            parts.append(f"same action as {dtype}/full {agreement(chosen[dtype, prompt], chosen[dtype, 'full'])}")
        print(f"{dtype}/{prompt}: " + ("; ".join(parts) or "the reference"), flush=True)
    returns = {}
    for setting in args.settings if args.episodes else []:
        dtype, prompt = setting.split("/")
        scorer = LineScorer(load_local(spec, dtype=dtype), prompt=prompt)
        success, returns[setting], rates = played(scorer, args.episodes, args.seed)
        low, high = wilson_interval(int(success.sum()), len(success))
        mean_low, mean_high = bootstrap_ci(returns[setting])
        print(
            f"{setting}: play success {int(success.sum())}/{len(success)} [{low:.3f}, {high:.3f}], mean return "
            f"{returns[setting].mean():.3f} [{mean_low:.3f}, {mean_high:.3f}], {rates}",
            flush=True,
        )
        print(f"{setting}: returns {returns[setting].round(3).tolist()}", flush=True)  # to test across processes
    for a, b in itertools.combinations(returns, 2):
        test = mannwhitneyu(returns[a], returns[b])
        print(f"returns {a} against {b}: Mann-Whitney U {test.statistic:.0f}, p = {test.pvalue:.3f}")


def played(scorer, episodes: int, seed: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Character 0's successes and returns over ``episodes`` one-day towns from ``seed`` on (in batches of 16, as
    ``evaluate_learners`` plays them), and its decisions and turns a second."""
    rng = np.random.default_rng(seed)
    success, returns, decisions, turns, seconds = [], [], 0, 0, 0.0
    for start in range(0, episodes, 16):
        batch = learners_env(min(16, episodes - start), seed + start, [0], "town", days=1)
        out = play_learners([scorer], batch, [0], 1.0, rng, 0, 16, keep=False)
        success += out.success[:, 0].tolist()
        returns += out.returns[:, 0].tolist()
        decisions, turns = decisions + int(out.decisions[0]), turns + int(out.decisions[0] + out.kept[0])
        seconds += out.seconds
    rates = f"{decisions / seconds:.2f} decisions/s, {turns / seconds:.2f} turns/s ({seconds / 60:.1f} min)"
    return np.asarray(success), np.asarray(returns), rates


if __name__ == "__main__":
    main()
