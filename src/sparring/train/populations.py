"""Several policies in one world: which policy learns from each trained seat, and their rollouts around one env step.

``--train.policies`` maps seats to policies, as RLlib's ``policy_mapping_fn`` maps agent ids to
policy ids, but fixed for the run (a seat keeps its policy in every env and episode):

- ``shared`` (the default): one policy learns from every trained row, the trainer of old;
- ``seat``: one policy per trained seat;
- ``groups:K``: K policies, each learning from a run of consecutive trained seats (town's 8
  characters with ``groups:4``: seats 0-1, 2-3, 4-5, 6-7);
- ``0,0,1,1,2,2,3,3``: one policy number per trained seat, in seat order (numbers 0..P-1, each used).

Each policy has its own optimizer and rollout buffers and learns only from its own rows; all of
them act before the one env step of each tick. A league (:mod:`sparring.train.league`) may play
some rows of the trained seats; those rows are nobody's to learn from.
"""

from __future__ import annotations

import copy

import numpy as np
import torch

from sparring.players.policy import policy_for
from sparring.train.optim import make_optimizer
from sparring.train.population_checkpoint import restore_population, write_population
from sparring.train.ppo import ppo_update
from sparring.train.rollout import EpisodeStats, Rollout, play_tick
from sparring.train.league import League, league_rows, parse_league
from sparring.train.opponents import SeatedOpponents

SHARED = "shared"


def seat_policies(spec: str, trained: list[int], seat_names, num_agents: int) -> np.ndarray | None:
    """The policy number of every seat of the env (-1 where no policy trains), from ``--train.policies``.

    ``trained`` are the seats the learner trains, in order; None for ``shared``. A bad spec is a
    one-line ValueError naming what is valid.
    """
    names = [seat_names[s] for s in trained]
    valid = f"valid: shared, seat, groups:K (K dividing {len(trained)}), or {len(trained)} comma-separated numbers"
    if spec == SHARED:
        return None
    kind, _, arg = spec.partition(":")
    if spec == "seat":
        ids = list(range(len(trained)))
    elif kind == "groups":
        k = int(arg) if arg.isdigit() else 0
        if not 1 <= k <= len(trained) or len(trained) % k:
            raise ValueError(
                f"--train.policies {spec!r}: the {len(trained)} trained seats {names} do not split into it; {valid}"
            )
        ids = [i * k // len(trained) for i in range(len(trained))]
    else:
        parts = [p.strip() for p in spec.split(",")]
        if not all(p.isdigit() for p in parts):
            raise ValueError(f"--train.policies {spec!r} is not a policy mapping; {valid}")
        ids = [int(p) for p in parts]
        if len(ids) != len(trained):
            raise ValueError(
                f"--train.policies {spec!r} names {len(ids)} seats, the learner trains {len(trained)} {names}; {valid}"
            )
        if sorted(set(ids)) != list(range(max(ids) + 1)):
            raise ValueError(f"--train.policies {spec!r}: policy numbers must be 0..P-1, each used at least once")
    out = np.full(num_agents, -1, np.int64)
    out[np.asarray(trained, np.int64)] = ids
    return out


class Population:
    """Several policies, each with its optimizer and a :class:`~sparring.train.rollout.Rollout` over its rows.

    Args:
      env: the BatchedEnv; policies: the networks (``policies[0]`` may be the trainer's own);
      seat_policy: policy number per seat (:func:`seat_policies`); train_rows: the trained rows
      (the league's are not among them); cfg: the TrainConfig; opponent: who fills the other rows
      (or None); optimizers: one per policy. ``stats`` collects the env's episode info.
    """

    def __init__(self, env, policies, optimizers, seat_policy, train_rows, cfg, opponent, device):
        self.env, self.policies, self.optimizers, self.opponent = env, policies, optimizers, opponent
        self.seat_policy = np.asarray(seat_policy, np.int64)
        which = self.seat_policy[np.asarray(train_rows, np.int64) % env.num_agents]
        self.rollouts = [
            Rollout(env, policy, cfg.horizon, train_rows[which == i], None, device) for i, policy in enumerate(policies)
        ]
        self.env_actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
        self.stats = EpisodeStats()

    @classmethod
    def build(cls, env, first, first_optimizer, seat_policy, train_rows, cfg, opponent, device):
        """A population whose policy 0 is ``first`` (the trainer's policy, which a warm start clones) and the
        others new networks of the same shape, each with a fresh optimizer."""
        count = int(seat_policy.max()) + 1
        policies, optimizers = [first], [first_optimizer]
        for _ in range(1, count):
            policy = policy_for(env, cfg).to(device)  # the same shape, its own initial weights
            policy.heads.to(device)
            policies.append(policy)
            optimizers.append(make_optimizer(policy, cfg.optimizer, cfg.lr))
        return cls(env, policies, optimizers, seat_policy, train_rows, cfg, opponent, device)

    def broadcast(self, warm) -> None:
        """After a warm start cloned policy 0 on ``warm`` (the trainer's rollout over every trained row): every
        policy starts from its weights and optimizer state, and each rollout carries on from ``warm``'s episode
        ends and memory for its rows."""
        state = self.policies[0].state_dict()
        opt = self.optimizers[0].state_dict()
        for policy, optimizer in zip(self.policies[1:], self.optimizers[1:]):
            policy.load_state_dict(state)
            optimizer.load_state_dict(copy.deepcopy(opt))
        position = {int(r): k for k, r in enumerate(warm.rows_np)}
        for rollout in self.rollouts:
            at = torch.tensor([position[int(r)] for r in rollout.rows_np], dtype=torch.int64, device=warm.device)
            rollout.just_done = warm.just_done[at].clone()
            rollout.state = tuple(s[at].clone() for s in warm.state)

    def save(self, tmp: str, trainer) -> None:
        """Write the checkpoint files of ``trainer`` (whose population this is) into the folder ``tmp``."""
        write_population(tmp, trainer)

    def restore(self, trainer, folder: str, meta: dict) -> None:
        """Load the checkpoint in ``folder`` (``meta`` read and checked) into ``trainer``."""
        restore_population(trainer, folder, meta)

    def collect(self) -> dict:
        """One rollout of every policy over the same env steps; returns timings as :meth:`Rollout.collect`."""
        env, env_s, infer_s = self.env, 0.0, 0.0
        for rollout in self.rollouts:
            rollout.begin()
        with torch.inference_mode():
            for t in range(self.rollouts[0].horizon):
                infer, stepped = play_tick(env, self.rollouts, self.env_actions, self.opponent, self.stats, t)
                infer_s, env_s = infer_s + infer, env_s + stepped
            for rollout in self.rollouts:
                rollout.finish()
        for rollout in self.rollouts:
            rollout.steps += rollout.horizon * len(rollout.rows_np)
        return {"perf/env_s": env_s, "perf/infer_s": infer_s}

    def update(self, cfg, lr: float) -> dict:
        """A PPO update of each policy on its own rollout at learning rate ``lr``; the losses averaged over the
        policies (weighted by rows) as ``loss/...``, and each policy's mean reward per step as
        ``pop/<i>/reward``."""
        out: dict[str, float] = {}
        total = sum(len(r.rows_np) for r in self.rollouts)
        for i, (policy, optimizer, rollout) in enumerate(zip(self.policies, self.optimizers, self.rollouts)):
            optimizer.set_lr(lr)
            losses = ppo_update(policy, optimizer, rollout, cfg)
            share = len(rollout.rows_np) / total
            for key, value in losses.items():
                out[key] = out.get(key, 0.0) + share * value
            out[f"pop/{i}/reward"] = float(rollout.rewards.mean())
        return out


def populate(trainer, train_rows: np.ndarray):
    """``--train.policies`` and ``--train.league`` for a trainer whose opponent and trained rows are set:
    (opponent, the rows the trainer's policies learn from, the population or None for a shared policy).

    The league joins the trainer's opponent: beside the ``--seat`` players, never with ``--opponent``.
    """
    cfg, env = trainer.cfg, trainer.env
    if cfg.policies != SHARED and (cfg.archive_fraction > 0 or cfg.curriculum):
        raise ValueError(
            f"--train.policies {cfg.policies!r} trains several policies, which restarts from an archive or a "
            "curriculum do not support yet; drop --train.archive_fraction / --train.curriculum or use shared"
        )
    trained = sorted(set((np.asarray(train_rows) % env.num_agents).tolist()))
    seat_policy = seat_policies(cfg.policies, trained, env.env_cls.seats, env.num_agents)
    shared = seat_policy is None
    if shared:
        seat_policy = np.full(env.num_agents, -1, np.int64)
        seat_policy[trained] = 0
    opponent, learners = trainer.opponent, np.asarray(train_rows, np.int64)
    if cfg.league_seats and not cfg.league:
        raise ValueError(f"--train.league_seats {cfg.league_seats} needs members: --train.league SPEC,...,self")
    rows = None
    if cfg.league:
        if opponent is not None and not (isinstance(opponent, SeatedOpponents) and opponent.opponent is None):
            raise ValueError(
                f"--train.league plays some trained seats itself; it does not mix with --opponent "
                f"{trainer.opponent_name!r}: give one of them"
            )
        rows = league_rows(env, trained, cfg.league_seats)
        learners = learners[~np.isin(learners, rows)]
    population = None
    if not shared:
        population = Population.build(
            env, trainer.policy, trainer.optimizer, seat_policy, learners, cfg, None, trainer.device
        )
    if rows is not None:
        brains, snapshots = parse_league(cfg.league, env.env_cls)
        policies = [trainer.policy] if population is None else population.policies
        league = League(
            env,
            policies,
            seat_policy,
            rows,
            learners,
            brains,
            snapshots,
            cfg.pool_size,
            cfg.pool_every,
            cfg.seed,
            trainer.device,
        )
        if isinstance(opponent, SeatedOpponents):
            opponent.opponent = league
        else:
            opponent = league
    if population is not None:
        population.opponent = opponent
    return opponent, learners, population
