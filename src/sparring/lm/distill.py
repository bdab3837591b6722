"""``sparring distill ENV``: record a teacher's turns, build the small model from their text, fine-tune, save.

Any env with a text face (:mod:`sparring.kit.text`). The learner is seat 0;
the env plays what it can of the other seats (its face's ``configure``: town's
planner plays every other character, duel's ``opponent`` the other fighter).
Every turn of the teacher becomes a sample (the turn's prompt -> the legal
line that stands for its action, the face's ``line_of``).
Training minimises the cross-entropy of the teacher's line among the legal
lines (the policy :class:`~sparring.lm.choice.LineScorer` decodes with) plus
the line's own token loss (so free generation answers with a line too).
Held-out accuracy is over the turns of episodes never trained on.

With ``labels="plan"`` (a noisy scripted teacher ``scripted:NAME:P`` only) the noisy
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

from sparring.kit import registry
from sparring.kit.config import check_range
from sparring.kit.memory import peak_resident, return_freed_memory
from sparring.kit.progress import silent
from sparring.kit.text import require_face
from sparring.lm.decisions import Meter
from sparring.lm.learners import give_goal, learners_env
from sparring.lm.model import ModelSize
from sparring.lm.specs import DEFAULT_NOISE, Continuing, Turn, make_brain, turn
from sparring.lm.prompts import PROMPTS
from sparring.players.noisy import NoisyPlayer


COUNT_MAX = 10**9
"""Top of a count knob (episodes, steps, sizes): more would run for ever or not fit in memory."""


def ranged(default, low: float | None = None, high: float | None = None):
    """A numeric config field that must lie in [``low``, ``high``] (and be finite), checked by :func:`check_knobs`
    when the config is made and by the CLI's flag types (:func:`sparring.cli.lm._config_args`)."""
    return dataclasses.field(default=default, metadata={"range": (low, high)})


def choices(default: str, valid: tuple[str, ...]):
    """A text config field that must be one of ``valid`` (the CLI's flag takes only those)."""
    return dataclasses.field(default=default, metadata={"choices": tuple(valid)})


def check_knobs(cfg, what: str) -> None:
    """Every ranged field of the config dataclass ``cfg`` is a finite number in its range (an int field an integer),
    every field with choices one of them; else a ValueError naming the field, its flag and what is valid."""
    for f in dataclasses.fields(cfg):
        value, where = getattr(cfg, f.name), f"{what} setting {f.name!r} (--{f.name.replace('_', '-')})"
        if "choices" in f.metadata and value not in f.metadata["choices"]:
            raise ValueError(f"{where} is {value!r}; valid values: {list(f.metadata['choices'])}")
        if "range" not in f.metadata or value is None:
            continue
        integral = str(f.type).startswith("int")
        if isinstance(value, bool) or not isinstance(value, int if integral else (int, float)):
            raise ValueError(f"{where} is {value!r}; valid: {'an integer' if integral else 'a finite number'}")
        check_range(where, f, value)


def model_bytes(size: ModelSize, vocab: int, training: bool = False) -> int:
    """About the bytes of a small Llama-style model of ``size`` and ``vocab`` tokens in float32 (tied embeddings):
    its weights, and with ``training`` their gradients and AdamW's two moments too."""
    per_layer = 4 * size.hidden * size.hidden + 3 * size.hidden * size.intermediate + 2 * size.hidden
    params = vocab * size.hidden + size.layers * per_layer + size.hidden
    return 4 * params * (4 if training else 2)  # build-lm: the model and its saved copy


def check_model_memory(size: ModelSize, vocab: int, flags: str, training: bool = False) -> None:
    """A ValueError naming ``flags`` when a model of ``size`` would need more memory than is available (the check
    ``train`` does, :func:`sparring.kit.memory.check_fits`), before anything is allocated."""
    from sparring.kit.memory import check_fits

    check_fits(
        model_bytes(size, vocab, training),
        f"a model of hidden={size.hidden}, layers={size.layers}, intermediate={size.intermediate}, vocab={vocab}",
        f"lower {flags}",
    )


@dataclasses.dataclass
class DistillConfig:
    """Knobs of :func:`distill` (ranges checked when it is made: a ValueError names the field)."""

    teacher: str = ""
    """Brain spec of the teacher (see :func:`sparring.lm.specs.specs_of`); empty: the env's best scripted player
    with noise 0.3 (``scripted:BEST:0.3``, town's ``scripted:planner:0.3``)."""
    episodes: int = ranged(48, 2, COUNT_MAX)
    """Teacher episodes recorded."""
    goal: str = "any"
    """Give seat 0 this goal in every episode (one of the face's goals; town: rich, house or gathering); any:
    keep the env's."""
    held_out: float = ranged(0.125, 0, 1)
    """Fraction of those episodes kept for the accuracy test (at least one)."""
    steps: int = ranged(400, 1, COUNT_MAX)
    """Optimiser steps."""
    batch_size: int = ranged(16, 1, COUNT_MAX)
    """Turns per step."""
    microbatch: int = ranged(4, 1, COUNT_MAX)
    """Turns per forward and backward pass: a step sums its batch's gradient over passes of this many turns (the
    same step, less memory). With a ``base`` each layer is recomputed in the backward pass instead of kept: a town
    turn then keeps about 0.05 GiB through SmolLM2-135M instead of 0.68 (:mod:`sparring.lm.fit_memory`)."""
    lr: float = ranged(3e-3, 0)
    """Peak AdamW learning rate (linear warm-up over 5% of the steps, then cosine decay)."""
    base: str = ""
    """A pretrained model to fine-tune (a model spec: a folder, a .gguf file or ``smollm2``, see
    :mod:`sparring.lm.model_spec`) instead of building a small model from the teacher's text; vocab, hidden,
    layers, heads, intermediate and context are then the base's own."""
    lora: int = ranged(0, 0, 65536)
    """With ``base``: LoRA rank (alpha twice the rank) on the projections found in the model; 0: full fine-tuning.
    The saved folder is the base with the adapters merged."""
    chat_template: str = ""
    """With ``base``: the prompt format of a model without a chat template, "plain" or a Jinja file."""
    vocab: int = ranged(1024, 1, COUNT_MAX)
    """BPE vocabulary size."""
    hidden: int = ranged(128, 1, COUNT_MAX)
    layers: int = ranged(2, 1, COUNT_MAX)
    heads: int = ranged(4, 1, COUNT_MAX)
    intermediate: int = ranged(344, 1, COUNT_MAX)
    context: int = ranged(1280, 1, COUNT_MAX)
    """Longest prompt plus answer, in tokens."""
    seed: int = ranged(0, 0, 2**63 - 1)
    threads: int | None = ranged(None, 1, 1024)
    """torch CPU threads (default: torch's)."""
    labels: str = choices("teacher", ("teacher", "plan"))
    """What each turn is labelled with: teacher (the action it took) or plan (a noisy scripted teacher's action
    before its noise)."""
    dagger: int = ranged(0, 0, COUNT_MAX)
    """DAgger rounds after the first training: the student plays ``dagger_episodes`` episodes (sampling at
    temperature 1, as GRPO and the evaluation play), the teacher labels the states it reached, those turns join
    the training turns, and training goes on for ``dagger_steps`` more steps."""
    dagger_episodes: int = ranged(32, 1, COUNT_MAX)
    dagger_steps: int = ranged(200, 1, COUNT_MAX)
    prompt: str = choices("full", PROMPTS)
    """How turns are put to the model (:func:`sparring.lm.specs.turn`): full, or compact (fewer tokens; a walk in
    progress goes on undecided, and those turns are not recorded); saved with the model, which plays in it."""

    def __post_init__(self):
        check_knobs(self, "distill")


LABELS = ("teacher", "plan")
LEARNER = 0  # the seat distilled
DAGGER_SEED = 7_919  # DAgger round r plays towns seeded cfg.seed + DAGGER_SEED * (r + 1): not the teacher's


@dataclasses.dataclass(frozen=True)
class Sample:
    """A recorded turn and the index of the teacher's line among its legal lines."""

    turn: Turn
    choice: int
    episode: int


def default_teacher(env_cls) -> str:
    """The teacher of an empty ``teacher`` spec: the env's best scripted player with noise 0.3."""
    if not env_cls.best_scripted:
        raise ValueError(f"env {env_cls.name!r} has no scripted player to teach; give --teacher SPEC")
    return f"scripted:{env_cls.best_scripted}:{DEFAULT_NOISE}"


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
    prompt: str = "full",
    **config,
) -> list[Sample]:
    """Seat 0's turns in ``episodes`` episodes, played by the teacher or by ``actor`` (a player: DAgger's
    student), each labelled with the line of the teacher's action (``labels="teacher"``) or of a noisy scripted
    teacher's plan (``"plan"``); ``progress`` (a :class:`~sparring.kit.progress.Progress`) counts the episodes
    and the turns. In the ``prompt`` "compact" a walk in progress goes on (whoever plays) and is not recorded."""
    progress = progress or silent()
    batch = learners_env(min(num_envs, episodes), seed, [LEARNER], env, goal, **config)
    cls, cfg = batch.env_cls, batch.config
    face = require_face(cls)
    brain = make_brain(teacher or default_teacher(cls), batch, seed)
    if labels not in LABELS or (labels == "plan" and not isinstance(brain, NoisyPlayer)):
        raise ValueError(
            f"labels must be one of {list(LABELS)}, and plan needs a noisy scripted teacher (scripted:NAME:P); "
            f"got {labels!r} with {teacher!r}"
        )
    plan = brain.inner if labels == "plan" else None  # deterministic: the teacher's plan
    samples: list[Sample] = []
    done = 0
    continuing = Continuing()
    progress.start(episodes, unit="episode")
    while done < episodes:
        playing = min(batch.num_envs, episodes - done)
        while not batch.done[:playing].all():
            envs = [e for e in range(playing) if not batch.done[e] and face.acting(batch.records[e], cfg, LEARNER)]
            actions = np.zeros((batch.rows, len(batch.heads.sizes)), np.int32)
            if envs:
                rows = np.array([e * batch.num_agents + LEARNER for e in envs], np.int64)
                chosen = (actor or brain).act(batch, rows)
                if plan is not None:
                    label = plan.act(batch, rows)
                else:  # the teacher's own action; asked on the student's states when the student plays
                    label = chosen if actor is None else brain.act(batch, rows)
                actions[rows] = chosen
                for e, a in zip(envs, label):
                    s = batch.records[e]
                    going = continuing.kept(face, s, cfg, LEARNER, e) if prompt == "compact" else None
                    if going is not None:
                        actions[e * batch.num_agents + LEARNER] = going
                    else:
                        sample = Sample(turn(cls, s, cfg, LEARNER, prompt), face.line_of(s, cfg, LEARNER, a), done + e)
                        samples.append(sample)
                    continuing.took(e, s, actions[e * batch.num_agents + LEARNER])
            batch.step(actions)
            progress.update(done + int(batch.done[:playing].sum()), {"turns": len(samples)})
        done += playing
        batch.reset_envs(np.arange(batch.num_envs))
        give_goal(batch, [LEARNER], goal)
    return samples


def training_lines(samples: list[Sample]) -> list[str]:
    """Every distinct line of the recorded prompts and answers (the tokenizer's training text)."""
    return sorted(
        {line for s in samples for line in s.turn.text.split("\n")} | {line for s in samples for line in s.turn.lines}
    )


def choice_losses(scorer, batch: list[Sample]):
    """Per turn of ``batch``, the cross-entropy of the teacher's line among the legal lines plus its token loss."""
    import torch

    prompts = [scorer.prompt_ids(s.turn.text) for s in batch]
    cands = [[scorer.line_ids(line) for line in s.turn.lines] for s in batch]
    scores = scorer.scores(prompts, cands)
    losses = [
        torch.logsumexp(sc, 0) - sc[s.choice] - sc[s.choice] / len(c[s.choice])
        for sc, s, c in zip(scores, batch, cands)
    ]
    return torch.stack(losses)


def choice_loss(scorer, batch: list[Sample]):
    """Mean over ``batch`` of :func:`choice_losses`."""
    return choice_losses(scorer, batch).mean()


def backward_in_passes(scorer, batch: list[Sample], microbatch: int, passed=None) -> float:
    """Backpropagate :func:`choice_loss` over ``batch`` in passes of ``microbatch`` turns (each pass its share,
    the sum of its turns' losses over ``len(batch)``), each pass's graph freed before the next; returns the loss.
    The gradients add up to those of one pass over the whole batch, with a pass's memory. ``passed(turns)``,
    when given, hears after each pass how many of the batch's turns are done."""
    total = 0.0
    for start in range(0, len(batch), microbatch):
        share = choice_losses(scorer, batch[start : start + microbatch]).sum() / len(batch)
        share.backward()
        total += share.item()
        if passed is not None:
            passed(min(start + microbatch, len(batch)))
    return total


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


def check_training_memory(scorer, train: list[Sample], cfg: DistillConfig) -> None:
    """A ValueError naming ``--microbatch`` when the gradients, AdamW's moments and a pass over the ``microbatch``
    longest training turns would need more memory than is free (the model itself is loaded by then)."""
    from sparring.kit.memory import check_fits
    from sparring.lm.choice import line_trie
    from sparring.lm.fit_memory import optimizer_bytes, pass_bytes

    sizes = []
    for s in train:
        trie = len(line_trie([scorer.line_ids(x) for x in s.turn.lines]).tokens)
        sizes.append((len(scorer.prompt_ids(s.turn.text)) + trie, trie))
    longest = sorted(sizes, reverse=True)[: cfg.microbatch]
    trained = sum(p.numel() for p in scorer.model.parameters() if p.requires_grad)
    remedy = "lower --microbatch (1 is the least)" + ("" if cfg.lora or not cfg.base else ", or train --lora 8")
    check_fits(
        optimizer_bytes(trained) + pass_bytes(scorer.model.config, longest, recompute=bool(cfg.base)),
        f"fine-tuning {trained} parameters on passes of {len(longest)} turns (--microbatch {cfg.microbatch})",
        remedy,
    )


def fit(scorer, opt, train: list[Sample], steps: int, cfg: DistillConfig, rng: np.random.Generator, progress) -> None:
    """``steps`` optimiser steps of :func:`choice_loss` on batches drawn from ``train`` (warm-up, cosine decay)."""
    import torch

    progress.start(steps, unit="step")
    scorer.model.train()
    # a base's layers are recomputed (_student), and a recomputed layer drops the head's cache: each row reads it
    shared, scorer.share_prefix = scorer.share_prefix, scorer.share_prefix and not cfg.base
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps, cfg.lr)
        opt.zero_grad(set_to_none=True)
        batch = [train[i] for i in rng.integers(0, len(train), cfg.batch_size)]
        # a base's step takes a minute: the line moves with each pass
        loss = backward_in_passes(
            scorer, batch, cfg.microbatch, lambda done: progress.update(fraction=(step + done / len(batch)) / steps)
        )
        torch.nn.utils.clip_grad_norm_(scorer.model.parameters(), 1.0)
        opt.step()
        progress.update(step + 1, {"loss": loss})
    scorer.model.eval()
    scorer.share_prefix = shared


def student_turns(scorer, cfg: DistillConfig, round_: int, env: str = "town", progress=None, **env_config):
    """DAgger round ``round_``: the student (``scorer``'s model, sampling at temperature 1) plays
    ``cfg.dagger_episodes`` episodes as seat 0 in envs of their own seed; the teacher labels its states."""
    import tempfile

    from sparring.lm.model import save_model_folder
    from sparring.lm.specs import ChoiceBrain

    with tempfile.TemporaryDirectory() as tmp:  # the student as a player: a copy of it, saved and loaded
        folder = save_model_folder(scorer.model, scorer.tokenizer, os.path.join(tmp, "student"))
        student = ChoiceBrain(folder, temperature=1.0, seed=cfg.seed + round_, prompt=cfg.prompt)
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
            prompt=cfg.prompt,
            **env_config,
        )


def distill(out: str, cfg: DistillConfig = DistillConfig(), env: str = "town", progress=None, **env_config) -> dict:
    """Record the teacher, build and fine-tune the model, save it to ``out``; returns the report it also saves.

    ``progress`` (a :class:`~sparring.kit.progress.Progress`) says which stage runs and counts the
    teacher's episodes, then the optimiser steps with the loss.
    """
    progress = progress or silent()
    check_knobs(cfg, "distill")  # again: a field may have changed since the config was made
    return_freed_memory()  # a freed pass's activations leave the process, not stay at its peak
    progress.status("loading torch and transformers")
    import torch

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
    if cfg.lora < 0 or (cfg.lora and not cfg.base) or (cfg.lora and cfg.dagger):
        raise ValueError(
            f"--lora must be a rank >= 1 with --base SPEC (and without --dagger), or 0; got {cfg.lora} with "
            f"base {cfg.base!r} and dagger {cfg.dagger}"
        )
    if cfg.chat_template and not cfg.base:
        raise ValueError(
            f"--chat-template applies to a --base model only (a built model has its own); got {cfg.chat_template!r}"
        )
    if os.path.exists(out):
        raise FileExistsError(f"{out} exists; choose a new folder for the distilled model")
    if not cfg.base:
        size = ModelSize(cfg.hidden, cfg.layers, cfg.heads, cfg.intermediate, cfg.context)  # heads divide hidden
        check_model_memory(size, cfg.vocab, "--hidden, --layers, --intermediate or --vocab", training=True)
    if cfg.base:
        from sparring.lm.model_spec import resolve

        resolve(cfg.base)  # a missing or damaged base fails before the teacher plays
        if cfg.chat_template not in ("", "plain") and not os.path.isfile(cfg.chat_template):
            raise ValueError(f"--chat-template {cfg.chat_template!r} is neither 'plain' nor a file (a Jinja template)")
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    started = time.perf_counter()
    progress.status(f"recording the teacher's turns ({cfg.teacher})")
    samples = collect_turns(
        cfg.teacher,
        cfg.episodes,
        cfg.seed,
        env,
        cfg.goal,
        progress=progress,
        labels=cfg.labels,
        prompt=cfg.prompt,
        **env_config,
    )
    test_from = cfg.episodes - max(1, round(cfg.episodes * cfg.held_out))
    train = [s for s in samples if s.episode < test_from]
    test = [s for s in samples if s.episode >= test_from]
    model, tokenizer, scorer = _student(cfg, train, progress)
    train = [s for s in train if fits(scorer, s)]
    check_training_memory(scorer, train, cfg)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=cfg.lr, weight_decay=0.01)
    rng = np.random.default_rng(cfg.seed)
    progress.status("fine-tuning")
    fit(scorer, opt, train, cfg.steps, cfg, rng, progress)
    dagger_turns, meter = 0, Meter()  # the student's decisions while it plays or is measured
    progress.watch(meter.figures)
    for r in range(cfg.dagger):
        meter.restart()
        progress.status(f"DAgger round {r + 1}: the student plays, the teacher labels its states")
        more = [s for s in student_turns(scorer, cfg, r, env, progress, **env_config) if fits(scorer, s)]
        train, dagger_turns = train + more, dagger_turns + len(more)
        progress.status(f"DAgger round {r + 1}: fine-tuning on {len(train)} turns")
        fit(scorer, opt, train, cfg.dagger_steps, cfg, rng, progress)
    progress.status("measuring held-out and train accuracy")
    meter.restart()
    held_out, trained = accuracy(scorer, test), accuracy(scorer, train[: len(test)])
    report = {
        "teacher": cfg.teacher or default_teacher(registry.get(env)),
        "labels": cfg.labels,
        "env": env,
        "env_config": env_config,
        "episodes": cfg.episodes,
        "train_turns": len(train),
        "dagger_turns": dagger_turns,
        "held_out_turns": len(test),
        "held_out_accuracy": held_out,
        "train_accuracy": trained,
        "accuracy_decisions": meter.report(),
        "parameters": sum(p.numel() for p in model.parameters()),
        "trained_parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "base": cfg.base or None,
        "seconds": time.perf_counter() - started,
        "peak_memory": peak_resident(),
        "config": dataclasses.asdict(cfg),
    }
    progress.status(f"saving {out}")
    if cfg.lora:
        from sparring.lm.lora import save_merged

        save_merged(model, tokenizer, out, info={"distill": report, "prompt": cfg.prompt})
    else:
        from sparring.lm.model_spec import save_model

        save_model(model, tokenizer, out, info={"distill": report, "prompt": cfg.prompt})
    return report


def _student(cfg: DistillConfig, train: list[Sample], progress):
    """The model to train (a peft model with ``lora``), its tokenizer and its scorer: the pretrained ``base``, or
    a small model built from the training turns' text."""
    from sparring.lm.choice import LineScorer

    if cfg.base:
        from sparring.lm.fit_memory import recompute_layers
        from sparring.lm.lora import add_lora
        from sparring.lm.model_spec import load_model, load_tokenizer

        progress.status(f"loading the base model {cfg.base}")
        model, tokenizer = load_model(cfg.base), load_tokenizer(cfg.base, cfg.chat_template or None)
        recompute_layers(model)
        if cfg.lora:
            model = add_lora(model, cfg.lora)
            return model, tokenizer, LineScorer(model.base_model.model, tokenizer, prompt=cfg.prompt)
        return model, tokenizer, LineScorer(model, tokenizer, prompt=cfg.prompt)
    from sparring.lm.model import build_model, train_tokenizer

    progress.status(f"training the tokenizer and building the model on {len(train)} turns")
    tokenizer = train_tokenizer(training_lines(train), cfg.vocab)
    model = build_model(
        tokenizer, ModelSize(cfg.hidden, cfg.layers, cfg.heads, cfg.intermediate, cfg.context), cfg.seed
    )
    return model, tokenizer, LineScorer(model, tokenizer, prompt=cfg.prompt)
