"""Train config: defaults, string overrides from the CLI, errors that name the key and what is valid."""

import pytest

from sparring.kit import registry
from sparring.train.config import TrainConfig, make_train_config


def test_every_field_has_a_doc():
    import dataclasses

    assert all(f.metadata.get("doc") for f in dataclasses.fields(TrainConfig))


def test_string_overrides_are_coerced():
    cfg = make_train_config(
        registry.get("squared"), {"lr": "3e-4", "num_envs": "64", "norm_adv": "false", "recurrence": "lstm"}
    )
    assert cfg.lr == 3e-4 and cfg.num_envs == 64 and cfg.norm_adv is False and cfg.recurrence == "lstm"


@pytest.mark.parametrize(
    "key, value, words",
    [
        ("lrr", "1", ["unknown", "lrr", "lr"]),
        ("num_envs", "1.5", ["num_envs", "int"]),
        ("recurrence", "gru", ["recurrence", "lstm", "mingru"]),
        ("anneal_lr", "maybe", ["anneal_lr", "true or false"]),
    ],
)
def test_bad_settings_name_the_key_and_the_valid_values(key, value, words):
    with pytest.raises(ValueError) as err:
        make_train_config(None, {key: value})
    assert all(w in str(err.value) for w in words), str(err.value)
