"""`sparring list`, `check` and `bench`, and their errors."""

import json

from sparring.cli import main


def test_list_shows_squared(capsys):
    assert main(["list"]) == 0
    assert "squared: agents=1 seats=['player(outside)'] obs=121xuint8 heads=[move=5]" in capsys.readouterr().out


def test_check_passes_squared_with_overrides(capsys):
    assert main(["check", "squared", "--steps", "200", "--env.size", "7"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("OK: 0 failed")


def test_check_fails_a_broken_env_with_exit_code_1(capsys):
    import sparring
    from tests.kit import toys

    sparring.register("toy_lying_mask", toys.LiesInMask)
    assert main(["check", "toy_lying_mask", "--steps", "100", "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert any(f["check"] == "mask honesty" and f["status"] == "fail" for f in findings)


def test_bad_input_is_a_clear_error(capsys):
    assert main(["check", "nope"]) == 2
    assert "unknown env 'nope'; known envs:" in capsys.readouterr().err
    assert main(["check", "squared", "--env.sise", "3"]) == 2
    assert "valid keys: size" in capsys.readouterr().err


def test_bench_json(capsys):
    assert (
        main(["bench", "squared", "--sizes", "1,8", "--repeats", "1", "--seconds", "0.01", "--no-compile", "--json"])
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert [r["num_envs"] for r in result["throughput"]] == [1, 8]
    assert result["allocations"]["step_per_env"] == 0 and result["allocations"]["step_per_call"] > 0


def test_bench_threads_steps_with_that_many_threads(capsys):
    args = ["bench", "squared", "--sizes", "64", "--repeats", "1", "--seconds", "0.01", "--no-compile"]
    assert main([*args, "--threads", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["num_threads"] == 2 and [r["num_threads"] for r in result["throughput"]] == [2]
    assert main([*args, "--threads", "2"]) == 0
    assert "sparring bench squared (2 threads, random actions)" in capsys.readouterr().out


def test_bench_threads_bad_input_is_a_clear_error(capsys):
    assert main(["bench", "squared", "--threads", "0"]) == 2
    assert "--threads: must be an integer in [1, 1024], got '0'" in capsys.readouterr().err
    assert main(["bench", "squared", "--threads", "2", "--compare", "num_envs=8", "num_envs=16"]) == 2
    assert "--threads applies to the plain bench, not to --compare" in capsys.readouterr().err
