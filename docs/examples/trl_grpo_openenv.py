"""TRL's GRPOTrainer on a sparring env served over OpenEnv, every group restored from one mid-episode state.

    pip install -e ".[openenv,trl]"
    sparring openenv duel --port 8000 --env.reward_damage 0.01 --env.reward_taken 0.01     # one shell
    python docs/examples/trl_grpo_openenv.py --url http://127.0.0.1:8000 --steps 3          # another
    python docs/examples/trl_grpo_openenv.py --steps 3      # or: the server on a thread of this process

How it works. One session plays the env for ``--after`` ticks with the env's scripted
player, then ``state()`` names that exact state (dice included) by a snapshot id. Every
member of every GRPO group then starts with ``reset(snapshot=ID)``: the members see the
same prompt and face the same future, so their returns differ only by what the model
chose. A member's completion is one of the legal lines, sampled in proportion to the
exponent of the model's mean log-probability per token of its words after the prompt (so
every answer is legal, and a long line is not penalised for its length), sent as
``{"line": k}``; the env's scripted player then plays the seat for ``--horizon`` more
ticks, the same for every member. The reward is the env's: the seat's rewards from the
snapshot on, as the server reported them (``reward`` of each step). TRL's
``rollout_func`` hands the trainer the prompt and completion tokens, their log-probs,
and that reward (an extra field, read by the reward function ``env_reward``).

The model here is the project's tiny untrained Llama (a tokenizer trained on the env's
own prompts); any causal LM folder works the same (``--model DIR``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

EXAMPLE_SIZE = dict(hidden=32, layers=1, heads=2, intermediate=64, context=2048)


def env_texts(url: str, episodes: int = 2, seed: int = 0) -> list[str]:
    """Prompts and lines the env shows in a few scripted episodes (to train a tokenizer on)."""
    from openenv.core.generic_client import GenericEnvClient

    texts = []
    with GenericEnvClient(base_url=url).sync() as env:
        for e in range(episodes):
            result = env.reset(seed=seed + e)
            while not result.done and len(texts) < 400:
                texts.extend([result.observation["text"], *result.observation["lines"]])
                result = env.step({"scripted": True})
    return texts


def tiny_model(url: str, folder: str) -> str:
    """The project's tiny untrained Llama with a tokenizer trained on the env's texts, saved in ``folder``."""
    from sparring.lm.model import ModelSize, build_small_model

    return build_small_model(env_texts(url), folder, ModelSize(**EXAMPLE_SIZE), vocab_size=400, overwrite=True)


def take_snapshot(url: str, seed: int, after: int) -> tuple[str, str]:
    """Play ``after`` scripted ticks from ``seed``; the snapshot id of that state and its prompt."""
    from openenv.core.generic_client import GenericEnvClient

    with GenericEnvClient(base_url=url).sync() as env:
        result = env.reset(seed=seed)
        for _ in range(after):
            result = env.step({"scripted": True})
        if result.done:
            raise ValueError(f"the episode of seed {seed} ended within {after} ticks; lower --after")
        return env.state()["snapshot"], result.observation["text"]


def line_logprobs(model, tokenizer, prompt_ids: list[int], lines: list[str]):
    """Per legal line: its token ids (words then end of sequence) and their log-probabilities after the prompt."""
    import torch

    ends = [tokenizer.eos_token_id] if tokenizer.eos_token_id is not None else []
    ids = [tokenizer(" " + words, add_special_tokens=False)["input_ids"] + ends for words in lines]
    width = len(prompt_ids) + max(len(x) for x in ids)
    pad = tokenizer.pad_token_id or 0
    batch = torch.full((len(ids), width), pad, dtype=torch.long)
    attention = torch.zeros_like(batch)
    for i, x in enumerate(ids):
        row = prompt_ids + x
        batch[i, : len(row)] = torch.tensor(row)
        attention[i, : len(row)] = 1
    with torch.no_grad():
        logits = model(input_ids=batch.to(model.device), attention_mask=attention.to(model.device)).logits.float()
    logp = torch.log_softmax(logits[:, :-1], dim=-1)
    out = []
    for i, x in enumerate(ids):
        pos = torch.arange(len(prompt_ids) - 1, len(prompt_ids) - 1 + len(x))
        out.append(logp[i, pos, torch.tensor(x)].cpu().tolist())
    return ids, out


class Rollouts:
    """TRL's ``rollout_func``: one member per prompt entry (TRL repeats each prompt ``group`` times), each from
    ``snapshot``, on ``group`` sessions kept open."""

    def __init__(self, url: str, snapshot: str, group: int, horizon: int, tokenizer, seed: int = 0):
        from openenv.core.generic_client import GenericEnvClient

        self.snapshot, self.horizon, self.tokenizer = snapshot, horizon, tokenizer
        self.sessions = [GenericEnvClient(base_url=url).sync() for _ in range(group)]
        for s in self.sessions:
            s.connect()
        self.rng = np.random.default_rng(seed)
        self.rewards: list[list[float]] = []  # per call, the env's reward of each member
        self.env_steps = 0

    def __call__(self, prompts, trainer) -> dict:
        model = trainer.model
        out = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "env_reward": []}
        # TRL's sampler repeats each prompt num_generations times: one completion per entry, a group per block
        for i, _ in enumerate(prompts):
            env = self.sessions[i % len(self.sessions)]
            first = env.reset(snapshot=self.snapshot).observation
            prompt_ids = self.tokenizer(first["text"] + "\nYou choose:", add_special_tokens=False)["input_ids"]
            words = [line.split(": ", 1)[1] for line in first["lines"]]
            ids, logps = line_logprobs(model, self.tokenizer, prompt_ids, words)
            score = np.array([np.mean(lp) for lp in logps])  # per token: a sum would favour the shortest line
            p = np.exp(score - score.max())
            k = int(self.rng.choice(len(words), p=p / p.sum()))
            result = env.step({"line": k})
            total, ticks = float(result.reward or 0.0), 0
            while not result.done and ticks < self.horizon:
                result = env.step({"scripted": True})
                total += float(result.reward or 0.0)
                ticks += 1
            self.env_steps += 1 + ticks
            out["prompt_ids"].append(prompt_ids)
            out["completion_ids"].append(ids[k])
            out["logprobs"].append(logps[k])
            out["env_reward"].append(total)
        self.rewards.append(list(out["env_reward"]))
        return out

    def close(self) -> None:
        """Close the sessions."""
        for s in self.sessions:
            s.close()


def env_reward(completions, env_reward, **kwargs) -> list[float]:
    """The env's reward of each member, as the rollout collected it from the server."""
    return [float(r) for r in env_reward]


def train(url: str, model_dir: str, out: str, steps: int = 3, group: int = 8, horizon: int = 20, after: int = 30,
          seed: int = 0, lr: float = 1e-3) -> dict:  # fmt: skip
    """GRPO of ``model_dir`` for ``steps`` optimisation steps against the server at ``url``; returns what was
    logged (TRL's log history), the env's rewards per step, the snapshot id and the wall time."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir, padding_side="left")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    snapshot, prompt = take_snapshot(url, seed, after)
    rollouts = Rollouts(url, snapshot, group, horizon, tokenizer, seed)
    config = GRPOConfig(
        output_dir=out,
        max_steps=steps,
        per_device_train_batch_size=group,
        num_generations=group,
        learning_rate=lr,
        beta=0.0,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        bf16=False,
        seed=seed,
        max_completion_length=32,
        dataloader_num_workers=0,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=env_reward,
        args=config,
        train_dataset=Dataset.from_dict({"prompt": [prompt] * (steps * 4)}),
        processing_class=tokenizer,
        rollout_func=rollouts,
    )
    try:
        trainer.train()
    finally:
        rollouts.close()
    return {
        "log": [h for h in trainer.state.log_history if "reward" in h],
        "env_rewards": rollouts.rewards,
        "env_steps": rollouts.env_steps,
        "snapshot": snapshot,
        "global_step": trainer.state.global_step,
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", help="a running `sparring openenv` server (default: one on a thread of this process)")
    p.add_argument("--env", default="duel", help="with no --url: the env to serve (default duel)")
    p.add_argument("--model", help="a causal LM folder (default: the project's tiny model, built here)")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--group", type=int, default=8)
    p.add_argument("--horizon", type=int, default=20, help="scripted ticks after the model's choice")
    p.add_argument("--after", type=int, default=30, help="scripted ticks before the snapshot")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        if args.url is None:
            from sparring.serve.app import ServerThread, make_app

            server = ServerThread(make_app(args.env, {"reward_damage": 0.01, "reward_taken": 0.01}))
        url = args.url or server.url
        try:
            model = args.model or tiny_model(url, os.path.join(tmp, "tiny"))
            report = train(url, model, os.path.join(tmp, "out"), args.steps, args.group, args.horizon, args.after,
                           args.seed)  # fmt: skip
        finally:
            if server is not None:
                server.stop()
    for row, rewards in zip(report["log"], report["env_rewards"]):
        print(f"step {row['step']}: logged reward {row['reward']:.4f}, env reward mean {np.mean(rewards):.4f}")
    print(f"{report['global_step']} optimisation steps in {report['seconds']:.1f} s (snapshot {report['snapshot']})")


if __name__ == "__main__":
    main()
