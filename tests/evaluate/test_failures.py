"""Eval's failure analysis: phase history and low-watermarks, recorded eval episodes, worst replays, the chart."""

import json
import os

import numpy as np
import pytest

from sparring.cli import main
from sparring.evaluate.episodes import play_episodes
from sparring.players.network import NetworkPlayer
from sparring.evaluate.failures import PhaseTracker, format_failures, summarize_failures, watermark_spec
from sparring.evaluate.outputs import worst_episodes
from sparring.kit import BatchedEnv
from sparring.record import Recorder, Recording
from sparring.train.checkpoint import save_checkpoint
from sparring.train.config import make_train_config
from sparring.players.policy import Policy
from sparring.train.trainer import Trainer
from tests.evaluate import toys

TINY = {"num_envs": 4, "horizon": 8, "minibatch_size": 32, "hidden": 8, "threads": 1}


def scripted_pair():
    """Env 0 walks left off the cliff (a loss), env 1 right to the win: both in 4 ticks, 'edge' from tick 3."""
    env = BatchedEnv(toys.Cliff, num_envs=2, seed=0, autoreset=False)
    tracker = PhaseTracker(env)
    tracker.start([0, 1])
    for _ in range(4):
        env.step(np.array([[toys.LEFT], [toys.RIGHT]]))
        tracker.observe()
    tracker.finish([0, 1])
    return env, tracker


def test_tracker_follows_phases_and_low_watermarks():
    env, tracker = scripted_pair()
    assert env.done.all() and env.ended_return.tolist() == [-1.0, 1.0]
    # final phase edge (1), previous phase middle (0), edge began at tick 3, lowest pos 0 and 4
    assert tracker.table().tolist() == [[1, 0, 3, 0], [1, 0, 3, 4]]
    # seat 0's return, length, phase, the win metric, every seat's return, the evaluated seat
    episodes = np.array([[-1.0, 4, 1, 1, -1.0, 0], [1.0, 4, 1, 0, 1.0, 0]])
    failures = summarize_failures(toys.Cliff, episodes, tracker.table(), tracker.watermarks, window=20)
    assert failures["losses"] == 1 and failures["by_phase"] == {"middle": 0, "edge": 1}
    assert failures["by_transition"] == {"middle -> edge": {"losses": 1, "within": 1}}
    assert failures["watermarks"] == {"lowest_pos": {"win": 4.0, "loss": 0.0, "draw": None}}
    text = format_failures(failures)
    assert "middle -> edge" in text and "<=20 ticks after" in text
    lines = [line.split() for line in text.splitlines()]
    assert ["middle", "0"] not in lines and ["edge", "1"] in lines  # only the phases with losses
    assert ["...", "1", "phase", "without", "a", "loss"] in lines
    assert ["low-watermark", "(mean)", "win", "loss"] in lines and ["lowest_pos", "4", "0"] in lines  # no draws
    won = summarize_failures(toys.Cliff, episodes[1:], tracker.table()[1:], tracker.watermarks)
    assert format_failures(won).splitlines()[0] == "  losses: 0" and "last transition" not in format_failures(won)
    late = summarize_failures(toys.Cliff, episodes, tracker.table(), tracker.watermarks, window=0)
    assert late["by_transition"]["middle -> edge"]["within"] == 0  # the loss came 1 tick after edge began


def test_worst_episodes_lowest_return_then_shortest():
    returns, lengths = np.array([-1.0, 0.0, -1.0, -1.0, 1.0]), np.array([9, 2, 4, 4, 1])
    assert worst_episodes(returns, lengths, 4) == [2, 3, 0, 1]
    with pytest.raises(ValueError, match="worst must be >= 0, got -2"):
        worst_episodes(returns, lengths, -2)


def test_watermark_spec_errors():
    class NoField(toys.Cliff):
        watermarks = {"lowest": ("hp", 0)}

    class BadIndex(toys.Cliff):
        watermarks = {"lowest": ("pos", 0)}

    with pytest.raises(ValueError, match=r"names state field 'hp'; the state fields are \['pos'\]"):
        watermark_spec(NoField)
    with pytest.raises(ValueError, match=r"index 0 does not fit state field 'pos' of shape \(\)"):
        PhaseTracker(BatchedEnv(BadIndex, num_envs=1, autoreset=False))
    assert watermark_spec(toys.Cliff) == {"lowest_pos": ("pos", None)}


def test_recorded_eval_episodes_line_up_with_the_rows(tmp_path):
    env = BatchedEnv(toys.Cliff, num_envs=3, seed=7, autoreset=False)
    tracker, out = PhaseTracker(env), str(tmp_path / "eval.parquet")
    with Recorder(env, out, policy="untrained") as recorder:
        data = play_episodes(
            env,
            [(NetworkPlayer(Policy(1, env.heads.sizes, hidden=8), "net"), np.arange(env.rows))],
            14,
            tracker=tracker,
            recorder=recorder,
        )
    rec, table = Recording(out), tracker.table()
    assert rec.episode_ids() == list(range(14)) and len(table) == 14
    assert len(set(data[:, 1].tolist())) > 1  # episodes of different lengths finish out of env order
    for k in range(14):
        ep = rec.episode(k)
        assert ep.length == data[k, 1] and ep.rewards[:, 0].sum() == data[k, 0]
        assert ep.states["pos"].min() == table[k, 3] and ep.phases[-1] == table[k, 0]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run folder with an (untrained) checkpoint of the cliff walk, saved as the trainer saves it."""
    folder = str(tmp_path_factory.mktemp("run"))
    save_checkpoint(folder, Trainer("toy_cliff", make_train_config(None, TINY)))
    return folder


def test_cli_eval_records_writes_worst_replays_and_chart(tmp_path, capsys, run):
    out = str(tmp_path / "ev" / "cliff.parquet")
    assert main(["eval", "toy_cliff", "--checkpoint", run, "--episodes", "24", "--record", out, "--worst", "2"]) == 0
    text = capsys.readouterr().out
    assert "last transition" in text and "lowest_pos" in text and f"recording: {out}" in text
    chart = os.path.join(os.path.dirname(out), "cliff-failures.png")
    assert f"chart: {chart}" in text
    with open(chart, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    rec = Recording(out)
    assert len(rec.episode_ids()) == 24
    worst_first = sorted((rec.episode(k).rewards[:, 0].sum(), rec.episode(k).length, k) for k in range(24))
    pages = sorted(n for n in os.listdir(os.path.dirname(out)) if n.endswith(".html"))
    assert pages == [f"cliff-worst{r + 1}-episode{k}.html" for r, (_, _, k) in enumerate(worst_first[:2])]

    assert main(["eval", "toy_cliff", "--checkpoint", run, "--episodes", "10", "--worst", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["failures"]) == {"losses", "window", "by_phase", "by_transition", "watermarks"}
    assert os.path.dirname(report["chart"]) == run and os.path.dirname(report["worst"][0]) == run
    assert sum(report["failures"]["by_phase"].values()) == report["loss"]["count"]


def test_cli_eval_rejects_a_negative_worst(capsys, run):
    assert main(["eval", "toy_cliff", "--checkpoint", run, "--episodes", "4", "--worst", "-1"]) == 2
    assert "argument --worst: must be an integer in [0, 1e+09], got '-1'" in capsys.readouterr().err
