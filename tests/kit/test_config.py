"""Env configs: defaults, TOML defaults beside the env, validated overrides."""

import dataclasses

import numpy as np
import pytest

from sparring.envs.squared.env import Squared
from sparring.kit.config import check_range, config_record, make_config, toml_defaults
from sparring.kit.spec import knob
from tests.kit import toys


def test_toml_defaults_are_read_beside_the_env():
    assert toml_defaults(Squared) == {"size": 11}


def test_unknown_keys_name_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown config key\(s\) \['sise'\].*valid keys: size"):
        make_config(Squared, {"sise": 5})


def test_values_are_coerced_from_cli_strings():
    assert make_config(Squared, {"size": "7"}).size == 7
    with pytest.raises(ValueError, match=r"config key 'size' of env 'squared' \(--env.size\) must be int, got '7.5'"):
        make_config(Squared, {"size": "7.5"})
    with pytest.raises(ValueError, match="must be int"):
        make_config(Squared, {"size": 7.5})


def test_choices_are_validated_and_stored_as_indices():
    from sparring.kit.spec import choice

    @dataclasses.dataclass
    class Cfg:
        mode: str = choice("terminal", ("terminal", "shaped"), "reward mode")

    class WithChoice(toys.Walk):
        name = "toy_choice"
        Config = Cfg

    with pytest.raises(ValueError, match=r"valid values: \['terminal', 'shaped'\]"):
        make_config(WithChoice, {"mode": "dense"})
    rec = config_record(WithChoice, make_config(WithChoice, {"mode": "shaped"}))
    assert rec["mode"][0] == 1 and rec.dtype["mode"] == np.int64


def test_check_range_is_public_and_names_the_setting_and_what_is_valid():
    @dataclasses.dataclass
    class Cfg:
        rate: float = knob(0.5, "how often", 0.0, 1.0)
        steps: int = knob(1, "how many", 1)
        free: float = knob(0.0, "anything finite")

    rate, steps, free = dataclasses.fields(Cfg)
    check_range("rate", rate, 1.0)
    check_range("free", free, -1e300)
    cases = [
        (rate, 1.5, r"rate is 1.5; valid: a finite number in \[0, 1\] \(how often\)"),
        (steps, 0, r"steps is 0; valid: an integer >= 1 \(how many\)"),
        (free, float("nan"), r"free is nan; valid: a finite number \(anything finite\)"),
    ]
    for field, value, message in cases:
        with pytest.raises(ValueError, match=message):
            check_range(field.name, field, value)
