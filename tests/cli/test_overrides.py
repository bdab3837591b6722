"""`--GROUP.KEY VALUE` overrides: pulled out before argparse, split into groups, checked against a command's."""

import pytest

from sparring.cli.overrides import env_overrides, override_groups, pull_overrides, split_overrides


def test_overrides_are_pulled_out_with_their_values():
    argv = ["train", "--resume", "runs/a", "--train.checkpoint_s", "5", "--env.size=7", "--steps", "10"]
    assert pull_overrides(argv) == (
        ["train", "--resume", "runs/a", "--steps", "10"],
        ["--train.checkpoint_s", "5", "--env.size=7"],
    )


def test_values_with_dots_and_options_with_dotted_values_stay_put():
    argv = ["ablate", "squared", "--knob", "train.lr=3e-4,1e-3", "--knob=env.size=9", "--env.size", "9.5"]
    assert pull_overrides(argv) == (
        ["ablate", "squared", "--knob", "train.lr=3e-4,1e-3", "--knob=env.size=9"],
        ["--env.size", "9.5"],
    )


def test_groups_and_their_errors():
    assert split_overrides(["--env.size", "15", "--train.lr=3e-4"]) == {"env": {"size": "15"}, "train": {"lr": "3e-4"}}
    with pytest.raises(ValueError, match="--env.size needs a value"):
        split_overrides(["--env.size"])
    with pytest.raises(ValueError, match="unexpected argument 'size'; overrides look like --env.KEY VALUE"):
        split_overrides(["size"])
    with pytest.raises(
        ValueError,
        match=r"unknown override group\(s\) \['tain'\]; this command takes "
        "--env.KEY VALUE, --train.KEY VALUE",
    ):
        override_groups(["--tain.lr", "1"], {"env", "train"})
    assert env_overrides(["--env.size", "9"]) == {"size": "9"}
    with pytest.raises(ValueError, match="this command takes --env.KEY VALUE"):
        env_overrides(["--train.lr", "1"])
