"""The PPO update (CleanRL's losses): clipped policy and value losses, entropy bonus, grad clipping."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from sparring.train.gae import compute_gae


def advantages_and_returns(rollout, gamma: float, lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE advantages and value targets [T, N] for a collected rollout (truncated steps bootstrap from
    ``rollout.final_values``, terminated ones do not)."""
    cpu = [
        x.detach().cpu().numpy()
        for x in (
            rollout.rewards,
            rollout.values,
            rollout.dones,
            rollout.truncated,
            rollout.final_values,
            rollout.last_value,
        )
    ]
    adv = torch.empty(rollout.rewards.shape)
    compute_gae(*cpu, np.float32(gamma), np.float32(lam), adv.numpy())
    adv = adv.to(rollout.values.device)
    return adv, adv + rollout.values


def _minibatches(rollout, cfg) -> list[torch.Tensor]:
    """Index sets: flat sample indices for the MLP, row (sequence) indices when recurrent."""
    horizon, rows = rollout.rewards.shape
    if rollout.policy.recurrent:
        per = max(1, min(rows, cfg.minibatch_size // horizon))
        order = torch.randperm(rows)
    else:
        per = max(1, min(rows * horizon, cfg.minibatch_size))
        order = torch.randperm(rows * horizon)
    return list(order.to(rollout.values.device).split(per))


def _losses(policy, rollout, idx, adv, ret, cfg, teacher=None):
    kl_teacher = None
    if policy.recurrent:
        state0 = tuple(s[idx] for s in rollout.state0)
        newlogp, entropy, newv = policy.evaluate(
            rollout.obs[:, idx], rollout.mask[:, idx], rollout.actions[:, idx], state0, rollout.resets[:, idx]
        )
        pick = lambda x: x[:, idx]  # noqa: E731
    else:
        flat = lambda x: x.reshape(-1, *x.shape[2:])  # noqa: E731
        pick = lambda x: flat(x).index_select(0, idx)  # noqa: E731
        obs, mask = pick(rollout.obs), pick(rollout.mask)
        if teacher is None:
            newlogp, entropy, newv = policy.evaluate(obs, mask, pick(rollout.actions))
        else:
            newlogp, entropy, newv, logits = policy.evaluate(obs, mask, pick(rollout.actions), with_logits=True)
            kl_teacher = teacher.kl(obs, mask, logits)
    old_logp, old_v, mb_adv, mb_ret = pick(rollout.logprob), pick(rollout.values), pick(adv), pick(ret)
    logratio = newlogp - old_logp
    ratio = logratio.exp()
    if cfg.norm_adv:
        mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
    pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
    if cfg.vf_clip_coef > 0:
        clipped = old_v + (newv - old_v).clamp(-cfg.vf_clip_coef, cfg.vf_clip_coef)
        v_loss = 0.5 * torch.max((newv - mb_ret) ** 2, (clipped - mb_ret) ** 2).mean()
    else:
        v_loss = 0.5 * ((newv - mb_ret) ** 2).mean()
    ent = entropy.mean()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - logratio).mean()
        clipfrac = ((ratio - 1).abs() > cfg.clip_coef).float().mean()
    return pg_loss, v_loss, ent, approx_kl, clipfrac, kl_teacher


def ppo_update(policy: nn.Module, optimizer, rollout, cfg, teacher=None, kl_coef: float = 0.0) -> dict:
    """Advantages, then ``update_epochs`` passes of minibatch gradient steps; returns loss metrics.

    With ``teacher`` (a :class:`~sparring.train.teacher.TeacherKL`; MLP policies) the loss adds
    ``kl_coef`` times the mean KL from the teacher's action distribution to the policy's (``loss/kl_teacher``).
    """
    adv, ret = advantages_and_returns(rollout, cfg.gamma, cfg.gae_lambda)
    totals = torch.zeros(6)
    count = 0
    for _ in range(cfg.update_epochs):
        for idx in _minibatches(rollout, cfg):
            pg_loss, v_loss, ent, approx_kl, clipfrac, kl_teacher = _losses(
                policy, rollout, idx, adv, ret, cfg, teacher
            )
            loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
            if kl_teacher is None:
                kl_teacher = torch.zeros(())
            elif kl_coef > 0:
                loss = loss + kl_coef * kl_teacher
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            totals += torch.stack([pg_loss, v_loss, ent, approx_kl, clipfrac, kl_teacher]).detach().cpu()
            count += 1
    pg, v, ent, kl, cf, kl_t = (totals / max(1, count)).tolist()
    var_ret = ret.var()
    explained = float("nan") if var_ret == 0 else (1 - (ret - rollout.values).var() / var_ret).item()
    return {
        "loss/policy": pg,
        "loss/value": v,
        "loss/entropy": ent,
        "loss/approx_kl": kl,
        "loss/clipfrac": cf,
        "loss/explained_variance": explained,
        **({"loss/kl_teacher": kl_t, "train/kl_teacher_coef": kl_coef} if teacher is not None else {}),
    }
