"""URL and address flags given bracket and port typos (tests/kit/test_net.py's corpus): exit code 2 and one line
that names the value, before anything is played, trained or connected to."""

import pytest

from sparring.cli import main
from tests.kit.test_net import url_typos

BRAIN_COMMANDS = {
    "play": ["play", "town", "--episodes", "1", "--env.days", "1", "--brain"],
    "judge": ["judge", "town", "--episodes", "1", "--env.days", "1", "--brain", "scripted", "--brain"],
}
ADDRESS_TYPOS = ["[::1:6379", "[::1]x", "127.0.0.1:x", "127.0.0.1:99999", "127.0.0.1:0"]


def _one_line(capsys, argv, value):
    code = main(argv)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and value in lines[0] and "Traceback" not in err, (argv, code, err)


@pytest.mark.parametrize("command", BRAIN_COMMANDS)
def test_an_openai_brain_url_typo_is_one_line(capsys, command):
    for url, _ in url_typos():
        if url.startswith(("http://", "https://")):  # a spec without a URL is another error (tests/lm/test_specs)
            _one_line(capsys, [*BRAIN_COMMANDS[command], f"openai:{url}:model"], url)


@pytest.mark.parametrize("command", BRAIN_COMMANDS)
def test_an_openai_brain_without_a_model_after_the_port_is_one_line(capsys, command):
    _one_line(capsys, [*BRAIN_COMMANDS[command], "openai:http://127.0.0.1:8000/v1"], "names no model")


@pytest.mark.parametrize("address", ADDRESS_TYPOS)
def test_a_ray_address_typo_is_one_line_naming_the_flag(capsys, tmp_path, address):
    for argv in (
        ["train", "squared", "--steps", "64", "--runs", str(tmp_path), "--ray-address", address],
        ["sweep", "squared", "--steps", "64", "--sweeps", str(tmp_path), "--backend", "ray", "--ray-address", address],
    ):
        _one_line(capsys, argv, address)
        assert not list(tmp_path.iterdir())
