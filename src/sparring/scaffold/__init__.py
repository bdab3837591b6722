"""Env authoring: ``sparring new`` templates and the ``sparring list`` summary."""

from sparring.scaffold.listing import env_summary
from sparring.scaffold.new import Scaffold, new_env

__all__ = ["Scaffold", "env_summary", "new_env"]
