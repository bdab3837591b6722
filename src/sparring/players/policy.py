"""The actor-critic: MLP encoder, optional recurrent core, masked multi-discrete heads, value head."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

import sparring.players.fused_heads as fused_heads
from sparring.players.heads import MaskedHeads
from sparring.players.recurrent import CORES

MAX_ONEHOT = 16
CRITICS = ("shared", "separate")


def _layer(inp: int, out: int, gain: float) -> nn.Linear:
    layer = nn.Linear(inp, out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def _mlp(inp: int, hidden: int, layers: int) -> nn.Sequential:
    blocks, width = [], inp
    for _ in range(layers):
        blocks += [_layer(width, hidden, math.sqrt(2)), nn.ReLU()]
        width = hidden
    return nn.Sequential(*blocks)


def obs_scale(low: float, high: float) -> float:
    """Multiplier that brings bounded observations into [-1, 1]; 1 when unbounded."""
    bound = max(abs(float(low)), abs(float(high)))
    return 1.0 / bound if math.isfinite(bound) and bound > 0 else 1.0


def onehot_values(spec, enabled: bool) -> int:
    """How many one-hot planes (values 1..high) to encode integer observations in [0, high] with; 0 for none.

    A grid of small codes (empty, agent, target...) is categorical: a plane per code lets the first
    layer weigh "agent here" and "target here" independently instead of as 1x and 2x of one weight.
    """
    integer = np.issubdtype(np.dtype(spec.dtype), np.integer)
    if not enabled or not integer or spec.low < 0 or not 1 <= spec.high <= MAX_ONEHOT:
        return 0
    return int(spec.high)


class Policy(nn.Module):
    """Actor-critic over flat observations and multi-discrete heads.

    Args:
      obs_size: observation length; scale: multiplier applied to raw observations.
      head_sizes: action head sizes; hidden: width; layers: encoder depth;
      recurrence: "none", "lstm" or "mingru"; onehot: planes of a one-hot encoding of
      integer observations (0: use the scaled raw values); critic: "shared" (the value head reads the
      actor's features) or "separate" (the value has an MLP encoder of its own; MLP policies only).

    On CPU, sampling and the training pass's log-probabilities and entropy run in
    :mod:`~sparring.players.fused_heads` (one compiled pass over the flat logits); set ``fused_heads``
    to False for the torch grid of :class:`~sparring.players.heads.MaskedHeads` everywhere (the
    reference: the same distributions; the samples differ, they come from other random numbers).
    """

    fused_heads: bool = True

    def __init__(
        self,
        obs_size: int,
        head_sizes,
        hidden: int = 128,
        layers: int = 1,
        recurrence: str = "none",
        scale: float = 1.0,
        onehot: int = 0,
        critic: str = "shared",
    ):
        super().__init__()
        if int(layers) < 1:
            raise ValueError(f"policy layers must be >= 1, got {layers}")
        if recurrence != "none" and recurrence not in CORES:
            raise ValueError(f"recurrence {recurrence!r} is not one of {['none', *CORES]}")
        if critic not in CRITICS:
            raise ValueError(f"critic {critic!r} is not one of {list(CRITICS)}")
        if critic == "separate" and recurrence != "none":
            raise ValueError(f"critic 'separate' needs recurrence 'none', got {recurrence!r}")
        self.spec = {
            "obs_size": int(obs_size),
            "head_sizes": [int(s) for s in head_sizes],
            "hidden": int(hidden),
            "layers": int(layers),
            "recurrence": recurrence,
            "scale": float(scale),
            "onehot": int(onehot),
            "critic": critic,
        }
        self.onehot = int(onehot)
        self.register_buffer("codes", torch.arange(1, self.onehot + 1, dtype=torch.uint8), persistent=False)
        # the one-hot planes of values 0..high+1 (0 and anything above high: no plane), looked up per observation
        planes = torch.zeros(self.onehot + 2, max(1, self.onehot))
        planes[1 : self.onehot + 1] = torch.eye(self.onehot) if self.onehot else 0
        self.register_buffer("planes", planes, persistent=False)
        inputs = int(obs_size) * max(1, self.onehot)
        self.encoder = _mlp(inputs, hidden, layers)
        self.critic_encoder = _mlp(inputs, hidden, layers) if critic == "separate" else None
        self.core = CORES[recurrence](hidden) if recurrence != "none" else None
        self.heads = MaskedHeads(np.asarray(head_sizes))
        self._starts = fused_heads.head_starts(head_sizes)
        self.actor = _layer(hidden, self.heads.total, 0.01)
        self.critic = _layer(hidden, 1, 1.0)
        self.scale = float(scale)

    @property
    def recurrent(self) -> bool:
        """Whether the policy carries a state between ticks."""
        return self.core is not None

    def initial_state(self, batch: int, device=None) -> tuple:
        """The state of ``batch`` fresh rows (empty tuple for the MLP)."""
        return self.core.initial_state(batch, device) if self.core is not None else ()

    def _inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """Raw observations (any dtype) -> the encoders' float inputs."""
        if self.onehot:  # a table lookup: the same planes as (obs == code) per code, in 0.6x the time
            codes = obs.long().clamp_(0, self.onehot + 1)
            return nn.functional.embedding(codes, self.planes).flatten(-2)
        inputs = obs.to(torch.float32)
        return inputs if self.scale == 1.0 else inputs * self.scale  # x * 1.0 == x: skip a pass over the batch

    def _value(self, inputs: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """The value head over the actor's features, or over the critic's own encoding of ``inputs``."""
        return self.critic(features if self.critic_encoder is None else self.critic_encoder(inputs))

    def act(self, obs, mask, state=(), reset=None, greedy: bool = False):
        """One tick for rollouts: (actions [B, heads], logprob [B], value [B], new state)."""
        inputs = self._inputs(obs)
        x = self.encoder(inputs)
        if self.core is not None:
            x, state = self.core.step(x, state, reset)
        logits = self.actor(x)
        if greedy:
            actions = self.heads.greedy(self.heads.grid(logits, mask))
            logprob = torch.zeros(actions.shape[0], device=actions.device)
        elif self._fused(logits):
            actions, logprob = fused_heads.sample(logits, mask, self._starts)
        else:
            actions, logprob = self.heads.sample(self.heads.grid(logits, mask))
        return actions, logprob, self._value(inputs, x).squeeze(-1), state

    def _fused(self, logits: torch.Tensor) -> bool:
        return self.fused_heads and logits.device.type == "cpu"

    def value(self, obs, state=(), reset=None) -> torch.Tensor:
        """State values [B] (used to bootstrap the end of a rollout)."""
        inputs = self._inputs(obs)
        x = None  # a separate critic needs no actor features
        if self.critic_encoder is None:
            x = self.encoder(inputs)
            if self.core is not None:
                x, _ = self.core.step(x, state, reset)
        return self._value(inputs, x).squeeze(-1)

    def logits(self, obs) -> torch.Tensor:
        """The flat action logits [B, total] before the mask (MLP policies: no state)."""
        if self.core is not None:
            raise ValueError("Policy.logits needs an MLP policy (recurrence none)")
        return self.actor(self.encoder(self._inputs(obs)))

    def evaluate(self, obs, mask, actions, state=(), resets=None, with_logits: bool = False):
        """Training pass: (logprob, entropy, value), each shaped like the leading dims of ``obs``.

        ``obs`` is [B, size] for the MLP, or [T, B, size] with ``resets`` [T, B] for a
        recurrent policy, starting from ``state``. ``with_logits`` adds the flat logits
        [prod(lead), total] before the mask, as a fourth element (for a KL penalty on the whole distribution).
        """
        lead = obs.shape[:-1]
        inputs = self._inputs(obs)
        x = self.encoder(inputs)
        if self.core is not None:
            x = self.core.sequence(x, state, resets)
        x = x.reshape(-1, x.shape[-1])
        logits, mask, actions = self.actor(x), mask.reshape(-1, mask.shape[-1]), actions.reshape(-1, actions.shape[-1])
        if self._fused(logits):
            logprob, entropy = fused_heads.log_prob_entropy(logits, mask, actions, self._starts)
        else:
            logprob, entropy = self.heads.log_prob_entropy(self.heads.grid(logits, mask), actions)
        value = self._value(inputs.reshape(-1, inputs.shape[-1]), x).view(lead)
        if with_logits:
            return logprob.view(lead), entropy.view(lead), value, logits
        return logprob.view(lead), entropy.view(lead), value


def policy_for(env, cfg) -> Policy:
    """The policy a TrainConfig asks for, shaped for a BatchedEnv."""
    spec = env.obs_spec
    return Policy(
        spec.size,
        env.heads.sizes,
        hidden=cfg.hidden,
        layers=cfg.layers,
        recurrence=cfg.recurrence,
        scale=obs_scale(spec.low, spec.high),
        onehot=onehot_values(spec, cfg.onehot_obs),
        critic=cfg.critic,
    )
