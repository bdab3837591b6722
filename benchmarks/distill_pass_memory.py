"""What one distillation pass through SmolLM2 keeps for its backward pass, with its layers kept or recomputed.

Records a one-day town's teacher turns, loads SmolLM2-135M-Instruct with LoRA adapters (``make smollm2``), and
for a pass over ``--turns`` median-length turns counts the tensors autograd saves (each storage once, the
model's own weights left out), then times the backward pass and samples the process's resident memory during
it. ``--recompute`` recomputes each layer in the backward pass, as ``sparring distill --base`` does;
``--return-freed`` fixes glibc's mmap threshold (``sparring.kit.memory.return_freed_memory``), as distill and
grpo do, so freed activations leave the process. Run each way in a fresh process:

    .venv/bin/python benchmarks/distill_pass_memory.py --turns 4
    .venv/bin/python benchmarks/distill_pass_memory.py --turns 4 --recompute
    .venv/bin/python benchmarks/distill_pass_memory.py --turns 4 --recompute --return-freed

Cited by docs/town.md, "A pretrained small model: SmolLM2-135M".
"""

from __future__ import annotations

import argparse
import collections
import threading
import time

import psutil
import torch

from sparring.kit.memory import return_freed_memory
from sparring.lm.choice import LineScorer
from sparring.lm.distill import choice_losses, collect_turns
from sparring.lm.fit_memory import recompute_layers
from sparring.lm.lora import add_lora
from sparring.lm.model_spec import load_model, load_tokenizer, smollm2_gguf


def main() -> None:
    """Parse the flags, run one pass, print what its graph keeps, the backward's time and the resident peak."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=4, help="turns in the pass")
    parser.add_argument("--recompute", action="store_true", help="recompute each layer in the backward pass")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--return-freed", action="store_true", help="fix glibc's mmap threshold, as distill and grpo do"
    )
    args = parser.parse_args()
    if args.return_freed and not return_freed_memory():
        parser.error("--return-freed needs glibc")
    torch.set_num_threads(args.threads)
    spec = f"local:{smollm2_gguf()}"
    samples = collect_turns("", 2, 0, "town", days=1)
    model = load_model(spec)
    if args.recompute:
        recompute_layers(model)
    model = add_lora(model, 8)
    scorer = LineScorer(model.base_model.model, load_tokenizer(spec), share_prefix=not args.recompute)
    model.train()
    by_length = sorted(samples, key=lambda s: len(s.turn.text))
    middle = len(by_length) // 2
    batch = by_length[middle : middle + args.turns]
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept, by_shape = {}, collections.Counter()

    def keep(t):
        key = (t.untyped_storage().data_ptr(), t.dtype)
        if key not in kept and key[0] not in weights:
            kept[key] = t.untyped_storage().nbytes()
            by_shape[tuple(t.shape), str(t.dtype)] += kept[key]
        return t

    with torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t):
        loss = choice_losses(scorer, batch).mean()
    proc = psutil.Process()
    before = peak = proc.memory_info().rss
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, proc.memory_info().rss)
            time.sleep(0.005)

    watcher = threading.Thread(target=sample)
    watcher.start()
    started = time.perf_counter()
    loss.backward()
    seconds = time.perf_counter() - started
    done.set()
    watcher.join()
    how = "recomputed" if args.recompute else "kept"
    print(f"{len(batch)} turns, layers {how}: the graph keeps {sum(kept.values()) / 2**30:.3f} GiB")
    for (shape, dtype), nbytes in by_shape.most_common(6):
        print(f"  {nbytes / 2**20:8.1f} MiB  {shape} {dtype}")
    print(f"backward {seconds:.1f} s; resident {before / 2**30:.2f} GiB before it, peak {peak / 2**30:.2f} GiB")


if __name__ == "__main__":
    main()
