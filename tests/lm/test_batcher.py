"""The server's batcher: requests waiting for the model are answered together, each with its own settings."""

import threading
import time

import pytest

from sparring.lm.batcher import Batcher, Job


def _prompt(model, text):
    return model.prompt_ids([{"role": "user", "content": text}])


def _run_together(batcher, jobs):
    """Queue every job while the model is held, then let them go: the first thread to get it batches the rest."""
    results = [None] * len(jobs)
    with batcher._model_lock:  # held here so that all jobs are queued before any runs
        threads = [
            threading.Thread(target=lambda i=i: results.__setitem__(i, batcher.run(jobs[i]))) for i in range(len(jobs))
        ]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 10
        while len(batcher._queue) < len(jobs) and time.monotonic() < deadline:
            time.sleep(0.01)
    for t in threads:
        t.join(30)
    return results


def test_waiting_jobs_share_one_batch_with_their_own_limits(tiny_model):
    texts = ["go to the farm", "wait", "talk to Ben", "eat 1 bread"]
    jobs = [Job(_prompt(tiny_model, t), limit, 0.0, 1.0, None, []) for t, limit in zip(texts, [1, 2, 3, 4])]
    batcher = Batcher(tiny_model)
    done = _run_together(batcher, jobs)
    assert batcher.batches == 1
    alone = [tiny_model.generate([j.prompt], j.limit)[0] for j in jobs]
    assert [c.prompt_tokens for c in done] == [len(j.prompt) for j in jobs]
    assert [(c.text, c.completion_tokens, c.finish_reason) for c in done] == [
        (c.text, c.completion_tokens, c.finish_reason) for c in alone
    ]


def test_seeded_or_differently_sampled_jobs_run_alone(tiny_model):
    prompt = _prompt(tiny_model, "talk to Ada")
    jobs = [
        Job(prompt, 6, 1.0, 1.0, 3, []),
        Job(prompt, 6, 1.0, 1.0, 3, []),
        Job(prompt, 6, 0.0, 1.0, None, []),
        Job(prompt, 6, 1.0, 0.5, None, []),
    ]
    batcher = Batcher(tiny_model)
    done = _run_together(batcher, jobs)
    assert batcher.batches == 4
    seeded = tiny_model.generate([prompt], 6, 1.0, 1.0, seed=3)[0]
    assert done[0] == done[1] == seeded and seeded.text


def test_jobs_that_would_overflow_the_context_together_are_split(tiny_model):
    long, short = _prompt(tiny_model, "farm " * 40), _prompt(tiny_model, "wait")
    assert len(long) + 4 <= tiny_model.context < len(long) + 60
    batcher = Batcher(tiny_model)
    done = _run_together(batcher, [Job(long, 4, 0.0, 1.0, None, []), Job(short, 60, 0.0, 1.0, None, [])])
    assert batcher.batches == 2 and [c.completion_tokens <= n for c, n in zip(done, (4, 60))] == [True, True]


def test_a_failed_batch_fails_each_of_its_jobs(tiny_model):
    batcher = Batcher(tiny_model)
    with pytest.raises(ValueError, match="exceeds the model's context"):
        batcher.run(Job(_prompt(tiny_model, "farm " * 200), 4, 0.0, 1.0, None, []))
    with pytest.raises(ValueError, match="max_batch must be >= 1"):
        Batcher(tiny_model, max_batch=0)
