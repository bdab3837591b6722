"""Sparring envs for the LLM-RL ecosystem: any env with a text face served as an OpenEnv environment.

:mod:`~sparring.serve.openenv_env` is the OpenEnv ``Environment`` (one env per
session) with its pydantic action, observation and state types;
:mod:`~sparring.serve.snapshots` the bounded store behind exact restored groups
(``state().snapshot`` then ``reset(snapshot=ID)``); :mod:`~sparring.serve.app`
builds the server with OpenEnv's own server library and runs it;
:mod:`~sparring.serve.client` is an OpenEnv ``EnvClient`` for it. The modules
import OpenEnv (the optional extra ``sparring[openenv]``) when imported, so this
package itself imports nothing heavy.
"""
