"""``sparring bench --compare``: setups parsed and validated, a large throughput gap found significant."""

import json

import pytest

from sparring.cli import main
from sparring.kit import registry
from sparring.sweep.compare import parse_setup


def test_a_batch_of_4096_beats_a_batch_of_8_significantly(capsys):
    assert (
        main(
            [
                "bench",
                "squared",
                "--compare",
                "num_envs=8",
                "num_envs=4096,size=11",
                "--repeats",
                "5",
                "--seconds",
                "0.05",
                "--json",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert len(result["rates_a"]) == len(result["rates_b"]) == 5
    # measured here: B/A about 5-10 (per-step overhead is paid per 8 envs instead of per 4096)
    assert result["ratio"] > 2 and result["p_value"] < 0.05 and result["verdict"].startswith("B is faster")
    assert result["ratio_ci95"][0] <= result["ratio"] <= result["ratio_ci95"][1]


def test_setups_are_validated_with_the_valid_keys_named(capsys):
    cls = registry.get("squared")
    setup = parse_setup("num_envs=64,threads=2,size=9", cls)
    assert (setup.num_envs, setup.threads, setup.config) == (64, 2, {"size": "9"})
    with pytest.raises(ValueError, match="num_envs, threads"):
        parse_setup("colour=red", cls)
    with pytest.raises(ValueError, match="vec"):
        parse_setup("vec=multiprocess", cls)  # an env key it is not
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_setup("num_envs", cls)
    assert main(["bench", "squared", "--compare", "num_envs=0", "num_envs=8"]) == 2
    assert "positive integer" in capsys.readouterr().err


def test_sweep_and_ablate_commands_refuse_bad_input_before_training(capsys, tmp_path):
    assert main(["ablate", "squared", "--knob", "train.lr", "--steps", "100"]) == 2
    assert "at least two values" in capsys.readouterr().err
    assert main(["sweep", "squared", "--sweeps", str(tmp_path)]) == 2
    assert "give each trial a budget" in capsys.readouterr().err
    assert main(["sweep", "squared", "--steps", "100", "--metric", "speed", "--sweeps", str(tmp_path)]) == 2
    assert "valid: win_rate" in capsys.readouterr().err
