"""`sparring serve` and `sparring build-lm`: arguments and errors (the server itself: test_server.py)."""

from sparring.cli import main


def test_serve_command_refuses_a_missing_folder_and_bad_port(tmp_path, capsys):
    assert main(["serve", "--model", str(tmp_path)]) == 2
    assert "not a model folder" in capsys.readouterr().err
    assert main(["serve", "--model", str(tmp_path), "--port", "70000"]) == 2
    assert "--port must be in [0, 65535]" in capsys.readouterr().err
    assert main(["serve", "--model", str(tmp_path), "--max-batch", "0"]) == 2
    assert "max_batch must be >= 1" in capsys.readouterr().err


def test_build_lm_command(tmp_path, capsys):
    text = tmp_path / "lines.txt"
    text.write_text("\n".join(["go home", "eat 1 bread"] * 20), encoding="utf-8")
    out = tmp_path / "m"
    args = ["build-lm", "--text", str(text), "--out", str(out), "--vocab", "300", "--hidden", "16", "--layers", "1",
            "--heads", "2", "--intermediate", "32", "--context", "64"]
    assert main(args) == 0 and (out / "config.json").exists()
    assert main(args) == 2 and "exists" in capsys.readouterr().err
    assert main(["build-lm", "--text", str(tmp_path / "none.txt"), "--out", str(out)]) == 2
    assert "cannot read --text" in capsys.readouterr().err
