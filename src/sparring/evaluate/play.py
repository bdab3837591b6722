"""``sparring eval`` and ``sparring watch``: a checkpoint against an opponent, in numbers or on screen."""

from __future__ import annotations

import sys
import time

import numpy as np
import torch

from sparring.evaluate.episodes import play_episodes, summarize
from sparring.kit import BatchedEnv, registry
from sparring.train.checkpoint import load_policy, read_meta
from sparring.train.config import make_train_config
from sparring.train.opponents import make_opponent


def _setup(env_name: str, checkpoint: str, opponent: str | None, env_overrides: dict, num_envs: int, seed: int,
           autoreset: bool = True):
    meta = read_meta(checkpoint)
    env_cls = registry.get(env_name)
    config = {**meta["env_config"], **env_overrides} if meta["env"] == env_name else dict(env_overrides)
    cfg = make_train_config(None, {k: v for k, v in meta["train_config"].items() if k in ("seed", "pool_size")})
    config, factory = make_opponent(env_cls, opponent if opponent is not None else meta.get("opponent"), config, cfg)
    env = BatchedEnv(env_cls, num_envs=num_envs, seed=seed, autoreset=autoreset, **config)
    policy, meta = load_policy(checkpoint, env_name, env)
    policy.eval()
    opp, rows = factory(env, policy, torch.device("cpu"))
    return env, policy, opp, rows, meta


def evaluate_checkpoint(env_name: str, checkpoint: str, opponent: str | None = None, episodes: int = 1000,
                        seed: int = 12345, num_envs: int = 256, greedy: bool = False,
                        env_overrides: dict | None = None) -> dict:
    """Win/loss/draw with Wilson intervals, per-phase table and means for ``episodes`` episodes.

    ``seed`` defaults to one no training run uses by default, so eval episodes are fresh.
    """
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    env, policy, opp, rows, meta = _setup(env_name, checkpoint, opponent, env_overrides or {},
                                          min(num_envs, episodes), seed,
                                          autoreset=False)
    data = play_episodes(env, policy, episodes, rows, opp, greedy=greedy)
    report = summarize(env.env_cls, data)
    report.update({"env": env_name, "checkpoint_step": meta["step"], "opponent": opponent or meta.get("opponent"),
                   "greedy": greedy, "seed": seed})
    return report


def watch(env_name: str, checkpoint: str, opponent: str | None = None, episodes: int = 3, fps: float = 8.0,
          seed: int = 0, greedy: bool = False, env_overrides: dict | None = None, stream=None) -> None:
    """Play ``episodes`` episodes of one env live in the terminal with the env's ANSI renderer."""
    stream = stream or sys.stdout
    env, policy, opp, rows, _ = _setup(env_name, checkpoint, opponent, env_overrides or {}, 1, seed)
    if not hasattr(env.env_cls, "render_ansi"):
        raise ValueError(f"env {env_name!r} has no render_ansi; watch needs one")
    rows_t = torch.from_numpy(np.asarray(rows, np.int64))
    actions = np.zeros((env.rows, len(env.heads.sizes)), np.int32)
    state, total, finished = policy.initial_state(len(rows)), 0.0, 0
    while finished < episodes:
        stream.write("\x1b[H\x1b[2J" + env.render_ansi(0) + f"\nepisode {finished + 1}/{episodes}  return {total:+.2f}\n")
        stream.flush()
        with torch.inference_mode():
            act, _, _, state = policy.act(torch.from_numpy(env.obs)[rows_t], torch.from_numpy(env.mask)[rows_t],
                                          state, greedy=greedy)
        actions[rows] = act.numpy()
        if opp is not None:
            opp.fill(actions)
        env.step(actions)
        if opp is not None:
            opp.after_step(env.rewards, env.done)
        total += float(env.rewards[rows].mean())
        if env.done[0]:
            finished += 1
            stream.write(f"episode {finished} ended: return {total:+.2f}\n")
            stream.flush()
            state, total = policy.initial_state(len(rows)), 0.0
            time.sleep(min(1.0, 4 / fps))
        time.sleep(1.0 / fps)
