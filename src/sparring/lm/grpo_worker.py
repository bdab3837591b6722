"""One GRPO play worker, run as a Ray actor: its own copy of the base model per learner, playing its share of an
iteration's copies.

The worker loads the run's base itself (the model folder or GGUF file the driver loaded: no base weights cross
Ray), with fresh LoRA adapters of the run's rank in a LoRA run, and turns the learners' lines into samples with a
:class:`~sparring.lm.choice.LineScorer` per learner, in the run's prompt. It keeps nothing between iterations but
the trainable weights the driver sent last (:meth:`PlayWorker.load`), so a run resumes on any worker count.
"""

from __future__ import annotations

import numpy as np

from sparring.lm.learners import LearnersRollout, learners_env, play_learners


def trainable_weights(model) -> dict:
    """The parameters of ``model`` that GRPO trains, by name: a LoRA run's adapters, or with full fine-tuning
    every parameter (the whole model)."""
    return {name: p.detach().cpu() for name, p in model.named_parameters() if p.requires_grad}


class PlayWorker:
    """Plays copies for the learners ``characters`` of ``env`` (its config ``env_config``) with the base ``base``
    (``lora``, ``dtype`` and ``chat_template`` as the run's :class:`~sparring.lm.grpo.GRPOConfig`), on
    ``threads`` torch threads."""

    def __init__(
        self,
        base: str,
        characters: list[int],
        env: str,
        env_config: dict,
        lora: int,
        dtype: str,
        chat_template: str,
        prompt: str,
        threads: int,
    ):
        import torch

        from sparring.lm.choice import LineScorer
        from sparring.lm.lora import add_lora
        from sparring.lm.model_spec import load_model, load_tokenizer

        torch.set_num_threads(threads)
        self.characters, self.env, self.env_config = list(characters), env, dict(env_config)
        tok = load_tokenizer(base, chat_template or None)
        self.policies = []
        for _ in self.characters:
            model = load_model(base, dtype)
            self.policies.append(add_lora(model, lora) if lora else model)
        # as the driver's learners: a LoRA scorer reads the model whose layers peft injected
        self.scorers = [LineScorer(p.base_model.model if lora else p, tok, prompt=prompt) for p in self.policies]

    def node(self) -> str:
        """The Ray node this worker runs on (answered once its models are loaded)."""
        import ray

        return ray.get_runtime_context().get_node_id()

    def load(self, weights: list[dict]) -> None:
        """Set each learner's trainable weights (:func:`trainable_weights` of the driver's policy, in the order of
        ``characters``); a ValueError when their names are not this worker's."""
        import torch

        for policy, sent in zip(self.policies, weights, strict=True):
            params = dict(policy.named_parameters())
            mine = {name for name, p in params.items() if p.requires_grad}
            if set(sent) != mine:
                odd = sorted(set(sent) ^ mine)[:3]
                raise ValueError(f"the driver's trainable weights are not this worker's (e.g. {odd}): another base?")
            with torch.no_grad():  # in place: the scorers' kept prompt-head keys see the new version and are redone
                for name, value in sent.items():
                    params[name].copy_(value)

    def weights(self) -> list[dict]:
        """Each learner's trainable weights as this worker holds them (what :meth:`load` set)."""
        return [trainable_weights(p) for p in self.policies]

    def play(
        self, records: np.ndarray, seed: np.random.SeedSequence, temperature: float, turns: int, batch_size: int
    ) -> LearnersRollout:
        """Play the copies restored from ``records`` as the driver would (``turns`` ticks, 0: to the end), sampling
        at ``temperature`` from a generator seeded by ``seed``; their turns count envs from 0 here."""
        batch = learners_env(len(records), 0, self.characters, self.env, "any", **self.env_config)
        batch.restore(None, records)
        rng = np.random.default_rng(seed)
        return play_learners(self.scorers, batch, self.characters, temperature, rng, turns, batch_size)
