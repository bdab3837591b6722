"""`duel` as a whole: the doctor, the ladder, the slow paths and terminal play."""

import io

import numpy as np
import pytest
from ladders import DUEL_PAIRINGS, duel_match

import sparring
from sparring.cli import main
from sparring.envs.duel.env import Duel
from sparring.envs.duel.observe import OBS_SIZE
from sparring.envs.duel.play import parse, play
from sparring.envs.duel.world import MAGIC, MELEE, RANGED
from sparring.kit.check import check


def test_make_gives_seat_rows_and_bounded_obs():
    env = sparring.make("duel", num_envs=8, seed=1, opponent="robot")
    assert env.obs.shape == (16, OBS_SIZE) and env.mask.shape == (16, Duel.actions.total)
    for _ in range(50):
        env.step(env.scripted_actions("random"))
        assert np.isfinite(env.obs).all() and (np.abs(env.obs) <= 1).all()


def test_threats_apply_range_gear_and_prayer_from_each_side():
    env = sparring.make("duel", num_envs=1, seed=3, opponent="robot")
    rec = env.snapshot()
    rec["row"][0], rec["col"][0] = (2, 2), (2, 6)  # distance 4: ranged and magic reach, melee does not
    rec["gear"][0], rec["prayer"][0] = (MELEE, RANGED), (0, MAGIC + 1)
    env.restore([0], rec)
    start = OBS_SIZE - 6
    ranged_on_ranged = 0.60 * 26 / 4 / 7.5
    magic_on_ranged_prayed = 0.40 * 28 / 5 / 7.5 * 2 / 5
    ranged_on_melee, magic_on_melee = 0.40 * 26 / 4 / 7.5, 0.85 * 28 / 5 / 7.5
    seat0, seat1 = env.obs[0, start:], env.obs[1, start:]
    assert seat0 == pytest.approx([0, ranged_on_ranged, magic_on_ranged_prayed, 0, ranged_on_melee, magic_on_melee])
    assert seat1 == pytest.approx([*seat0[3:], *seat0[:3]])


def test_doctor_passes_without_warnings():
    report = check("duel", steps=300, audit_episodes=60)
    assert report.ok, report.text()
    assert not [f for f in report.findings if f.status == "warn"], report.text()


@pytest.mark.parametrize("high, foresight, low", DUEL_PAIRINGS[:4])
def test_each_tier_beats_the_one_below(high, foresight, low):
    result = duel_match(low, high, episodes=300, seed=11, foresight=foresight)
    floor = 0.99 if low == "random" and high == "robot" else 0.70
    assert result["high"] >= floor, result


def test_slow_paths_show_the_fight():
    env = sparring.make("duel", num_envs=1, seed=2, opponent="tribrid")
    for _ in range(12):
        env.step(env.scripted_actions("robot"))
    text = env.render_ansi(0)
    assert "A fighter 0" in text and "B fighter 1" in text and "hp [" in text and "gear" in text
    words = env.describe(0, 1)
    assert "The opponent is" in words and "prayer points" in words
    img = Duel.render_rgb(env.records[0], env.config)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert Duel.invariants(env.records[0], env.config) == []


def test_parse_rejects_unknown_keys():
    assert parse("2e x").tolist() == [0, 2, 2, 0, 1]
    with pytest.raises(ValueError, match="unknown key"):
        parse("2z")


def test_play_reads_one_tick_per_line_until_the_end():
    out = io.StringIO()
    reward = play(io.StringIO("?\nzz\n" + "3\n" * 400), out, seed=0, opponent="robot", foresight=0.0)
    text = out.getvalue()
    assert reward in (-1.0, 0.0, 1.0) and "unknown key" in text and "Keys" in text
    assert ("You win!" in text) or ("You lose." in text) or ("Draw." in text)


def test_cli_play_quits_on_end_of_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\nquit\n"))
    assert main(["play", "duel", "--env.opponent", "reactive"]) == 0
    assert "left the fight" in capsys.readouterr().out
    assert main(["play", "squared"]) == 2


def test_cli_play_puts_a_player_in_the_opponents_seat(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("3\n" * 400))
    assert main(["play", "duel", "--env.opponent", "learner", "--seat", "opponent=scripted:robot"]) == 0
    out = capsys.readouterr().out
    assert "duel against scripted:robot" in out and (("You win!" in out) or ("You lose." in out) or "Time" in out)
    assert main(["play", "duel", "--seat", "opponent=scripted:robot"]) == 2  # the env plays it: hand it out first
    assert "hand it out with --env.opponent learner" in capsys.readouterr().err
    assert main(["play", "duel", "--seat", "player=random"]) == 2
    assert "you play seat 'player'" in capsys.readouterr().err
