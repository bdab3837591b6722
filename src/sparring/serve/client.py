"""An OpenEnv ``EnvClient`` for ``sparring openenv``: typed actions, observations and state over one WebSocket
session.

    from sparring.serve.client import SparringEnvClient
    from sparring.serve.openenv_env import SparringAction

    with SparringEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(seed=1)
        snap = env.state().snapshot                 # this exact state, dice included
        while not result.done:
            result = env.step(SparringAction(line=0))
        result = env.reset(snapshot=snap)           # back to it, in this or any session

OpenEnv's own ``GenericEnvClient`` speaks the same protocol with plain dicts.
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from sparring.serve.openenv_env import SparringAction, SparringObservation, SparringState


class SparringEnvClient(EnvClient[SparringAction, SparringObservation, SparringState]):
    """A session on a ``sparring openenv`` server (async by default; ``.sync()`` for plain calls)."""

    def _step_payload(self, action: SparringAction) -> dict[str, Any]:
        """The action's given fields (exactly one of line, text, action, scripted)."""
        if isinstance(action, dict):
            action = SparringAction(**action)
        return action.model_dump(exclude_defaults=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[SparringObservation]:
        """The server's answer as a StepResult of a SparringObservation."""
        fields = dict(payload.get("observation", {}))
        fields.setdefault("metadata", payload.get("metadata") or {})
        obs = SparringObservation(**fields, done=payload.get("done", False), reward=payload.get("reward"))
        return StepResult(observation=obs, reward=obs.reward, done=obs.done, metadata=obs.metadata)

    def _parse_state(self, payload: dict[str, Any]) -> SparringState:
        """The session's state, its ``snapshot`` naming it."""
        return SparringState(**payload)
