"""SeatPlayers: each row played by its seat's player, one call per player, a clear error for a seat without one."""

import numpy as np
import pytest

from sparring.kit import BatchedEnv, registry
from sparring.players import ScriptedPlayer
from sparring.players.seats import SeatPlayers
from tests.train import toys  # noqa: F401  (registers the toy envs)


class Constant:
    """Plays one value on every row and counts its calls."""

    def __init__(self, action):
        self.action, self.calls, self.name = action, 0, f"constant:{action}"
        self.logp = self.value = np.zeros(0, np.float32)

    def act(self, env, rows):
        self.calls += 1
        self.logp = np.full(len(rows), -float(self.action), np.float32)
        self.value = np.zeros(len(rows), np.float32)
        return np.full((len(rows), 1), self.action, np.int32)


def test_each_row_gets_its_seats_player_and_a_shared_player_acts_once():
    env = BatchedEnv(registry.get("toy_roles"), num_envs=3, seed=0)
    low, high = Constant(1), Constant(3)
    player = SeatPlayers({0: low, 1: low, 2: high, 3: high}, "pair")
    rows = np.array([0, 5, 6, 11, 4])
    assert player.act(env, rows)[:, 0].tolist() == [1, 1, 3, 3, 1]
    assert (low.calls, high.calls) == (1, 1)
    assert player.logp.tolist() == [-1, -1, -3, -3, -1]
    right = SeatPlayers({s: ScriptedPlayer(env, "right") for s in range(4)}, "right")
    assert (right.act(env, np.arange(env.rows))[:, 0] == np.arange(env.rows) % 4).all()
    assert np.isnan(right.logp).all()  # a scripted player has no log-probabilities


def test_a_seat_without_a_player_is_named():
    env = BatchedEnv(registry.get("toy_roles"), num_envs=2, seed=0)
    player = SeatPlayers({0: Constant(0), 1: Constant(1)}, "checkpoint:x")
    with pytest.raises(ValueError, match="checkpoint:x has no policy for seat\\(s\\) \\['seat2'\\]; it plays"):
        player.act(env, np.array([0, 2]))
