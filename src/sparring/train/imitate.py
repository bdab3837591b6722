"""Behaviour-cloning warm start: the policy learns a scripted teacher's actions before PPO starts.

The batched env is rolled with the teacher's actions (``scripted_actions(name)``) for the
trained rows; the action heads learn them by cross-entropy over the masked logits, and the
value head learns the teacher's returns (GAE targets), so PPO starts from the teacher's
behaviour with a critic that already knows what it is worth.

With ``imitate_mix`` above 0 the clone is DAgger-style (Ross et al. 2011): on each step each
trained row plays the policy's own sampled action with that probability, and the teacher's
action for the state reached is still the label. A pure clone only ever sees the states the
teacher visits, so one mistake in a long encounter leads where it never learned to recover;
mixing in its own actions shows it those states with the teacher's answer. The values then
learn the mixture's returns. The clone keeps the PPO
trainer's buffers, minibatches and optimizer, and its time and steps count toward the run's
budget (``--train.minutes`` / ``--train.steps``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import torch
from torch import nn

from sparring.train.ppo import _minibatches, advantages_and_returns

AGREE = float(np.log(0.5))  # the teacher's action counts as agreed on when the policy gives it over half the mass


def check_imitation(cfg, env) -> None:
    """Raise a ValueError naming the bad setting when ``--train.imitate*`` cannot run on ``env``."""
    if not cfg.imitate:
        return
    if cfg.imitate_steps < 0 or cfg.imitate_minutes < 0:
        raise ValueError(
            f"imitate_steps and imitate_minutes must be >= 0, got {cfg.imitate_steps} and {cfg.imitate_minutes}"
        )
    if cfg.imitate_steps == 0 and cfg.imitate_minutes == 0:
        raise ValueError(
            f"--train.imitate {cfg.imitate} needs a limit: --train.imitate_steps N or --train.imitate_minutes M"
        )
    env.scripted_actions(cfg.imitate)  # names the env's scripted policies when this one is unknown


def _take(env_buffer: np.ndarray, rollout) -> torch.Tensor:
    tensor = torch.from_numpy(env_buffer)
    tensor = tensor if rollout.all_rows else tensor.index_select(0, rollout.rows)
    return tensor.to(rollout.device)


def teacher_rollout(
    rollout, name: str, opponent=None, mix: float = 0.0, rng: np.random.Generator | None = None
) -> None:
    """Fill ``rollout``'s buffers with ``horizon`` steps where the trained rows play scripted policy ``name``.

    Values and the recurrent state come from the policy as in a PPO rollout; ``actions``
    hold the teacher's choices; other rows get the opponent's actions as usual. With ``mix``
    > 0 each trained row plays the policy's sampled action instead with probability ``mix``
    per step (drawn from ``rng``); the stored label stays the teacher's.
    """
    env, policy = rollout.env, rollout.policy
    rollout.begin()
    teacher = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    with torch.inference_mode():
        for t in range(rollout.horizon):
            rollout.obs[t].copy_(_take(env.obs, rollout))
            rollout.mask[t].copy_(_take(env.mask, rollout))
            rollout.resets[t] = rollout.just_done
            reset = rollout.just_done if policy.recurrent else None
            own, _, value, rollout.state = policy.act(rollout.obs[t], rollout.mask[t], rollout.state, reset)
            env.scripted_actions(name, out=teacher)
            if opponent is not None:
                opponent.fill(teacher)
            rollout.actions[t] = _take(teacher, rollout).long()
            rollout.values[t] = value
            played = teacher
            if mix > 0.0:
                pick = rng.random(len(rollout.rows_np)) < mix
                played = teacher.copy()
                played[rollout.rows_np[pick]] = own.cpu().numpy()[pick]
            _, rew, term, trunc, _, info = env.step(played)
            if info:
                rollout.stats.add(info)
            rollout.note_ends()  # a start-state curriculum or the archive sees the clone's episodes too
            if opponent is not None:
                opponent.after_step(rew, env.done)
            rollout.store_step(t, rew, term, trunc)  # rewards, episode ends, truncations' bootstrap values
        if policy.recurrent:
            rollout.state = tuple(s * (~rollout.just_done).unsqueeze(-1) for s in rollout.state)
        obs = _take(env.obs, rollout)
        rollout.last_value = policy.value(obs, rollout.state) if policy.recurrent else policy.value(obs)
        rollout.restart_ended()


def clone_update(policy: nn.Module, optimizer, rollout, cfg) -> dict:
    """``update_epochs`` passes of cross-entropy on the teacher's actions plus the value loss on its returns."""
    _, ret = advantages_and_returns(rollout, cfg.gamma, cfg.gae_lambda)
    totals, count = torch.zeros(3), 0
    for _ in range(cfg.update_epochs):
        for idx in _minibatches(rollout, cfg.minibatch_size):
            if policy.recurrent:
                state0 = tuple(s[idx] for s in rollout.state0)
                logp, _, value = policy.evaluate(
                    rollout.obs[:, idx], rollout.mask[:, idx], rollout.actions[:, idx], state0, rollout.resets[:, idx]
                )
                target = ret[:, idx]
            else:
                flat = lambda x: x.reshape(-1, *x.shape[2:])[idx]  # noqa: E731
                logp, _, value = policy.evaluate(flat(rollout.obs), flat(rollout.mask), flat(rollout.actions))
                target = flat(ret)
            policy_loss = -logp.mean()
            value_loss = 0.5 * ((value - target) ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            (policy_loss + cfg.vf_coef * value_loss).backward()
            nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            agree = (logp.detach() > AGREE).float().mean()
            totals += torch.stack([policy_loss.detach(), value_loss.detach(), agree]).cpu()
            count += 1
    pol, val, agree = (totals / max(1, count)).tolist()
    return {"loss/imitate_policy": pol, "loss/imitate_value": val, "loss/imitate_agree": agree}


def imitate(trainer) -> Iterator[dict]:
    """Clone ``trainer.cfg.imitate`` into ``trainer.policy`` until its step or minute limit; yields each
    iteration's metrics (the teacher's episodes as ``env/...``). Advances the trainer's step count and
    elapsed time, so the warm start counts toward the run's budget."""
    cfg = trainer.cfg
    check_imitation(cfg, trainer.env)
    lr = cfg.imitate_lr or cfg.lr
    trainer.optimizer.set_lr(lr)
    rng = np.random.default_rng([cfg.seed, 0x1D])  # the DAgger mix's own stream
    steps, seconds = 0, 0.0
    while (
        (cfg.imitate_steps == 0 or steps < cfg.imitate_steps)
        and (cfg.imitate_minutes == 0 or seconds < 60.0 * cfg.imitate_minutes)
        and not trainer.finished()
    ):
        start = time.perf_counter()
        teacher_rollout(trainer.rollout, cfg.imitate, trainer.opponent, cfg.imitate_mix, rng)
        trainer.score_restarts()
        collected = time.perf_counter()
        losses = clone_update(trainer.policy, trainer.optimizer, trainer.rollout, cfg)
        end = time.perf_counter()
        seconds += end - start
        steps += trainer.batch_size
        trainer.elapsed += end - start
        trainer.global_step += trainer.batch_size
        yield {
            "train/step": trainer.global_step,
            "train/elapsed_s": trainer.elapsed,
            "train/lr": lr,
            "train/sps": trainer.batch_size / (end - start),
            "perf/rollout_s": collected - start,
            "perf/update_s": end - collected,
            **losses,
            **trainer.rollout.stats.drain(),
        }
