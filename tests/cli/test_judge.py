"""``sparring judge``: tables on stdout, the same report as JSON in --out, bad brains as one line."""

import json

import pytest

from sparring.cli import main


def test_judge_prints_the_tables_and_writes_the_report(tmp_path, capsys):
    out = tmp_path / "results" / "duel.json"
    argv = ["judge", "duel", "--brain", "scripted:robot", "--brain", "random", "--episodes", "8", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "cross-play: win rate of the row brain" in text and "mu-3sigma" in text and f"report: {out}" in text
    report = json.loads(out.read_text())
    assert report["kind"] == "round_robin" and report["pairs"][0]["games"] == 8
    assert [row["brain"] for row in report["ratings"]] == ["scripted:robot", "random"]
    assert [p.name for p in out.parent.iterdir()] == ["duel.json"]  # no temporary file left beside it


def test_judge_plays_a_local_model_with_the_model_options(tmp_path, capsys, monkeypatch):
    import torch

    import sparring.evaluate.matchup as matchup
    from sparring.lm.model import ModelSize, build_small_model

    size = ModelSize(hidden=32, layers=1, heads=2, intermediate=64, context=1024)
    folder = build_small_model(["attack", "wait", "eat", "pray", "step north"] * 10, str(tmp_path / "m"), size, 300)
    made, make_brain = [], matchup.make_brain

    def spy(spec, env, seed, greedy, **options):
        made.append((spec, options))
        return make_brain(spec, env, seed, greedy, **options)

    monkeypatch.setattr(matchup, "make_brain", spy)
    threads = torch.get_num_threads()
    argv = ["judge", "duel", "--brain", f"local:{folder}", "--brain", "scripted:robot", "--episodes", "2"]
    options = ["--temperature", "0.5", "--prompt", "compact", "--dtype", "bfloat16", "--threads", "1"]
    try:
        assert main([*argv, *options, "--num-envs", "2", "--json", "--env.max_ticks", "20"]) == 0
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
    assert made[0] == (f"local:{folder}", {"temperature": 0.5, "prompt": "compact", "dtype": "bfloat16"})
    report = json.loads(capsys.readouterr().out)
    assert report["pairs"][0]["games"] == 2
    assert sorted(row["brain"] for row in report["ratings"]) == sorted([f"local:{folder}", "scripted:robot"])
    model = report["model"]  # the model's turns and decisions a second, its loading left out
    assert model["turns"] >= model["decisions"] > 0 and model["decisions_per_s"] > 0


def test_json_prints_the_report_instead(capsys):
    argv = ["judge", "town", "--brain", "random", "--background", "scripted:planner", "--episodes", "8"]
    assert main([*argv, "--num-envs", "8", "--focal", "2", "--json", "--env.days", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["focal_characters"] == 2 and report["pairings"][0]["focal"]["goal_rate"]["trials"] == 16


@pytest.mark.parametrize(
    "argv, names",
    [
        (["duel", "--brain", "robot", "--brain", "random"], "valid: random, checkpoint:PATH, scripted:random"),
        (["duel", "--brain", "scripted:robot:2", "--brain", "random"], "must be a probability in [0, 1]"),
        (["town", "--brain", "random", "--focal", "9"], "--focal must be in [1, 7]"),
        (["town", "--brain", "random", "--episodes", "0"], "--episodes"),
        (["nowhere", "--brain", "random"], "unknown env 'nowhere'"),
    ],
)
def test_a_bad_brain_is_one_line_naming_what_is_valid(tmp_path, capsys, argv, names):
    out = tmp_path / "r.json"
    assert main(["judge", *argv, "--out", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and names in lines[0] and not out.exists(), lines


def test_emergence_prints_its_blocks_and_writes_its_plots(tmp_path, capsys):
    folder = tmp_path / "run" / "emergence"
    argv = ["judge", "town", "--brain", "scripted:planner:0.3", "--background", "scripted:planner", "--episodes", "8"]
    assert main([*argv, "--num-envs", "8", "--env.days", "1", "--emergence", str(folder)]) == 0
    text = capsys.readouterr().out
    for block in ("specialization: work entropy", "trade network:", "prices: mean price", "goal rate per character"):
        assert block in text
    pngs = sorted(p.name for p in folder.iterdir())
    assert pngs == ["goal_rates.png", "prices.png", "specialization.png", "trade_network.png", "work.png"]
    assert all((folder / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


@pytest.mark.parametrize(
    "argv, names",
    [
        (
            ["duel", "--brain", "random", "--emergence", "{tmp}/e"],
            "--emergence needs an env of more than two seats that declares an emergence analysis",
        ),
        (["town", "--brain", "random", "--emergence", "{tmp}/r.json"], "is a file; give a folder"),
    ],
)
def test_emergence_needs_town_and_a_folder(tmp_path, capsys, argv, names):
    (tmp_path / "r.json").write_text("{}")
    assert main(["judge", *(a.replace("{tmp}", str(tmp_path)) for a in argv)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and names in lines[0] and not (tmp_path / "e").exists(), lines
