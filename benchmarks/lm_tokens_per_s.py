"""Generated tokens/s of the project's small language model on this machine.

Usage: .venv/bin/python benchmarks/lm_tokens_per_s.py [new_tokens] [repeats] [torch_threads]
Builds the default-size model (ModelSize(), a BPE vocabulary of at most 2048 tokens trained on
town descriptions) in a temporary folder, then generates answers to town prompts
(a character's description and legal actions, chat-formatted): directly at batch
sizes 1, 8 and 32, and through `sparring serve`'s app on loopback with 8
concurrent requests (the server batches the requests that wait while it generates). Reports the median of
``repeats`` runs and the ratio to
batch 1 measured in the same process. ``torch_threads`` defaults to 1: on a
loaded 2-core machine two torch threads were 5-30x slower than one and erratic from one minute to the next
(other processes held the cores), so compare rows of one run at 1 thread. The model is untrained, so answers are
noise; every generated token is counted, early end-of-turn tokens included.
"""

import statistics
import sys
import tempfile
import time

import numpy as np
import torch

import sparring
from sparring.envs.town.text import legal_actions_text
from sparring.lm import Observations, OpenAIBrain
from sparring.lm.local import LocalModel
from sparring.lm.model import ModelSize, build_small_model
from sparring.lm.server import BackgroundServer, ServeLimits, make_app


def town_prompts(count: int) -> list[str]:
    """Descriptions plus legal actions of town characters along a scripted episode."""
    env = sparring.make("town", num_envs=1, seed=0)
    texts = []
    while len(texts) < count:
        for agent in range(env.num_agents):
            texts.append(
                env.describe(0, agent) + "\nLegal actions:\n" + legal_actions_text(env.records[0], env.cfg, agent)
            )
        env.step(env.scripted_actions("planner"))
    return texts[:count]


def rate(run, repeats: int) -> float:
    """Median tokens/s of ``run()`` (which returns the tokens it generated)."""
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        tokens = run()
        rates.append(tokens / (time.perf_counter() - t0))
    return statistics.median(rates)


def main() -> None:
    new_tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    prompts = town_prompts(64)
    folder = build_small_model(prompts, tempfile.mkdtemp(prefix="lm-bench-") + "/small", ModelSize())
    model = LocalModel(folder, threads=threads)
    params = sum(p.numel() for p in model.model.parameters())
    convs = [[{"role": "user", "content": p}] for p in prompts]
    prompt_len = np.mean([len(model.prompt_ids(c)) for c in convs])
    print(
        f"small model: {params / 1e6:.2f} M parameters, {len(model.tokenizer)} tokens, context {model.context}; "
        f"prompts average "
        f"{prompt_len:.0f} tokens; {new_tokens} new tokens each; torch threads {torch.get_num_threads()}; "
        f"median of {repeats}"
    )
    model.chat(convs[:2], 4)  # warm-up

    def direct(batch: int):
        return lambda: sum(c.completion_tokens for c in model.chat(convs[:batch], new_tokens))

    results = {}
    for b in (1, 8, 32):
        results[f"direct, batch {b}"] = rate(direct(b), repeats)
        print(f"  direct, batch {b}: {results[f'direct, batch {b}']:.1f} tokens/s", flush=True)
    limits = ServeLimits(max_tokens=new_tokens, max_prompt_tokens=model.context - new_tokens)
    with (
        BackgroundServer(make_app(model, "small", limits=limits)) as server,
        OpenAIBrain(
            server.url,
            "small",
            lambda text, batch, i: 0,
            0,
            system="",
            max_tokens=new_tokens,
            concurrency=8,
            timeout=120,
        ) as brain,
    ):
        batch = Observations(np.arange(8), prompts[:8], np.zeros((8, 1)), np.ones((8, 1), bool), (1,))

        def served():
            before = brain.stats.completion_tokens
            brain.decide(batch)
            if brain.stats.failed:
                raise RuntimeError(f"the server failed a request: {brain.stats.last_error}")
            return brain.stats.completion_tokens - before

        results["HTTP on loopback, 8 concurrent requests"] = rate(served, repeats)
    reference = results["direct, batch 1"]
    print(f"{'generation':42} {'tokens/s':>9} {'vs batch 1':>10}")
    for label, value in results.items():
        print(f"{label:42} {value:>9.1f} {value / reference:>9.2f}x")


if __name__ == "__main__":
    main()
