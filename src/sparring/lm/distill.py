"""``sparring distill town``: record a teacher's turns, build the small model from their text, fine-tune, save.

The learner is character 0 of a town whose other characters are played by
the planner inside the env (``background = characters - 1``). Every turn of
the teacher becomes a sample (the turn's prompt -> the chosen legal line).
Training minimises the cross-entropy of the teacher's line among the legal
lines (the policy :class:`~sparring.lm.choice.LineScorer` decodes with) plus
the line's own token loss (so free generation answers with a line too).
Held-out accuracy is over the turns of episodes never trained on.

With ``labels="plan"`` (a ``scripted:planner_noisy`` teacher only) the noisy
teacher still plays, so the states are the ones its mistakes lead to, but each
turn is labelled with the teacher's plan, its action before the noise (the
DART recipe: noise in the expert's rollouts, clean labels). A student copying
the teacher's sampled actions learns to copy the noise too, and its own errors
add to it; one copying the plan does not.
"""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np

from sparring.kit.progress import silent
from sparring.players import ScriptedPlayer
from sparring.lm.model import ModelSize
from sparring.lm.rollout import LEARNER, learner_env, set_goal
from sparring.lm.town import NoisyPlanner, Turn, make_brain, turn


@dataclasses.dataclass
class DistillConfig:
    """Knobs of :func:`distill`."""

    teacher: str = "scripted:planner_noisy"
    """Brain spec of the teacher (see ``sparring.lm.town.SPECS``)."""
    episodes: int = 48
    """Teacher episodes recorded."""
    goal: str = "any"
    """Give character 0 this goal in every episode: any (keep the random one), rich, house or gathering."""
    held_out: float = 0.125
    """Fraction of those episodes kept for the accuracy test (at least one)."""
    steps: int = 400
    """Optimiser steps."""
    batch_size: int = 16
    """Turns per step."""
    lr: float = 3e-3
    """Peak AdamW learning rate (linear warm-up over 5% of the steps, then cosine decay)."""
    vocab: int = 1024
    """BPE vocabulary size."""
    hidden: int = 128
    layers: int = 2
    heads: int = 4
    intermediate: int = 344
    context: int = 1280
    """Longest prompt plus answer, in tokens."""
    seed: int = 0
    threads: int | None = None
    """torch CPU threads (default: torch's)."""
    labels: str = "teacher"
    """What each turn is labelled with: teacher (the action it took) or plan (a planner_noisy teacher's action
    before its noise)."""


LABELS = ("teacher", "plan")


@dataclasses.dataclass(frozen=True)
class Sample:
    """A recorded turn and the index of the teacher's line among its legal lines."""

    turn: Turn
    choice: int
    episode: int


def collect_turns(
    teacher: str,
    episodes: int,
    seed: int = 0,
    env: str = "town",
    goal: str = "any",
    num_envs: int = 16,
    progress=None,
    labels: str = "teacher",
    **config,
) -> list[Sample]:
    """The teacher's turns as character 0 in ``episodes`` episodes (the rest of the town is the planner), each
    labelled with the action taken (``labels="teacher"``) or a noisy planner's plan (``"plan"``);
    ``progress`` (a :class:`~sparring.kit.progress.Progress`) counts the episodes and the turns."""
    progress = progress or silent()
    batch = learner_env(min(num_envs, episodes), seed, env, goal, **config)
    brain = make_brain(teacher, batch, seed)
    if labels not in LABELS or (labels == "plan" and not isinstance(brain, NoisyPlanner)):
        raise ValueError(
            f"labels must be one of {list(LABELS)}, and plan needs a scripted:planner_noisy teacher; "
            f"got {labels!r} with {teacher!r}"
        )
    plan = ScriptedPlayer(batch, "planner") if labels == "plan" else None  # deterministic: the teacher's plan
    samples: list[Sample] = []
    done = 0
    progress.start(episodes, unit="episode")
    while done < episodes:
        playing = min(batch.num_envs, episodes - done)
        while not batch.done[:playing].all():
            envs = [e for e in range(playing) if not batch.done[e] and batch.records["alive"][e][LEARNER]]
            actions = np.zeros((batch.rows, 1), np.int32)
            if envs:
                rows = np.array([e * batch.num_agents + LEARNER for e in envs], np.int64)
                chosen = brain.act(batch, rows)
                actions[rows] = chosen
                label = plan.act(batch, rows) if plan is not None else chosen
                for e, a in zip(envs, label[:, 0]):
                    t = turn(batch.records[e], batch.config, LEARNER)
                    samples.append(Sample(t, t.actions.index(int(a)), done + e))
            batch.step(actions)
            progress.update(done + int(batch.done[:playing].sum()), {"turns": len(samples)})
        done += playing
        batch.reset_envs(np.arange(batch.num_envs))
        set_goal(batch, goal)
    return samples


def training_lines(samples: list[Sample]) -> list[str]:
    """Every distinct line of the recorded prompts and answers (the tokenizer's training text)."""
    return sorted(
        {line for s in samples for line in s.turn.text.split("\n")} | {line for s in samples for line in s.turn.lines}
    )


def choice_loss(scorer, batch: list[Sample]):
    """Mean over ``batch`` of the cross-entropy of the teacher's line among the legal lines plus its token loss."""
    import torch

    prompts = [scorer.prompt_ids(s.turn.text) for s in batch]
    cands = [[scorer.line_ids(line) for line in s.turn.lines] for s in batch]
    scores = scorer.scores(prompts, cands)
    losses = [
        torch.logsumexp(sc, 0) - sc[s.choice] - sc[s.choice] / len(c[s.choice])
        for sc, s, c in zip(scores, batch, cands)
    ]
    return torch.stack(losses).mean()


def accuracy(scorer, samples: list[Sample], batch_size: int = 16) -> float:
    """Fraction of ``samples`` where the most likely legal line is the teacher's."""
    from sparring.lm.choice import choose_lines

    if not samples:
        return float("nan")
    picked = choose_lines(
        scorer,
        [s.turn.text for s in samples],
        [s.turn.lines for s in samples],
        0.0,
        np.random.default_rng(0),
        batch_size,
    )
    return float(np.mean([k == s.choice for k, s in zip(picked.index, samples)]))


def lr_at(step: int, steps: int, peak: float) -> float:
    """Linear warm-up over the first 5% of ``steps``, then cosine decay to 10% of ``peak``."""
    warm = max(1, steps // 20)
    if step < warm:
        return peak * (step + 1) / warm
    frac = (step - warm) / max(1, steps - warm)
    return peak * (0.1 + 0.45 * (1 + np.cos(np.pi * frac)))


def distill(out: str, cfg: DistillConfig = DistillConfig(), env: str = "town", progress=None, **env_config) -> dict:
    """Record the teacher, build and fine-tune the model, save it to ``out``; returns the report it also saves.

    ``progress`` (a :class:`~sparring.kit.progress.Progress`) says which stage runs and counts the
    teacher's episodes, then the optimiser steps with the loss.
    """
    progress = progress or silent()
    progress.status("loading torch and transformers")
    import torch

    from sparring.lm.choice import LineScorer
    from sparring.lm.model import build_model, save_model_folder, train_tokenizer

    if cfg.episodes < 2 or cfg.steps < 1 or cfg.batch_size < 1 or not 0 < cfg.held_out < 1:
        raise ValueError(
            f"distill needs episodes >= 2, steps >= 1, batch_size >= 1 and 0 < held_out < 1; got "
            f"{cfg.episodes}, {cfg.steps}, {cfg.batch_size}, {cfg.held_out}"
        )
    if os.path.exists(out):
        raise FileExistsError(f"{out} exists; choose a new folder for the distilled model")
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    started = time.perf_counter()
    progress.status(f"recording the teacher's turns ({cfg.teacher})")
    samples = collect_turns(
        cfg.teacher, cfg.episodes, cfg.seed, env, cfg.goal, progress=progress, labels=cfg.labels, **env_config
    )
    test_from = cfg.episodes - max(1, round(cfg.episodes * cfg.held_out))
    train = [s for s in samples if s.episode < test_from]
    test = [s for s in samples if s.episode >= test_from]
    progress.status(f"training the tokenizer and building the model on {len(train)} turns")
    tokenizer = train_tokenizer(training_lines(train), cfg.vocab)
    size = ModelSize(cfg.hidden, cfg.layers, cfg.heads, cfg.intermediate, cfg.context)
    model = build_model(tokenizer, size, cfg.seed)
    scorer = LineScorer(model, tokenizer)
    train = [
        s for s in train if scorer.fits(scorer.prompt_ids(s.turn.text), [scorer.line_ids(x) for x in s.turn.lines])
    ]
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01)
    rng = np.random.default_rng(cfg.seed)
    progress.status("fine-tuning")
    progress.start(cfg.steps, unit="step")
    model.train()
    for step in range(cfg.steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, cfg.steps, cfg.lr)
        loss = choice_loss(scorer, [train[i] for i in rng.integers(0, len(train), cfg.batch_size)])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        progress.update(step + 1, {"loss": loss.item()})
    model.eval()
    progress.status("measuring held-out and train accuracy")
    report = {
        "teacher": cfg.teacher,
        "labels": cfg.labels,
        "env": env,
        "env_config": env_config,
        "episodes": cfg.episodes,
        "train_turns": len(train),
        "held_out_turns": len(test),
        "held_out_accuracy": accuracy(scorer, test),
        "train_accuracy": accuracy(scorer, train[: len(test)]),
        "parameters": sum(p.numel() for p in model.parameters()),
        "seconds": time.perf_counter() - started,
        "config": dataclasses.asdict(cfg),
    }
    progress.status(f"saving {out}")
    save_model_folder(model, tokenizer, out, info={"distill": report})
    return report
