"""Trainer configuration: dataclass defaults, the env's ``[train]`` TOML table, CLI overrides."""

from __future__ import annotations

import dataclasses

from sparring.kit.config import coerce, toml_defaults
from sparring.kit.spec import choice, knob


@dataclasses.dataclass
class TrainConfig:
    """Every knob of a PPO run; ``sparring train ENV --train.KEY VALUE`` sets one."""

    seed: int = knob(0, "Seed of the env batch, the policy's initial weights and action sampling.")
    num_envs: int = knob(1024, "Env instances stepped together; rows = num_envs * agents.", low=1)
    horizon: int = knob(64, "Steps per env in one rollout; a batch is horizon * learner rows samples.", low=1)
    steps: int = knob(0, "Stop after this many learner agent-steps (0: no step limit).", low=0)
    minutes: float = knob(0.0, "Stop after this many minutes of training (0: no time limit).", low=0)
    lr: float = knob(1e-2, "Learning rate at the start; annealed linearly to 0 when anneal_lr is on.", low=0)
    anneal_lr: bool = knob(True, "Anneal the learning rate linearly with progress through the budget.")
    optimizer: str = choice(
        "adam", ("adam", "muon"), "Optimiser: adam, or muon for the matrix weights (Adam for the rest)."
    )
    gamma: float = knob(0.99, "Discount factor.", low=0, high=1)
    gae_lambda: float = knob(0.95, "GAE lambda: 0 is one-step TD, 1 is Monte Carlo.", low=0, high=1)
    update_epochs: int = knob(2, "Passes over each rollout batch.", low=1)
    minibatch_size: int = knob(8192, "Samples per gradient step (rounded to whole sequences when recurrent).", low=1)
    clip_coef: float = knob(0.2, "PPO policy ratio clip.", low=0)
    vf_clip_coef: float = knob(0.2, "Value clip around the rollout's value estimate (0: no clipping).", low=0)
    vf_coef: float = knob(0.5, "Weight of the value loss.", low=0)
    ent_coef: float = knob(0.01, "Weight of the entropy bonus.", low=0)
    max_grad_norm: float = knob(0.5, "Clip the global gradient norm to this.", low=0)
    norm_adv: bool = knob(True, "Normalise advantages per minibatch.")
    hidden: int = knob(128, "Width of the encoder and of the recurrent state.", low=1)
    layers: int = knob(2, "Hidden layers of the MLP encoder.", low=1)
    onehot_obs: bool = knob(True, "One-hot encode integer observations in [0, high] when high <= 16.")
    critic: str = choice(
        "shared",
        ("shared", "separate"),
        "Value function: shared (a head on the actor's encoder) or separate (its own MLP encoder "
        "of the same shape, as CleanRL's continuous-control PPO; MLP policies only).",
    )
    recurrence: str = choice("none", ("none", "lstm", "mingru"), "Recurrent core after the encoder.")
    device: str = choice(
        "auto", ("auto", "cpu", "cuda", "mps"), "Torch device: auto (cuda, then mps, then cpu), cpu, cuda, mps."
    )
    vec: str = choice(
        "inprocess",
        ("inprocess", "ray"),
        "Where training runs: inprocess (one BatchedEnv and the learner in this process, env_threads stepping "
        "it), or ray (data-parallel PPO: train.workers Ray workers, each with its slice of the envs and its own "
        "policy copy, gradients all-reduced by torch.distributed; needs the [ray] extra).",
    )
    workers: int = knob(
        2,
        "Data-parallel workers of vec=ray (a count that divides num_envs; each asks Ray for max(1, threads) CPUs).",
        low=1,
    )
    ray_address: str = knob("", "Ray cluster address for vec=ray (empty: start a local Ray instance on 127.0.0.1).")
    worker_restarts: int = knob(
        3,
        "vec=ray: times a run whose worker died starts its workers anew from its last checkpoint (0: stop at once).",
        low=0,
    )
    threads: int = knob(
        0,
        "Torch CPU threads (0: every core the process may use; torch and the env threads take turns, never both).",
        low=0,
    )
    env_threads: int = knob(
        0,
        "Threads stepping the env batch (results are the same bytes for any count). 0: as many as "
        "torch's threads, which is safe because a rollout alternates inference and env steps, never both at once.",
        low=0,
    )
    checkpoint_s: float = knob(30.0, "Seconds between checkpoints (0: after every update).", low=0)
    keep_checkpoints: int = knob(3, "Newest checkpoints to keep in the run folder.", low=1)
    pool_size: int = knob(8, "Self-play and league: past policies kept in the opponent pool.", low=1)
    pool_every: int = knob(20, "Self-play and league: updates between snapshots of the learner into the pool.", low=1)
    policies: str = knob(
        "shared",
        "Which policy learns from each trained seat (as RLlib's policy_mapping_fn, fixed per seat): shared (one "
        "policy for all), seat (one per seat), groups:K (K policies, each a run of consecutive seats), or one "
        "policy number per trained seat, comma-separated (e.g. 0,0,1,1,2,2,3,3). Each policy learns from its own "
        "rows with its own optimizer and checkpoint files; checkpoint:RUN plays each seat with its policy.",
    )
    league: str = knob(
        "",
        "League filling --train.league_seats characters of every env, comma-separated members: player specs "
        "(scripted:NAME, scripted:NAME:P, random, checkpoint:RUN) and self (snapshots of the run's policies every "
        "pool_every updates, the newest pool_size kept). Each env group's member is re-drawn after every update by "
        "PFSP, as for self-play (empty: no league).",
    )
    league_seats: int = knob(
        0,
        "League: characters of every env the league plays, a block of K consecutive trained seats starting at "
        "seat e*K of env e (wrapping), so each seat trains in the other envs; 1 .. trained seats - 1 with a league.",
        low=0,
    )
    imitate: str = knob(
        "",
        "Behaviour-cloning warm start: a scripted policy of the env (e.g. planner) whose actions "
        "the policy learns before PPO starts (empty: none). Counts toward --train.minutes.",
    )
    imitate_steps: int = knob(
        0, "Warm start: stop cloning after this many teacher agent-steps (0: no step limit).", low=0
    )
    imitate_minutes: float = knob(
        0.0,
        "Warm start: stop cloning after this many minutes (0: no time limit); imitate needs one of the two limits.",
        low=0,
    )
    imitate_mix: float = knob(
        0.0,
        "Warm start, DAgger: per step, the chance a trained row plays the policy's own action while the teacher's "
        "stays the label (0: the teacher plays every step).",
        low=0,
        high=1,
    )
    imitate_lr: float = knob(
        0.0, "Warm start: the cloning's learning rate, held constant (0: the run's lr); PPO then starts at lr.", low=0
    )
    init: str = knob(
        "",
        "Warm start from the policy weights of a checkpoint (a run folder or checkpoints/step-N of the same env "
        "and policy shape); the optimizer, env and step count start fresh (empty: fresh weights).",
    )
    kl_teacher: float = knob(
        0.0,
        "Weight of a KL penalty KL(teacher || policy) added to PPO's loss, the teacher being the policy as PPO "
        "starts (the clone of --train.imitate or the weights of --train.init), frozen; MLP policies (0: off).",
        low=0,
    )
    kl_teacher_until: int = knob(
        0,
        "Agent-steps of PPO over which the kl_teacher weight falls linearly to 0 (0: held for the whole run).",
        low=0,
    )
    archive_fraction: float = knob(
        0.0,
        "Go-Explore: probability that an env whose episode ended restarts from a "
        "cell of the archive (0: no archive; see sparring.explore.restarts).",
        low=0,
        high=1,
    )
    archive_every: int = knob(8, "Go-Explore: env steps between snapshots of the batch into the archive.", low=1)
    archive_frontier: float = knob(
        0.0,
        "Go-Explore: bias of the cell draw towards the deepest cells, "
        "weight x exp(bias x (progress - deepest)) (0: no bias).",
        low=0,
    )
    archive_start: str = knob(
        "",
        "Go-Explore: a folder saved by `sparring explore` whose cells the archive starts "
        "with (empty: only the run's own episodes); needs archive_fraction > 0.",
    )
    curriculum: str = knob(
        "",
        "Start-state curriculum: ended episodes restart from states of these sources, drawn "
        "more often from groups (the env's start_groups: gauntlet's wave, serpent's phase) "
        "where recent success is neither near 0 nor near 1; comma-separated KIND:PATH entries, "
        "KIND states (a state set .npz), archive (a folder of `sparring explore` or of an "
        "--archive checkpoint) or recording (a .parquet), and own:N (no file: the learner's own "
        "records on arriving in each group, the newest N kept per group), e.g. 'states:waves.npz,"
        "recording:runs/x.parquet' or 'own:256' (empty: none; see sparring.train.curriculum). "
        "Alone, replay:N: prioritized restarts from the learner's own states, the N whose following "
        "segments had the largest |advantage| kept, drawn by it, any env (sparring.train.curriculum_replay).",
    )
    curriculum_true: float = knob(
        0.2,
        "Curriculum: share of ended episodes that keep their true start (with --archive: of those the archive leaves).",
        low=0,
        high=1,
    )
    curriculum_floor: float = knob(
        0.1,
        "Curriculum: the smallest weight of a group, against 4p(1-p) for recent "
        "success p, so groups near 0 or 1 still get drawn.",
        low=0,
        high=1,
    )
    curriculum_window: float = knob(
        100.0,
        "Curriculum: ended episodes a group's recent success remembers (older "
        "ones fade by 1 - 1/window per newer one).",
        low=1,
    )
    curriculum_every: int = knob(
        32, "Curriculum replay:N: ticks between snapshots of the learner's states (the scored segment's length).", low=1
    )
    curriculum_fade: float = knob(
        0.5,
        "Curriculum replay:N: factor on a kept state's score each time it is drawn (0: drawn once, 1: never fades).",
        low=0,
        high=1,
    )
    env_anneal: str = knob(
        "",
        "Env knobs moved linearly from a start value to their --env value over training, as "
        "KNOB=START[@UNTIL] entries separated by commas (UNTIL: fraction of the budget where "
        "the knob arrives, default 1), e.g. 'foresight=0@0.5' or 'reward_damage=1'.",
    )
    eval_episodes: int = knob(200, "Episodes of the final evaluation (0: skip it).", low=0)
    tensorboard: bool = knob(True, "Write TensorBoard events when the tensorboard package is installed.")
    wandb: bool = knob(False, "Log to Weights & Biases in offline mode (needs the [wandb] extra).")


def make_train_config(env_cls: type | None = None, overrides: dict | None = None) -> TrainConfig:
    """TrainConfig from defaults, the env's ``[train]`` table and ``overrides`` (strings allowed)."""
    values = {**(toml_defaults(env_cls, "train") if env_cls is not None else {}), **(overrides or {})}
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ValueError(f"unknown train setting(s) {unknown}; valid: {', '.join(sorted(fields))}")
    return TrainConfig(**{k: coerce(f"train setting {k!r} (--train.{k})", fields[k], v) for k, v in values.items()})
