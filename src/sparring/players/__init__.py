"""Who acts for a set of rows: one :class:`Player` protocol for scripted, random, checkpoint and brain players,
and the read side of checkpoints (:mod:`sparring.players.load`; the network player is in
:mod:`sparring.players.network`, which needs torch). train, evaluate, record, explore and lm get their
players here."""

from sparring.players.base import Player
from sparring.players.make import make_player, player_specs
from sparring.players.simple import RandomPlayer, ScriptedPlayer

__all__ = ["Player", "RandomPlayer", "ScriptedPlayer", "make_player", "player_specs"]
