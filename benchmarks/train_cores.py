"""Training throughput with today's defaults against the new ones, and the update's distance to sgemm's ceiling.

    python benchmarks/train_cores.py [--envs gauntlet duel serpent squared] [--iterations 5] [--threads N]
    bothcores .venv/bin/python benchmarks/train_cores.py      # on the 2-core build machine

Per env, at its own defaults (its ``[train]`` table), three trainers in this process, their PPO
iterations (rollout + update) taking turns so load changes hit them alike, one warm-up each:

- ``before``: the trainer as it was before issue 37 (git 2b49e90): torch threads "all cores but
  one", the masked heads on the torch grid, minibatches picked by advanced indexing, unfused Adam,
  the observation scale multiplied even when it is 1, one-hot planes by comparison (the code
  paths this benchmark swaps back in below, copied from that revision);
- ``code``: today's code at the old thread count, so the code's share of the gain shows alone;
- ``after``: today's code at today's defaults (every usable core, or ``--threads``).

Prints median learner agent-steps/s, the split into env step, inference and update seconds, and the
ratios to ``before``. Then the roofline of each arm: FLOP/s achieved by the update (forward and
backward matrix products of every minibatch step) and by rollout inference (forward products),
against the ceiling measured in this process at the same thread count: sgemm on exactly the
policy's shapes (each layer's forward, weight-gradient and input-gradient product at the update's
minibatch and at the rollout's batch), and torch's largest sgemm (2048 square) as the machine's peak.
"""

from __future__ import annotations

import argparse
import statistics
import time
import types

import torch
from torch import nn

from sparring.kit import registry
from sparring.train.config import make_train_config
from sparring.train.optim import Optimizers
from sparring.train.trainer import Trainer, usable_cores

# ---- the code paths of git 2b49e90 (before issue 37), swapped into the 'before' trainer ----


def _old_losses(policy, rollout, idx, adv, ret, cfg):
    """sparring.train.ppo._losses at 2b49e90 (MLP part): minibatches picked with ``flat(x)[idx]``."""
    flat = lambda x: x.reshape(-1, *x.shape[2:])  # noqa: E731
    pick = lambda x: flat(x)[idx]  # noqa: E731
    newlogp, entropy, newv = policy.evaluate(pick(rollout.obs), pick(rollout.mask), pick(rollout.actions))
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
    return pg_loss, v_loss, ent, approx_kl, clipfrac


def _old_inputs(self, obs):
    """Policy._inputs at 2b49e90: one comparison per one-hot code, and the scale multiplied even when it is 1."""
    if self.onehot:
        return (obs.unsqueeze(-1) == self.codes.to(obs.dtype)).to(torch.float32).flatten(-2)
    return obs.to(torch.float32) * self.scale


def make_before(trainer: Trainer) -> None:
    """Swap the 2b49e90 code paths into ``trainer`` (an MLP policy)."""
    import sparring.train.ppo as ppo

    trainer.policy.fused_heads = False
    trainer.policy._inputs = types.MethodType(_old_inputs, trainer.policy)
    trainer.optimizer = Optimizers([torch.optim.Adam(trainer.policy.parameters(), lr=trainer.cfg.lr, eps=1e-5)])
    trainer._old_losses = True
    trainer._ppo = ppo


def iterate(trainer: Trainer, threads: int) -> dict:
    """One PPO iteration at ``threads`` torch threads (with the old losses for the 'before' trainer)."""
    torch.set_num_threads(threads)
    ppo = getattr(trainer, "_ppo", None)
    if ppo is None:
        return trainer.iterate()
    new_losses, ppo._losses = ppo._losses, _old_losses
    try:
        return trainer.iterate()
    finally:
        ppo._losses = new_losses


# ---- FLOPs and the sgemm ceiling ----


def linear_shapes(policy: nn.Module) -> list[tuple[int, int, bool]]:
    """(inputs, outputs, needs input gradient) of every Linear a forward pass runs, in order."""
    layers = [m for m in policy.encoder if isinstance(m, nn.Linear)] + [policy.actor, policy.critic]
    return [(m.in_features, m.out_features, k > 0) for k, m in enumerate(layers)]


def flops_per_sample(shapes, backward: bool) -> float:
    """Multiply-adds x 2 of one sample's forward pass (and its backward: weight gradients, input gradients)."""
    fwd = sum(2 * i * o for i, o, _ in shapes)
    if not backward:
        return fwd
    return fwd + fwd + sum(2 * i * o for i, o, grad_in in shapes if grad_in)


def _time(fn, seconds: float = 0.15) -> float:
    fn()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        count += 1
    return (time.perf_counter() - start) / count


def sgemm_ceiling(shapes, batch: int, backward: bool, threads: int) -> float:
    """FLOP/s of torch's sgemm on exactly these products at ``batch`` rows (the time they would take alone)."""
    torch.set_num_threads(threads)
    total_flops, total_s = 0.0, 0.0
    for i, o, grad_in in shapes:
        x, w, b, dy = torch.randn(batch, i), torch.randn(o, i), torch.randn(o), torch.randn(batch, o)
        products = [lambda: torch.addmm(b, x, w.t())]
        if backward:
            products.append(lambda: dy.t().mm(x))
            if grad_in:
                products.append(lambda: dy.mm(w))
        for product in products:
            total_flops += 2 * batch * i * o
            total_s += _time(product)
    return total_flops / total_s


def peak_sgemm(threads: int, n: int = 2048) -> float:
    """FLOP/s of a square sgemm of side ``n``."""
    torch.set_num_threads(threads)
    a, b = torch.randn(n, n), torch.randn(n, n)
    return 2 * n**3 / _time(lambda: a.mm(b), 0.5)


# ---- the runs ----


def measure(env: str, iterations: int, old_threads: int, new_threads: int) -> dict:
    """The three arms' iterations on ``env``, interleaved."""
    env_cls = registry.get(env)
    base = {"steps": 10**12, "anneal_lr": False, "eval_episodes": 0}
    arms = {
        "before": (make_train_config(env_cls, {**base, "threads": old_threads}), old_threads),
        "code": (make_train_config(env_cls, {**base, "threads": old_threads}), old_threads),
        "after": (make_train_config(env_cls, {**base, "threads": new_threads}), new_threads),
    }
    trainers = {}
    for name, (cfg, threads) in arms.items():
        trainers[name] = Trainer(env, cfg)
        if name == "before":
            make_before(trainers[name])
        iterate(trainers[name], threads)  # warm-up (compiles)
    runs = {name: [] for name in arms}
    for _ in range(iterations):
        for name, trainer in trainers.items():
            runs[name].append(iterate(trainer, arms[name][1]))
    out = {}
    for name, metrics in runs.items():
        trainer, threads = trainers[name], arms[name][1]
        med = {k: statistics.median(m[k] for m in metrics) for k in ("train/sps", "perf/env_s", "perf/infer_s")}
        med["update_s"] = statistics.median(m["perf/update_s"] for m in metrics)
        cfg, rows = trainer.cfg, len(trainer.rollout.rows_np)
        shapes = linear_shapes(trainer.policy)
        samples = cfg.horizon * rows
        med["update_flops"] = cfg.update_epochs * samples * flops_per_sample(shapes, True)
        med["infer_flops"] = samples * flops_per_sample(shapes, False)
        med["threads"], med["env_threads"] = threads, trainer.env_threads
        med["minibatch"], med["rows"] = min(cfg.minibatch_size, samples), rows
        med["shapes"] = shapes
        out[name] = med
    return out


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="+", default=["gauntlet", "duel", "serpent", "squared"])
    parser.add_argument("--iterations", type=int, default=5, help="timed iterations per arm (median)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads of 'after' (0: the trainer's default)")
    args = parser.parse_args()
    cores = usable_cores()
    old_threads, new_threads = max(1, cores - 1), args.threads or cores
    print(f"{cores} usable cores: before/code at {old_threads} torch threads, after at {new_threads}", flush=True)
    ceilings: dict = {}
    for env in args.envs:
        res = measure(env, args.iterations, old_threads, new_threads)
        before = res["before"]["train/sps"]
        print(f"\n{env}: median of {args.iterations} interleaved iterations, agent-steps/s and seconds per iteration")
        for name, r in res.items():
            print(
                f"  {name:<6} threads {r['threads']} (env {r['env_threads']}): {r['train/sps'] / 1e3:7.1f} K/s "
                f"= {r['train/sps'] / before:.2f}x before; env {r['perf/env_s']:.3f} s, "
                f"inference {r['perf/infer_s']:.3f} s, update {r['update_s']:.3f} s",
                flush=True,
            )
        for name, r in res.items():
            key = (env, r["threads"])
            if key not in ceilings:
                ceilings[key] = (
                    sgemm_ceiling(r["shapes"], r["minibatch"], True, r["threads"]),
                    sgemm_ceiling(r["shapes"], r["rows"], False, r["threads"]),
                    peak_sgemm(r["threads"]),
                )
            upd_ceiling, inf_ceiling, peak = ceilings[key]
            upd = r["update_flops"] / r["update_s"]
            inf = r["infer_flops"] / r["perf/infer_s"]
            print(
                f"  roofline {name:<6} (threads {r['threads']}): update {upd / 1e9:6.1f} GFLOP/s of sgemm's "
                f"{upd_ceiling / 1e9:6.1f} at its shapes (minibatch {r['minibatch']}) = {upd / upd_ceiling:.2f}; "
                f"inference {inf / 1e9:6.1f} of {inf_ceiling / 1e9:6.1f} (batch {r['rows']}) = "
                f"{inf / inf_ceiling:.2f}; square sgemm peak {peak / 1e9:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
