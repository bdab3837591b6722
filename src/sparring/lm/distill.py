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

With ``dagger`` rounds the student then plays itself and the teacher labels
the states the student reaches (DAgger): behaviour cloning alone only sees the
teacher's states, so the student's own mistakes lead it where it never learnt.
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
    dagger: int = 0
    """DAgger rounds after the first training: the student plays ``dagger_episodes`` episodes (sampling at
    temperature 1, as GRPO and the evaluation play), the teacher labels the states it reached, those turns join
    the training turns, and training goes on for ``dagger_steps`` more steps."""
    dagger_episodes: int = 32
    dagger_steps: int = 200


LABELS = ("teacher", "plan")
DAGGER_SEED = 7_919  # DAgger round r plays towns seeded cfg.seed + DAGGER_SEED * (r + 1): not the teacher's


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
    actor=None,
    **config,
) -> list[Sample]:
    """Character 0's turns in ``episodes`` episodes (the rest of the town is the planner), played by the teacher
    or by ``actor`` (a player: DAgger's student), each labelled with the teacher's action (``labels="teacher"``)
    or a noisy planner's plan (``"plan"``); ``progress`` (a :class:`~sparring.kit.progress.Progress`) counts the
    episodes and the turns."""
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
                chosen = (actor or brain).act(batch, rows)
                if plan is not None:
                    label = plan.act(batch, rows)
                else:  # the teacher's own action; asked on the student's states when the student plays
                    label = chosen if actor is None else brain.act(batch, rows)
                actions[rows] = chosen
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


def fits(scorer, sample: Sample) -> bool:
    """Whether the sample's prompt and longest line fit the scorer's context."""
    return scorer.fits(scorer.prompt_ids(sample.turn.text), [scorer.line_ids(x) for x in sample.turn.lines])


def fit(scorer, opt, train: list[Sample], steps: int, cfg: DistillConfig, rng: np.random.Generator, progress) -> None:
    """``steps`` optimiser steps of :func:`choice_loss` on batches drawn from ``train`` (warm-up, cosine decay)."""
    import torch

    progress.start(steps, unit="step")
    scorer.model.train()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps, cfg.lr)
        loss = choice_loss(scorer, [train[i] for i in rng.integers(0, len(train), cfg.batch_size)])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(scorer.model.parameters(), 1.0)
        opt.step()
        progress.update(step + 1, {"loss": loss.item()})
    scorer.model.eval()


def student_turns(scorer, cfg: DistillConfig, round_: int, env: str = "town", progress=None, **env_config):
    """DAgger round ``round_``: the student (``scorer``'s model, sampling at temperature 1) plays
    ``cfg.dagger_episodes`` episodes as character 0 in towns of their own seed; the teacher labels its states."""
    import tempfile

    from sparring.lm.model import save_model_folder
    from sparring.lm.town import ChoiceBrain

    with tempfile.TemporaryDirectory() as tmp:  # the student as a player: a copy of it, saved and loaded
        folder = save_model_folder(scorer.model, scorer.tokenizer, os.path.join(tmp, "student"))
        student = ChoiceBrain(folder, temperature=1.0, seed=cfg.seed + round_)
        seed = cfg.seed + DAGGER_SEED * (round_ + 1)
        return collect_turns(
            cfg.teacher,
            cfg.dagger_episodes,
            seed,
            env,
            cfg.goal,
            progress=progress,
            labels=cfg.labels,
            actor=student,
            **env_config,
        )


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
    if cfg.dagger < 0 or (cfg.dagger and (cfg.dagger_episodes < 1 or cfg.dagger_steps < 1)):
        raise ValueError(
            f"distill needs dagger >= 0, and with DAgger rounds dagger_episodes >= 1 and dagger_steps >= 1; got "
            f"{cfg.dagger}, {cfg.dagger_episodes}, {cfg.dagger_steps}"
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
    train = [s for s in train if fits(scorer, s)]
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01)
    rng = np.random.default_rng(cfg.seed)
    progress.status("fine-tuning")
    fit(scorer, opt, train, cfg.steps, cfg, rng, progress)
    dagger_turns = 0
    for r in range(cfg.dagger):
        progress.status(f"DAgger round {r + 1}: the student plays, the teacher labels its states")
        more = [s for s in student_turns(scorer, cfg, r, env, progress, **env_config) if fits(scorer, s)]
        train, dagger_turns = train + more, dagger_turns + len(more)
        progress.status(f"DAgger round {r + 1}: fine-tuning on {len(train)} turns")
        fit(scorer, opt, train, cfg.dagger_steps, cfg, rng, progress)
    progress.status("measuring held-out and train accuracy")
    report = {
        "teacher": cfg.teacher,
        "labels": cfg.labels,
        "env": env,
        "env_config": env_config,
        "episodes": cfg.episodes,
        "train_turns": len(train),
        "dagger_turns": dagger_turns,
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
