"""``sparring grpo ENV``: GRPO on the in-game outcome, with groups played from one restored world state.

Any env with a text face (:mod:`sparring.kit.text`). Each iteration takes
``groups`` start states (fresh episodes seeded by the run seed and the
iteration, recorded ticks or archive cells: ``starts``, see
:mod:`sparring.lm.starts`) and restores each ``group`` times; each learning
seat (``learners``, seat 0 by default) samples its lines from its own copy of
the model (the env plays what it can of the other seats, the env's best
scripted player the rest: :mod:`sparring.lm.learners`) and plays each copy for
``turns`` ticks or to the episode end. A learner's reward in a copy is its
return there (the env's own reward) plus ``shaping`` x its best progress by the
env's face; its advantage is that reward normalised within the group, over its
own rewards only; its success (reported) is the face's. Each learner has its
own weights and optimizer (not one shared model): a seat's update then comes
only from its own turns, and the learners can grow apart, as characters of a
town do.
The env's dice live in the record, so the copies of a group differ only by
what the models chose, and every turn of a learner in a copy is a sample
with its advantage there (per-turn credit). The loss is PPO's clipped
objective on the ratio to the sampling policy, plus ``kl`` x the exact KL
divergence from the base model's policy over the same legal lines. The base is
any local causal LM (a model folder or a GGUF file: :mod:`sparring.lm.model_spec`).
Full fine-tuning, or with ``lora`` > 0 LoRA adapters (peft) on the attention and
MLP projections found in the model (:func:`sparring.lm.lora.lora_targets`), whose
reference is the same model with its adapters disabled; a LoRA run saves its
adapters, and a merged model folder too only with ``merged``. With ``workers`` > 1
the copies are played by Ray workers (:mod:`sparring.lm.grpo_workers`) and the
update stays here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import time

import numpy as np

from sparring.kit.atomic import atomic_file, atomic_path, clean_stale
from sparring.kit.config import make_config
from sparring.kit.memory import return_freed_memory
from sparring.kit.progress import silent
from sparring.lm.lora import AdapterOff, add_lora, load_adapter, save_adapter, save_merged
from sparring.lm.model_spec import load_model, load_tokenizer, resolve, save_model
from sparring.kit import registry
from sparring.kit.text import check_goal, require_face
from sparring.lm.decisions import Meter
from sparring.lm.distill import COUNT_MAX, check_knobs, choices, ranged
from sparring.lm.grpo_workers import PlayerPool, check_workers
from sparring.lm.learners import TurnSample, check_learners, learners_env, play_learners, set_goals
from sparring.lm.local import recorded_prompt
from sparring.lm.starts import SPECS, StartStates
from sparring.lm.prompts import PROMPTS

DEFAULT_LEARNERS = [0]


@dataclasses.dataclass
class GRPOConfig:
    """Knobs of :func:`grpo` (ranges checked when it is made: a ValueError names the field)."""

    group: int = ranged(8, 2, COUNT_MAX)
    """Copies of each start state (G)."""
    groups: int = ranged(2, 1, COUNT_MAX)
    """Start states per iteration."""
    temperature: float = ranged(1.0, 1e-3, 1e3)
    """Sampling temperature of the policy softmax(scores / temperature) over the legal lines."""
    lr: float = ranged(3e-4, 0, 1e3)
    """AdamW learning rate (3e-4 took a distilled 491K-parameter town brain from 0.6% to 32% success in 30 min)."""
    kl: float = ranged(0.02, 0, 1e6)
    """Weight of the KL penalty to the base model (0: no reference model is kept)."""
    clip: float = ranged(0.2, 1e-6, 1e3)
    epochs: int = ranged(1, 1, COUNT_MAX)
    """Passes over an iteration's turns."""
    minibatch: int = ranged(32, 1, COUNT_MAX)
    """Turns per gradient step."""
    microbatch: int = ranged(8, 1, COUNT_MAX)
    """Turns per forward and backward pass: a gradient step sums its minibatch's gradient over passes of this
    many turns (the same step, less memory: a 135M-parameter model holds about 0.5 GB per turn in float32)."""
    iterations: int = ranged(20, 1, COUNT_MAX)
    minutes: float = ranged(0.0, 0, 1e9)
    """Stop after this many minutes (0: no time limit)."""
    turns: int = ranged(0, 0, COUNT_MAX)
    """Ticks each copy plays (0: to the episode end)."""
    shaping: float = ranged(0.3, -1e6, 1e6)
    """Weight of the learner's best progress (by the env's text face) in the reward (0: its return only); it
    gives groups whose copies all fail a gradient."""
    goal: str = "any"
    """Give every learner this goal in every start state (one of the face's goals; town: rich, house or
    gathering); any: keep the env's."""
    starts: str = "fresh"
    """Where groups start: fresh (a new episode each), recording:PATH (recorded ticks) or archive:DIR (Go-Explore
    archive cells); see sparring.lm.starts."""
    batch_size: int = ranged(16, 1, COUNT_MAX)
    """Turns scored per forward pass while playing."""
    seed: int = ranged(0, 0, 2**63 - 1)
    threads: int | None = ranged(None, 1, 1024)
    """torch CPU threads (default: torch's)."""
    lora: int = ranged(0, 0, 65536)
    """LoRA rank (alpha twice the rank); 0: full fine-tuning."""
    dtype: str = choices("float32", ("float32", "bfloat16"))
    """The frozen base weights' type in a LoRA run (playing, the update and the KL reference); the adapters (peft
    makes them float32 over any base), the optimizer and a merged save stay float32. bfloat16 is faster on a CPU
    with bf16 units; its update reads the old log-probabilities again (one more forward pass per turn), since
    bfloat16's differ between batches."""
    merged: bool = False
    """A LoRA run also saves the merged model (``model/``, a plain folder as large as the base); by default only
    the adapters (``adapter/``), which ``--base`` plus the adapter reproduce."""
    chat_template: str = ""
    """The prompt format of a base model without a chat template: "plain" or a Jinja file (see
    sparring.lm.model_spec); empty: the model's own."""
    prompt: str = choices("", ("", *PROMPTS))
    """How turns are put to the model (:func:`sparring.lm.specs.turn`): full or compact; empty: the one the base
    model was trained with (its ``sparring.json``), else full. Saved with the trained model."""
    learners: list[int] = dataclasses.field(default_factory=lambda: list(DEFAULT_LEARNERS))
    """The learning seats, each played by its own copy of the model with its own optimizer (the env plays what
    it can of the rest)."""
    workers: int = ranged(1, 1, 1024)
    """Ray workers that play each iteration's copies, each with its own copy of the base (see
    sparring.lm.grpo_workers; each takes --threads torch threads, 1 when unset); 1: play in this process."""

    def __post_init__(self):
        check_knobs(self, "grpo")


def advantages(rewards: np.ndarray, group: int) -> np.ndarray:
    """Rewards normalised within each consecutive block of ``group`` copies (zero where a group's rewards are equal)."""
    r = rewards.reshape(-1, group)
    std = r.std(axis=1, keepdims=True)
    return np.where(std > 1e-8, (r - r.mean(axis=1, keepdims=True)) / np.maximum(std, 1e-8), 0.0).reshape(-1)


def policy_logp(scorer, turns: list[TurnSample], temperature: float):
    """Log-probabilities over the legal lines of each turn (a list of tensors), with grad when enabled."""
    import torch

    scores = scorer.scores([t.prompt for t in turns], [t.lines for t in turns])
    return [torch.log_softmax(s / temperature, 0) for s in scores]


def _loss_terms(scorer, ref, part: list[TurnSample], adv: np.ndarray, cfg: GRPOConfig, n: int) -> tuple:
    """Backpropagate ``part``'s share of a minibatch of ``n`` turns' loss (its sum over the part / n); returns
    that share, the part's summed KL to ``ref`` and its count of clipped ratios."""
    import torch

    logps = policy_logp(scorer, part, cfg.temperature)
    a = torch.tensor([adv[t.env] for t in part], dtype=torch.float32)
    new = torch.stack([lp[t.choice] for lp, t in zip(logps, part)])
    ratio = torch.exp(new - torch.tensor([t.logp for t in part], dtype=torch.float32))
    pg = -torch.minimum(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a)
    kl = torch.zeros(len(part))
    if ref is not None:
        with torch.no_grad():
            base = policy_logp(ref, part, cfg.temperature)
        kl = torch.stack([(lp.exp() * (lp - b)).sum() for lp, b in zip(logps, base)])
    loss = (pg + cfg.kl * kl).sum() / n
    loss.backward()
    return loss.item(), kl.sum().item(), ((ratio - 1).abs() > cfg.clip).sum().item()


def _passes(turns: list[TurnSample], cfg: GRPOConfig):
    """The update's passes over ``turns`` in order: per gradient step (``cfg.minibatch`` turns), its passes of
    ``cfg.microbatch``."""
    for start in range(0, len(turns), cfg.minibatch):
        chunk = turns[start : start + cfg.minibatch]
        yield [chunk[k : k + cfg.microbatch] for k in range(0, len(chunk), cfg.microbatch)]


def _old_logp_in_passes(scorer, turns: list[TurnSample], cfg: GRPOConfig) -> list[TurnSample]:
    """``turns`` with the chosen line's log-probability read again by the policy as it stands, in the passes the
    update will read them in. Over a bfloat16 base a line's log-probability depends on the batch it is read in
    (by up to 0.64 between passes, ``benchmarks/grpo_update_dtype.py``), so the played one would put that noise
    into the ratio at the first step; read in the same passes it starts at 1 (as TRL reads its old log-probabilities
    with the trained model rather than taking the sampler's)."""
    import torch

    again = []
    with torch.no_grad():
        for step in _passes(turns, cfg):
            for part in step:
                logps = policy_logp(scorer, part, cfg.temperature)
                again += [dataclasses.replace(t, logp=float(lp[t.choice])) for lp, t in zip(logps, part)]
    return again


def update(
    scorer, ref, opt, turns: list[TurnSample], adv: np.ndarray, cfg: GRPOConfig, rng: np.random.Generator
) -> dict:
    """One iteration's clipped-objective steps over ``turns`` (advantage ``adv[turn.env]``); mean loss terms. The
    ratio's old log-probabilities are the played ones, or over a bfloat16 base (``cfg.dtype``) those of the
    policy before the first step, read in the first epoch's passes (:func:`_old_logp_in_passes`)."""
    import torch

    used = [t for t in turns if adv[t.env] != 0.0]
    kls, losses, clipped = [], [], []
    scorer.model.train()
    for epoch in range(cfg.epochs):
        shuffled = [used[i] for i in rng.permutation(len(used))]
        if epoch == 0 and cfg.dtype == "bfloat16":
            used = shuffled = _old_logp_in_passes(scorer, shuffled, cfg)
        for step in _passes(shuffled, cfg):
            n = sum(len(part) for part in step)
            opt.zero_grad(set_to_none=True)
            terms = [_loss_terms(scorer, ref, part, adv, cfg, n) for part in step]
            torch.nn.utils.clip_grad_norm_(scorer.model.parameters(), 1.0)
            opt.step()
            loss, kl, clip = (sum(t[i] for t in terms) for i in range(3))
            kls.append(kl / n)
            losses.append(loss)
            clipped.append(clip / n)
    scorer.model.eval()
    mean = lambda xs: float(np.mean(xs)) if xs else 0.0  # noqa: E731
    return {"kl": mean(kls), "loss": mean(losses), "clip_frac": mean(clipped), "samples": len(used)}


@dataclasses.dataclass
class Learner:
    """One learning character: its policy (a peft model in a LoRA run), scorer, KL reference and optimizer."""

    character: int
    policy: object
    scorer: object
    ref: object
    opt: object


class Run:
    """The run folder ``out``: per learner ``model/`` (the current policy: a full fine-tuning run's, or a LoRA
    run's merged with ``merged``), ``adapter/`` (a LoRA run's adapters) and ``optimizer.pt`` (with more than one
    learner, or another than character 0: ``model-C/``, ``adapter-C/``, ``optimizer-C.pt`` for character C);
    ``state.json``, ``metrics.jsonl`` and ``success.png``."""

    def __init__(self, out: str, learners: list[int] = DEFAULT_LEARNERS):
        self.out = os.path.abspath(out)
        self.learners = list(learners)
        self.model = self.model_of(self.learners[0])
        self.state = os.path.join(self.out, "state.json")
        self.metrics = os.path.join(self.out, "metrics.jsonl")
        self.plot = os.path.join(self.out, "success.png")

    def _named(self, name: str, character: int, ext: str = "") -> str:
        tag = "" if self.learners == DEFAULT_LEARNERS else f"-{character}"
        return os.path.join(self.out, f"{name}{tag}{ext}")

    def model_of(self, character: int) -> str:
        """The model folder of learner ``character``."""
        return self._named("model", character)

    def adapter_of(self, character: int) -> str:
        """The LoRA adapter folder of learner ``character``."""
        return self._named("adapter", character)

    def optimizer_of(self, character: int) -> str:
        """The optimizer file of learner ``character``."""
        return self._named("optimizer", character, ".pt")

    def read_state(self) -> dict:
        """The saved state of a run to resume; a clear error when ``out`` holds none."""
        if not os.path.isfile(self.state):
            raise ValueError(f"--resume: {self.out} has no state.json (not a grpo run folder, or it never saved)")
        with open(self.state, encoding="utf-8") as f:
            return json.load(f)

    def save(self, learners: list[Learner], tokenizer, state: dict, history: list[dict], merged: bool = False) -> None:
        """Per learner its model (for a peft model: the adapters, and merged into a copy with ``merged``) and
        optimizer (with torch's RNG state), then the state and metrics, each written to a temporary file or
        folder and renamed."""
        import torch

        for learner in learners:
            model, info = learner.policy, {"grpo": {**state, "character": learner.character}}
            info["prompt"] = learner.scorer.prompt
            if hasattr(model, "merge_and_unload"):  # a peft model: its adapters; model/ a plain folder on request
                save_adapter(model, self.adapter_of(learner.character), overwrite=True)
                if merged:
                    save_merged(model, tokenizer, self.model_of(learner.character), overwrite=True, info=info)
            else:
                save_model(model, tokenizer, self.model_of(learner.character), overwrite=True, info=info)
            with atomic_path(self.optimizer_of(learner.character)) as tmp:
                torch.save({"optimizer": learner.opt.state_dict(), "torch_rng": torch.get_rng_state()}, tmp)
        with atomic_file(self.metrics, encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in history)
        with atomic_file(self.state, encoding="utf-8") as f:
            json.dump(state, f, indent=1)
        with atomic_path(self.plot) as tmp:
            plot_success(history, tmp)

    def clean(self) -> list[str]:
        """Remove the temporary files and folders a killed run left in the run folder (a half-written
        ``.success.png.XXXXXXXX.tmp.png``, model or optimizer): no live writer holds their lock, and this run
        owns the folder, so they are removed whatever their age; returns them."""
        return clean_stale(self.out, older_than=0.0)

    def load_history(self, iterations: int) -> list[dict]:
        """Metrics lines of the first ``iterations`` iterations."""
        if not os.path.isfile(self.metrics):
            return []
        with open(self.metrics, encoding="utf-8") as f:
            return [row for row in map(json.loads, f) if row["iteration"] < iterations]


def plot_success(history: list[dict], path: str) -> None:
    """PNG of each learner's success rate (and the mean reward) in each iteration's groups."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    its = [h["iteration"] for h in history]
    per = [h.get("learners", {"0": h}) for h in history]  # rows saved before per-learner metrics: character 0
    characters = sorted({c for row in per for c in row}, key=int)
    for c in characters:
        label = "success rate" if characters == ["0"] else f"character {c} success"
        ax.plot(its, [row[c]["success_rate"] if c in row else np.nan for row in per], marker="o", ms=3, label=label)
    ax.plot(its, [h["reward"] for h in history], alpha=0.6, label="mean reward")
    ax.set_xlabel("GRPO iteration")
    ax.set_ylim(-0.02, max([1.0] + [h["reward"] for h in history]) + 0.02)  # reward = success + shaping x progress
    ax.legend(loc="upper left")
    who = "character 0's" if characters == ["0"] else "each learner's"
    ax.set_title(f"{who} goal success in GRPO groups")
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


def _load(spec: str, chat_template: str = "", dtype: str = "float32"):
    """The model (weights in ``dtype``) and tokenizer of a model spec (a folder or a GGUF file), in eval mode."""
    return load_model(spec, dtype), load_tokenizer(spec, chat_template or None)


def _learner(character: int, policy, tok, cfg: GRPOConfig, ref_scorer, prompt: str):
    """A :class:`Learner` around ``policy`` (a peft model in a LoRA run) with a fresh optimizer, putting turns in
    ``prompt``; its KL reference is the adapters switched off (LoRA) or ``ref_scorer``, the base."""
    import torch

    from sparring.lm.choice import LineScorer

    if cfg.lora:  # the scorer reads the model whose layers peft injected; the base is the reference
        scorer = LineScorer(policy.base_model.model, tok, prompt=prompt)
        ref = AdapterOff(policy, scorer) if cfg.kl > 0 else None
    else:
        scorer, ref = LineScorer(policy, tok, prompt=prompt), ref_scorer
    opt = torch.optim.AdamW([p for p in policy.parameters() if p.requires_grad], lr=cfg.lr, weight_decay=0.0)
    return Learner(character, policy, scorer, ref, opt)


def check_text_knobs(cfg: GRPOConfig) -> None:
    """``starts`` names a kind of start states and ``chat_template`` is "plain" or a file: checked before any
    model is loaded (the sources themselves are read later), each error naming its flag."""
    kind, _, path = cfg.starts.partition(":")
    if not (kind == "fresh" and not path or kind in ("recording", "archive") and path):
        raise ValueError(f"--starts {cfg.starts!r} is not a kind of start states; valid: {SPECS}")
    if cfg.chat_template not in ("", "plain") and not os.path.isfile(cfg.chat_template):
        raise ValueError(f"--chat-template {cfg.chat_template!r} is neither 'plain' nor a file (a Jinja template)")


def check_resumed_env(env: str, trained: dict, given: dict, out: str) -> None:
    """A resume goes on with the env config the run was started with: an ``--env.KEY`` that repeats its value is
    accepted, one that changes it (or is not a key of the env) is a ValueError naming the key."""
    if not given:
        return
    cls = registry.get(env)
    before, after = make_config(cls, trained), make_config(cls, {**trained, **given})  # a bad key fails here
    changed = [key for key in given if getattr(before, key) != getattr(after, key)]
    if changed:
        key = changed[0]
        raise ValueError(
            f"--env.{key} {given[key]!r}: the grpo run {out!r} was started with {key}={getattr(before, key)!r} and "
            f"a resume keeps it; drop --env.{key} (or repeat its value), or start a new --out"
        )


def grpo(
    out: str,
    model: str | None = None,
    cfg: GRPOConfig = GRPOConfig(),
    resume: bool = False,
    env: str = "town",
    progress=None,
    **env_config,
) -> list[dict]:
    """Run (or resume) GRPO into the folder ``out``; returns the metrics of every iteration.

    Every character of ``cfg.learners`` is played by its own copy of the model, with its own optimizer; the
    rest of the town is the planner. A copy's advantage is its own reward normalised within its group.
    ``progress`` (a :class:`~sparring.kit.progress.Progress`) says which stage runs (loading the
    models, building the town, playing, updating, saving), counts the iterations with their reward,
    success, KL and tokens/s, and gets a line per iteration.
    """
    progress = progress or silent()
    check_knobs(cfg, "grpo")  # again: a field may have changed since the config was made
    return_freed_memory()  # a freed update pass's activations leave the process, not stay at its peak
    progress.status("loading torch and transformers")
    import torch

    from sparring.lm.choice import LineScorer

    if cfg.group < 2 or cfg.groups < 1 or cfg.temperature <= 0 or cfg.kl < 0:
        raise ValueError(
            f"grpo needs group >= 2, groups >= 1, temperature > 0 and kl >= 0; "
            f"got {cfg.group}, {cfg.groups}, {cfg.temperature}, {cfg.kl}"
        )
    check_goal(require_face(registry.get(env)), cfg.goal)
    check_text_knobs(cfg)
    if cfg.lora < 0:
        raise ValueError(f"--lora must be a LoRA rank >= 1, or 0 for full fine-tuning; got {cfg.lora}")
    if cfg.dtype != "float32" and not cfg.lora:
        raise ValueError(f"--dtype {cfg.dtype} trains LoRA adapters over a frozen {cfg.dtype} base: give --lora R")
    characters = check_learners(cfg.learners, env, env_config)
    if cfg.workers > 1:
        check_workers(cfg)
    run = Run(out, characters)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    if resume:
        state = run.read_state()
        saved = state.get("config", {})
        saved_lora, saved_learners = saved.get("lora", 0), saved.get("learners", DEFAULT_LEARNERS)
        if cfg.lora != saved_lora:
            raise ValueError(
                f"--resume: {run.out} was trained with --lora {saved_lora}, got --lora {cfg.lora}; "
                f"pass --lora {saved_lora} to continue it, or start a new --out"
            )
        if characters != saved_learners:
            was, got = ",".join(map(str, saved_learners)), ",".join(map(str, characters))
            raise ValueError(
                f"--resume: {run.out} was trained with --learners {was}, got --learners {got}; "
                f"pass --learners {was} to continue it, or start a new --out"
            )
        check_resumed_env(state["env"], state["env_config"], env_config, run.out)
        base, start, env, env_config = state["base"], state["iteration"], state["env"], state["env_config"]
        run.clean()
        progress.status(f"building the {env} start states ({cfg.starts}; compiling the env's kernels on a first run)")
        sources = StartStates(cfg.starts, env, env_config, characters)
        progress.status(f"loading the policy from {run.out}")
        policies = []
        for c in characters:
            if cfg.lora:  # the same adapters on the base, trainable again
                base_model, tok = _load(base, cfg.chat_template, cfg.dtype)
                policies.append(load_adapter(base_model, run.adapter_of(c), trainable=True))
            else:
                policy, tok = _load(run.model_of(c), cfg.chat_template)
                policies.append(policy)
    else:
        if model is None:
            raise ValueError(f"give --model: a model folder (e.g. from `sparring distill {env}`) or a .gguf file")
        try:
            folder, gguf = resolve(model)
        except ValueError as exc:
            raise ValueError(f"--model: {exc}") from None
        if os.path.exists(run.out) and os.listdir(run.out):
            raise ValueError(f"{run.out} is not empty; choose a new --out, or pass --resume to continue it")
        progress.status(f"building the {env} start states ({cfg.starts}; compiling the env's kernels on a first run)")
        sources = StartStates(cfg.starts, env, env_config, characters)
        os.makedirs(run.out, exist_ok=True)
        base, start = os.path.join(folder, gguf) if gguf else folder, 0
        progress.status(f"loading the model {base}")
        policies = []
        for _ in characters:
            policy, tok = _load(base, cfg.chat_template, cfg.dtype)
            policies.append(add_lora(policy, cfg.lora) if cfg.lora else policy)
    given = cfg.prompt or (saved.get("prompt", "") if resume else "")  # a resumed run goes on in its prompt
    prompt = given or recorded_prompt(base if os.path.isdir(base) else os.path.dirname(base)) or "full"
    ref_scorer = None
    if cfg.kl > 0 and not cfg.lora:
        progress.status("loading the reference model (the base, for the KL penalty)")
        ref_scorer = LineScorer(_load(base, cfg.chat_template)[0], tok, prompt=prompt)  # one serves every learner
    learners = [_learner(c, policy, tok, cfg, ref_scorer, prompt) for c, policy in zip(characters, policies)]
    if resume:
        for learner in learners:
            saved = torch.load(run.optimizer_of(learner.character), weights_only=True, map_location="cpu")
            learner.opt.load_state_dict(saved["optimizer"])
        torch.set_rng_state(saved["torch_rng"])
    history = run.load_history(start)
    began = time.perf_counter()
    progress.start(cfg.iterations, unit="iteration", done=start)
    pool = None
    if cfg.workers > 1:
        progress.status(f"starting {cfg.workers} play workers (each loads the model {base})")
        pool = PlayerPool(base, characters, env, env_config, cfg, prompt)
    meter = Meter()  # the model's turns while an iteration plays in this process (workers report at its end)
    progress.watch(meter.figures)
    with pool or contextlib.nullcontext():
        for it in range(start, cfg.iterations):
            if cfg.minutes and time.perf_counter() - began > 60 * cfg.minutes:
                progress.print(f"grpo: stopping at the {cfg.minutes:g}-minute limit")
                break
            rng = np.random.default_rng([cfg.seed, it])
            progress.status(f"iteration {it + 1}: playing {cfg.groups} groups of {cfg.group} copies")
            batch = learners_env(cfg.groups * cfg.group, 0, characters, env, "any", **env_config)
            records = sources.draw(cfg.groups, rng, cfg.goal)
            set_goals(batch.env_cls, records, characters, cfg.goal)
            batch.restore(None, np.repeat(records, cfg.group))
            meter.restart()
            if pool is None:
                scorers = [learner.scorer for learner in learners]
                played = play_learners(scorers, batch, characters, cfg.temperature, rng, cfg.turns, cfg.batch_size)
            else:
                played = pool.play(batch.snapshot(), it, [learner.policy for learner in learners])
            rewards = played.returns + cfg.shaping * played.progress  # (copies, learners)
            t0 = time.perf_counter()
            progress.status(f"iteration {it + 1}: updating the policy on {sum(map(len, played.turns))} turns")
            per = {}
            for j, learner in enumerate(learners):
                adv = advantages(rewards[:, j], cfg.group)
                stats = update(learner.scorer, learner.ref, learner.opt, played.turns[j], adv, cfg, rng)
                per[str(learner.character)] = {
                    "reward": float(rewards[:, j].mean()),
                    "return": float(played.returns[:, j].mean()),
                    "success_rate": float(played.success[:, j].mean()),
                    "kl": stats["kl"],
                    "loss": stats["loss"],
                    "clip_frac": stats["clip_frac"],
                    "parse_failure_rate": int(played.unfit[j]) / max(1, int(played.decisions[j])),
                    "turns": len(played.turns[j]),
                    "trained_turns": stats["samples"],
                }
            spent = played.seconds + time.perf_counter() - t0
            mean = lambda key: float(np.mean([p[key] for p in per.values()]))  # noqa: E731
            decided = int(played.decisions.sum())
            row = {
                "iteration": it,
                "reward": float(rewards.mean()),
                "success_rate": float(played.success.mean()),
                "kl": mean("kl"),
                "loss": mean("loss"),
                "clip_frac": mean("clip_frac"),
                "parse_failure_rate": int(played.unfit.sum()) / max(1, decided),
                "turns": sum(p["turns"] for p in per.values()),
                "trained_turns": sum(p["trained_turns"] for p in per.values()),
                "tokens_per_s": played.tokens / max(played.seconds, 1e-9),
                "decisions_per_s": decided / max(played.seconds, 1e-9),
                "seconds_per_group": spent / cfg.groups,
                "groups_per_min": 60 * cfg.groups / spent,
                "play_s": played.seconds,
                "update_s": spent - played.seconds,
                "learners": per,
            }
            history.append(row)
            if row["turns"] and not row["trained_turns"]:
                progress.print(
                    f"grpo {it + 1}: warning: every copy in each group got the same reward, so no turn was trained; "
                    "give the groups a signal: --shaping above 0 (progress), a higher --temperature, a larger --group, "
                    "or --starts nearer the outcome (recording:PATH, archive:DIR)"
                )
            each = (
                "" if len(per) == 1 else " (" + ", ".join(f"{c}: {p['success_rate']:.3f}" for c, p in per.items()) + ")"
            )
            progress.print(
                f"grpo {it + 1}/{cfg.iterations}: reward {row['reward']:.3f} success {row['success_rate']:.3f}{each} "
                f"kl {row['kl']:.4f} parse-fail {row['parse_failure_rate']:.3f} {row['tokens_per_s']:.0f} tok/s "
                f"{decided} decisions at {row['decisions_per_s']:.2f}/s {row['seconds_per_group']:.1f} s/group"
            )
            minutes = (time.perf_counter() - began) / (60 * cfg.minutes) if cfg.minutes else 0.0
            figures = {key: row[key] for key in ("reward", "success_rate", "kl", "tokens_per_s", "decisions_per_s")}
            progress.update(it + 1, figures, fraction=min(1.0, max((it + 1) / cfg.iterations, minutes)))
            progress.status(f"iteration {it + 1}: saving the model and metrics")
            state = {"base": base, "iteration": it + 1, "env": env, "env_config": env_config}
            run.save(
                learners, tok, {**state, "config": {**dataclasses.asdict(cfg), "prompt": prompt}}, history, cfg.merged
            )
    return history
