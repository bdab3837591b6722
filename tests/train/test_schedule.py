"""Env knobs annealed during training: parsing, the linear path to the configured value, the trainer's wiring."""

import pytest

import sparring
from sparring.train.config import make_train_config
from sparring.train.schedule import EnvAnneal, parse_anneal
from sparring.train.trainer import Trainer


def test_knobs_move_linearly_to_their_configured_value():
    env = sparring.make("duel", num_envs=2, seed=0, reward_damage=0.0, foresight=0.5)
    anneal = EnvAnneal(env, parse_anneal("reward_damage=1@0.5, foresight=0"))
    assert anneal.apply(0.0) == {"env_knob/reward_damage": 1.0, "env_knob/foresight": 0.0}
    assert anneal.apply(0.25) == pytest.approx({"env_knob/reward_damage": 0.5, "env_knob/foresight": 0.125})
    assert env.cfg["reward_damage"][0] == pytest.approx(0.5) and env.cfg["foresight"][0] == pytest.approx(0.125)
    assert anneal.apply(0.75) == pytest.approx({"env_knob/reward_damage": 0.0, "env_knob/foresight": 0.375})
    assert anneal.apply(1.0)["env_knob/foresight"] == pytest.approx(0.5)


def test_bad_entries_say_what_is_valid():
    with pytest.raises(ValueError, match="KNOB=START"):
        parse_anneal("reward_damage")
    with pytest.raises(ValueError, match="KNOB=START"):
        parse_anneal("reward_damage=high")
    with pytest.raises(ValueError, match="UNTIL must be in"):
        parse_anneal("foresight=0@0")
    env = sparring.make("duel", num_envs=1, seed=0)
    with pytest.raises(ValueError, match="valid: .*foresight"):
        EnvAnneal(env, parse_anneal("foresite=0"))
    with pytest.raises(ValueError, match="not a float knob"):
        EnvAnneal(env, parse_anneal("max_ticks=10"))


def test_trainer_sets_the_knobs_before_each_rollout():
    cfg = make_train_config(
        None,
        {
            "num_envs": 4,
            "horizon": 4,
            "minibatch_size": 16,
            "hidden": 16,
            "steps": 32,
            "eval_episodes": 0,
            "env_anneal": "reward_damage=1",
        },
    )
    trainer = Trainer("duel", cfg, {"reward_damage": 0.0})
    first = trainer.iterate()
    second = trainer.iterate()
    assert first["env_knob/reward_damage"] == 1.0 and second["env_knob/reward_damage"] == pytest.approx(0.5)
