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


def _minibatches(rollout, size: int) -> list[torch.Tensor]:
    """Index sets of ``size`` samples: flat sample indices for the MLP, row (sequence) indices when recurrent."""
    horizon, rows = rollout.rewards.shape
    if rollout.policy.recurrent:
        per = max(1, min(rows, size // horizon))
        order = torch.randperm(rows)
    else:
        per = max(1, min(rows * horizon, size))
        order = torch.randperm(rows * horizon)
    return list(order.to(rollout.values.device).split(per))


def _pick(recurrent: bool):
    """Gathers a minibatch of a [T, N, ...] buffer: whole sequences when recurrent, else flat samples."""
    if recurrent:
        return lambda x, idx: x[:, idx]
    return lambda x, idx: x.reshape(-1, *x.shape[2:]).index_select(0, idx)


def _losses(policy, rollout, idx, adv, ret, cfg, teacher=None, moments=None):
    """The minibatch ``idx``'s losses; ``moments``: the whole minibatch's advantage mean and std where this is a
    rank's shard of it."""
    kl_teacher = None
    take = _pick(policy.recurrent)
    pick = lambda x: take(x, idx)  # noqa: E731
    if policy.recurrent:
        state0 = tuple(s[idx] for s in rollout.state0)
        newlogp, entropy, newv = policy.evaluate(
            pick(rollout.obs), pick(rollout.mask), pick(rollout.actions), state0, pick(rollout.resets)
        )
    else:
        obs, mask = pick(rollout.obs), pick(rollout.mask)
        if teacher is None:
            newlogp, entropy, newv = policy.evaluate(obs, mask, pick(rollout.actions))
        else:
            newlogp, entropy, newv, logits = policy.evaluate(obs, mask, pick(rollout.actions), with_logits=True)
            kl_teacher = teacher.kl(obs, mask, logits)
    old_logp, old_v, mb_adv, mb_ret = pick(rollout.logprob), pick(rollout.values), pick(adv), pick(ret)
    logratio = newlogp - old_logp
    ratio = logratio.exp()
    if cfg.norm_adv:  # the whole minibatch's moments when it is sharded over ranks
        mean, std = (mb_adv.mean(), mb_adv.std()) if moments is None else moments
        mb_adv = (mb_adv - mean) / (std + 1e-8)
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


def ppo_update(policy: nn.Module, optimizer, rollout, cfg, teacher=None, kl_coef: float = 0.0, parallel=None) -> dict:
    """Advantages, then ``update_epochs`` passes of minibatch gradient steps; returns loss metrics.

    With ``teacher`` (a :class:`~sparring.train.teacher.TeacherKL`; MLP policies) the loss adds
    ``kl_coef`` times the mean KL from the teacher's action distribution to the policy's (``loss/kl_teacher``).
    With ``parallel`` (a :class:`~sparring.train.distributed.DataParallel`) this rank's rollout is its shard:
    each minibatch takes ``minibatch_size / ranks`` of its samples, advantages are normalised with the whole
    minibatch's moments, gradients are averaged over the ranks before clipping, and the metrics are the whole
    batch's. Every epoch's minibatches are drawn before the first step.
    """
    adv, ret = advantages_and_returns(rollout, cfg.gamma, cfg.gae_lambda)
    size = cfg.minibatch_size if parallel is None else parallel.shard(cfg.minibatch_size)
    params = [p for p in policy.parameters() if p.requires_grad]
    epochs = [_minibatches(rollout, size) for _ in range(cfg.update_epochs)]
    moments = [[None] * len(sets) for sets in epochs]
    if parallel is not None and cfg.norm_adv:
        moments = parallel.minibatch_moments(adv, epochs, _pick(rollout.policy.recurrent))
    totals = torch.zeros(6)
    count = 0
    for index_sets, epoch_moments in zip(epochs, moments):
        for idx, mb_moments in zip(index_sets, epoch_moments):
            pg_loss, v_loss, ent, approx_kl, clipfrac, kl_teacher = _losses(
                policy, rollout, idx, adv, ret, cfg, teacher, mb_moments
            )
            loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
            if kl_teacher is None:
                kl_teacher = torch.zeros(())
            elif kl_coef > 0:
                loss = loss + kl_coef * kl_teacher
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if parallel is not None:
                parallel.average_gradients(params)
            nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            totals += torch.stack([pg_loss, v_loss, ent, approx_kl, clipfrac, kl_teacher]).detach().cpu()
            count += 1
    means = totals / max(1, count)
    if parallel is None:
        var_ret, var_err = ret.var(), (ret - rollout.values).var()
    else:  # every rank's shard is the same size: the mean of the shards' means is the batch's
        means, var_ret, var_err = _pooled(parallel, means, ret, ret - rollout.values)
    pg, v, ent, kl, cf, kl_t = means.tolist()
    explained = float("nan") if var_ret == 0 else (1 - var_err / var_ret).item()
    return {
        "loss/policy": pg,
        "loss/value": v,
        "loss/entropy": ent,
        "loss/approx_kl": kl,
        "loss/clipfrac": cf,
        "loss/explained_variance": explained,
        **({"loss/kl_teacher": kl_t, "train/kl_teacher_coef": kl_coef} if teacher is not None else {}),
    }


def _pooled(parallel, means: torch.Tensor, *columns: torch.Tensor) -> tuple:
    """``means`` averaged over the ranks, then the unbiased variance of each of ``columns`` over every rank's
    elements, in one ``all_reduce``."""
    sums = [
        torch.stack([torch.tensor(x.numel()), x.sum(), x.square().sum()]) for x in (c.double().cpu() for c in columns)
    ]
    reduced = parallel.total(torch.cat([means.double() / parallel.world, *sums]))
    out = [reduced[: len(means)].float()]
    for n, total, squares in reduced[len(means) :].view(-1, 3):
        out.append(((squares - total * total / n) / (n - 1).clamp(min=1)).float())
    return tuple(out)
