"""Players in named seats: ``--seat NAME=PLAYER`` for eval, record, fork and explore, outcomes per seat, conflicts
named."""

import json

import numpy as np
import pytest

from sparring.cli import main
from sparring.evaluate.play import evaluate_scripted
from sparring.kit import registry
from sparring.record import Recording
from tests.train import toys  # registers the toy envs; toy_match's seats are seat0 and seat1


def test_each_seat_gets_its_player_and_its_own_outcome():
    # seat0 always plays 0; seat1 (a learner seat with opponent none) always plays 0 too: seat0 matches, wins
    report = evaluate_scripted(
        "toy_match", "scripted:always_zero", episodes=40, seats={"seat1": "scripted:always_zero"}
    )
    assert report["seat"] == "seat0" and report["win"]["count"] == 40
    seat1 = report["seats"]["seat1"]
    assert seat1["loss"]["count"] == 40 and seat1["draw"]["count"] == 0  # zero-sum: a loss, not a draw
    assert seat1["player"] == "scripted:always_zero"
    random_seat1 = evaluate_scripted("toy_match", "scripted:always_zero", episodes=400, seats={"seat1": "random"})
    assert 0.4 < random_seat1["win"]["rate"] < 0.6 and random_seat1["seats"]["seat1"]["player"] == "random"


def test_a_knob_value_hands_the_seat_to_the_env():
    report = evaluate_scripted("toy_match", "random", episodes=200, seats={"seat1": "zeros"})
    assert report["seats"]["seat1"]["player"] == "env:zeros" and report["seats"]["seat0"]["player"] == "random"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seat", "chaser=random"], "no seat 'chaser'; valid: ['seat0', 'seat1']"),
        (["--seat", "seat1"], "expected NAME=PLAYER"),
        (["--seat", "seat1=random", "--env.opponent", "zeros"], "the env plays seat 'seat1' itself"),
        (["--opponent", "zeros", "--env.opponent", "none"], "conflicts with --env.opponent 'none'"),
        (["--seat", "seat1=zeros", "--opponent", "none"], "conflicts with --opponent 'none'"),
        (["--seat", "seat0=random", "--seat", "seat1=random"], "leave one of ['seat0', 'seat1']"),
    ],
)
def test_bad_seats_are_named(args, message, capsys):
    assert main(["eval", "toy_match", "--policy", "random", "--episodes", "4", *args]) == 2
    assert message in capsys.readouterr().err


def test_record_puts_the_right_player_in_each_seat(tmp_path, capsys):
    out = str(tmp_path / "m.parquet")
    assert (
        main(
            [
                "record",
                "toy_match",
                "--policy",
                "random",
                "--seat",
                "seat1=scripted:always_zero",
                "--episodes",
                "30",
                "--out",
                out,
            ]
        )
        == 0
    )
    rec = Recording(out)
    assert rec.meta.policy == "seat0=random; seat1=scripted:always_zero"
    capsys.readouterr()
    seat0, seat1 = ([rec.episode(k).actions[:, seat, 0] for k in range(30)] for seat in (0, 1))
    assert all((a == 0).all() for a in seat1) and any((a == 1).any() for a in seat0)  # each seat's own player
    assert (
        main(
            [
                "eval",
                "toy_match",
                "--policy",
                "random",
                "--seat",
                "seat1=scripted:always_zero",
                "--episodes",
                "20",
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["seats"]["seat1"]["player"] == "scripted:always_zero" and report["seat"] == "seat0"


def test_replay_shows_no_move_for_a_seat_the_env_plays(tmp_path, capsys):
    out = str(tmp_path / "z.parquet")
    assert (
        main(["record", "toy_match", "--policy", "random", "--opponent", "zeros", "--episodes", "2", "--out", out]) == 0
    )
    assert Recording(out).meta.policy == "seat0=random; seat1=env:zeros"
    capsys.readouterr()
    assert main(["replay", out, "--print"]) == 0
    text = capsys.readouterr().out
    assert "seat0: bit=" in text and "seat1 (played by the env, its move is not recorded)" in text
    assert "seat1: bit=" not in text


def test_fork_and_explore_take_seat_players(tmp_path, capsys):
    out, forked = str(tmp_path / "m.parquet"), str(tmp_path / "f.parquet")
    assert main(["record", "toy_match", "--policy", "random", "--episodes", "2", "--out", out]) == 0
    assert (
        main(
            [
                "fork",
                out,
                "--episode",
                "0",
                "--tick",
                "0",
                "--policy",
                "random",
                "--seat",
                "seat1=scripted:always_zero",
                "--out",
                forked,
            ]
        )
        == 0
    )
    rec = Recording(forked)
    assert rec.meta.policy == "seat0=random; seat1=scripted:always_zero" and (rec.episode(0).actions[:, 1] == 0).all()
    assert (
        main(
            [
                "fork",
                out,
                "--episode",
                "0",
                "--tick",
                "0",
                "--policy",
                "random",
                "--seat",
                "seat1=zeros",
                "--out",
                str(tmp_path / "g.parquet"),
            ]
        )
        == 2
    )
    assert "fork keeps the recording's env config" in capsys.readouterr().err


class CellMatch(toys.Match):
    """toy_match with one Go-Explore cell field (the cue), so it can be explored."""

    name = "toy_match_cells"
    cell_fields = ("cue",)

    @staticmethod
    def cell_keys(records):
        return records["cue"].astype(np.int64)


def test_explore_plays_the_seat_players_it_is_given():
    from sparring.explore.explore import Explorer

    registry.register("toy_match_cells", CellMatch)
    explorer = Explorer("toy_match_cells", num_envs=4, seats={"seat1": "scripted:always_zero"}).run(40)
    assert [player.name for player, _ in explorer.seated] == ["random", "scripted:always_zero"]
    assert (explorer.seated[1][1] % 2 == 1).all() and (explorer._actions[explorer.seated[1][1]] == 0).all()


def test_an_explicit_knob_makes_a_knob_named_seat_value_a_player():
    # duel's opponent knob has a value 'random' (the env plays the seat randomly); with the seat handed out by an
    # explicit --env.opponent learner, --seat opponent=random is the random player from outside instead
    report = evaluate_scripted(
        "duel", "random", episodes=8, env_overrides={"opponent": "learner"}, seats={"opponent": "random"}
    )
    assert report["seats"]["opponent"]["player"] == "random"
    inside = evaluate_scripted("duel", "random", episodes=8, seats={"opponent": "random"})
    assert inside["seats"]["opponent"]["player"] == "env:random"
    with pytest.raises(ValueError, match="--seat opponent=robot conflicts with --env.opponent 'learner'"):
        evaluate_scripted(
            "duel", "random", episodes=4, env_overrides={"opponent": "learner"}, seats={"opponent": "robot"}
        )
