"""PPO held near a frozen teacher: a warm start's weights (``--train.init``) and a fading KL penalty towards them.

A clone (``--train.imitate``) learns its teacher's choices, not what they are worth; PPO on top of it
can take it further, but its first updates, made with a critic and advantages of a policy it is not yet,
can also undo in a few iterations what the clone took millions of steps to learn. Kickstarting
(Schmitt et al., 2018) keeps the student near the teacher early on by adding
``coef * KL(teacher || policy)`` to PPO's loss, where the teacher is frozen, and fading ``coef``
to 0 so that RL owns the policy in the end. Here the teacher is the policy as PPO starts: the clone
at the end of ``--train.imitate``, or the weights of ``--train.init`` (a checkpoint, for example of a
clone saved by ``benchmarks/gauntlet_budget.py --save``), whose value head comes warmed with them.

The KL is the exact one over every action head (the env's mask applied to both distributions),
summed over heads and averaged over the minibatch: it is 0 when the policy equals the teacher,
and its gradient moves the policy's probabilities towards the teacher's.
"""

from __future__ import annotations

import copy
import json
import os

import torch
from safetensors.torch import save_file
from torch import nn

from sparring.kit.atomic import atomic_file
from sparring.kit.files import DamagedFile, read_json
from sparring.players.heads import MaskedHeads
from sparring.players.load import REMEDY, load_policy, load_weights

WEIGHTS, META = "teacher.safetensors", "teacher.json"


def check_teacher(cfg) -> None:
    """Raise a ValueError naming the setting when ``--train.kl_teacher*`` or ``--train.init`` cannot run."""
    if cfg.kl_teacher_until and not cfg.kl_teacher:
        raise ValueError(
            f"--train.kl_teacher_until {cfg.kl_teacher_until} fades a KL penalty that is off: set --train.kl_teacher "
            "COEF above 0, or drop kl_teacher_until"
        )
    if not cfg.kl_teacher:
        return
    if not cfg.imitate and not cfg.init:
        raise ValueError(
            f"--train.kl_teacher {cfg.kl_teacher} needs a teacher: the policy as PPO starts, so warm-start it "
            "with --train.imitate NAME (the clone is the teacher) or --train.init CHECKPOINT"
        )
    if cfg.recurrence != "none":
        raise ValueError(f"--train.kl_teacher needs an MLP policy (--train.recurrence none), got {cfg.recurrence!r}")
    if cfg.policies != "shared" or cfg.league:
        raise ValueError(
            f"--train.kl_teacher needs one shared policy (--train.policies shared, no league), got "
            f"policies {cfg.policies!r}{f' and league {cfg.league!r}' if cfg.league else ''}"
        )


def load_init(policy: nn.Module, path: str, env_name: str, env) -> None:
    """Copy the weights of the one-policy checkpoint at ``path`` into ``policy`` (a ValueError names a mismatch)."""
    loaded, meta = load_policy(path, env_name, env)
    if loaded.spec != policy.spec:
        differ = {k: (v, policy.spec.get(k)) for k, v in loaded.spec.items() if policy.spec.get(k) != v}
        raise ValueError(
            f"--train.init {path!r}: its policy differs from this run's in {differ} (checkpoint's, this run's); "
            "set the run's --train.hidden, --train.layers, --train.recurrence, --train.onehot_obs and "
            "--train.critic to the checkpoint's"
        )
    policy.load_state_dict(loaded.state_dict())


def masked_kl(heads: MaskedHeads, teacher_logits: torch.Tensor, logits: torch.Tensor, mask: torch.Tensor):
    """KL(teacher || policy) [B] over the masked action heads, summed over heads, from flat logits [B, total]."""
    target = torch.log_softmax(heads.grid(teacher_logits, mask), -1)
    own = torch.log_softmax(heads.grid(logits, mask), -1)
    # masked and padded actions have probability exactly 0 under the teacher: their terms vanish
    return (target.exp() * (target - own)).sum(-1).sum(-1)


class TeacherKL:
    """The frozen teacher and the fading weight of the KL penalty towards it.

    Args:
      policy: the policy as PPO starts (copied and frozen); coef: the weight at the start;
      until: agent-steps of PPO over which the weight falls linearly to 0 (0: held for the whole run);
      start: the run's agent-step where PPO started.
    """

    def __init__(self, policy: nn.Module, coef: float, until: int, start: int):
        self.teacher = copy.deepcopy(policy).eval().requires_grad_(False)
        self.coef0, self.until, self.start = float(coef), int(until), int(start)

    def coef(self, step: int) -> float:
        """The penalty's weight at the run's agent-step ``step``."""
        if self.until == 0:
            return self.coef0
        return self.coef0 * max(0.0, 1.0 - (step - self.start) / self.until)

    def kl(self, obs: torch.Tensor, mask: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        """Mean KL(teacher || policy) over a minibatch whose policy logits are ``logits`` [B, total]."""
        with torch.no_grad():
            teacher_logits = self.teacher.logits(obs)
        return masked_kl(self.teacher.heads, teacher_logits, logits, mask).mean()

    def save(self, folder: str) -> None:
        """Write the teacher's weights and schedule into a checkpoint ``folder``."""
        state = {k: v.detach().cpu().contiguous().clone() for k, v in self.teacher.state_dict().items()}
        save_file(state, os.path.join(folder, WEIGHTS))
        with atomic_file(os.path.join(folder, META)) as fh:
            json.dump({"coef": self.coef0, "until": self.until, "start": self.start}, fh)

    @classmethod
    def load(cls, policy: nn.Module, folder: str, coef: float, until: int) -> TeacherKL | None:
        """The teacher a checkpoint ``folder`` saved (its start step kept; None when it saved none)."""
        path = os.path.join(folder, META)
        if not os.path.exists(path):
            return None
        meta = read_json(path, "KL teacher schedule", REMEDY)
        start = meta.get("start") if isinstance(meta, dict) else None
        if not isinstance(start, int) or isinstance(start, bool) or start < 0:
            raise DamagedFile(path, "'start' must be an agent-step count >= 0", REMEDY)
        out = cls(policy, coef, until, start)
        load_weights(out.teacher, os.path.join(folder, WEIGHTS))
        return out
