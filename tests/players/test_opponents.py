"""``--opponent NAME``: the knob, scripted players and self-play, and the error for anything else."""

import pytest

from sparring.envs.duel.env import Duel
from sparring.players.opponents import opponent_choices, resolve_opponent


def test_unknown_opponent_names_each_valid_choice_once():
    with pytest.raises(ValueError, match="unknown opponent 'nonsense'") as err:
        resolve_opponent(Duel, "nonsense", {})
    listed = str(err.value).split("valid: ")[1]
    names = [*opponent_choices(Duel), *Duel.scripted, "self"]
    for name in names:
        assert listed.count(repr(name)) == 1, (name, listed)


def test_a_knob_value_sets_the_env_config():
    name = opponent_choices(Duel)[0]
    config, other = resolve_opponent(Duel, name, {})
    assert config["opponent"] == name and other is None
