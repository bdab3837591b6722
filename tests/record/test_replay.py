"""Terminal replay, GIF/MP4, the JSONL export, forks, and the record/replay/fork commands."""

import io
import json
import os
import pty
import select
import subprocess
import sys
import time

import imageio.v3 as iio
import numpy as np
import pyarrow.compute as pc
import pytest
from PIL import Image

from sparring.cli import main
from sparring.record import Recording, export_jsonl, fork, load, print_episode, write_gif, write_mp4
from tests.record.conftest import record


def test_print_episode_shows_every_tick_with_moves(squared_file):
    rec = Recording(squared_file)
    ep = rec.episode(1)
    out = io.StringIO()
    print_episode(rec, 1, out)
    text = out.getvalue()
    assert text.count("squared episode 1  tick") == ep.length + 1
    assert f"player: move={ep.actions[0, 0, 0]}  reward" in text and "episode over" in text


def test_interactive_replay_steps_and_quits_on_keys(squared_file):
    main_fd, child_fd = pty.openpty()
    code = (
        "import sys; from tests.record import toys; from sparring.record import Recording, replay_terminal; "
        "replay_terminal(Recording(sys.argv[1]), 0, fps=0.5)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, squared_file],
        stdin=child_fd,
        stdout=child_fd,
        stderr=child_fd,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
    )
    os.close(child_fd)
    seen = b""

    def read_until(marker: bytes, timeout: float = 30.0) -> None:
        nonlocal seen
        end = time.time() + timeout
        while marker not in seen and time.time() < end:
            if select.select([main_fd], [], [], 0.1)[0]:
                seen += os.read(main_fd, 65536)
        assert marker in seen, seen[-500:]

    try:
        read_until(b"tick 0 (0/")
        os.write(main_fd, b" ")  # pause
        read_until(b"paused")
        os.write(main_fd, b"G")  # jump to the end
        read_until(b"episode over")
        os.write(main_fd, b"q")
        assert proc.wait(15) == 0
    finally:
        proc.kill()
        os.close(main_fd)


def test_gif_and_mp4_have_one_frame_per_state(tmp_path, squared_file):
    rec = Recording(squared_file)
    ep = rec.episode(0)
    gif = write_gif(rec, 0, str(tmp_path / "e.gif"), fps=5)
    with Image.open(gif) as img:
        assert img.size == (56, 56)  # 7 tiles of 8 pixels
        durations = []  # Pillow merges identical consecutive frames and adds up their durations
        for k in range(img.n_frames):
            img.seek(k)
            durations.append(img.info["duration"])
    assert sum(durations) == 200 * (ep.length + 1)
    mp4 = write_mp4(rec, 0, str(tmp_path / "e.mp4"), fps=5)
    frames = list(iio.imiter(mp4))
    assert len(frames) == ep.length + 1 and frames[0].shape == (64, 64, 3)  # padded to 16-pixel blocks
    with pytest.raises(ValueError, match=r"env 'toy_walk' has no render_rgb"):
        write_gif(Recording(record(tmp_path / "w.parquet", "toy_walk", 1)), 0, str(tmp_path / "w.gif"))


def test_jsonl_export_has_one_turn_per_learner_move(tmp_path, squared_file):
    n = export_jsonl(squared_file, str(tmp_path / "turns.jsonl"))
    lines = [json.loads(line) for line in open(tmp_path / "turns.jsonl", encoding="utf-8")]
    table = load(squared_file)
    assert n == len(lines) == pc.sum(pc.invert(table["final"])).as_py()
    assert set(lines[0]) == {"episode", "tick", "agent", "observation", "action", "reward"}
    assert lines[0]["observation"].startswith("You are at row 3, column 3") and lines[0]["action"].startswith("move=")
    assert sum(line["reward"] for line in lines) == pytest.approx(
        sum(Recording(squared_file).episode(k).rewards.sum() for k in range(8))
    )
    pair = record(tmp_path / "p.parquet", "toy_text_walk", 2)
    assert export_jsonl(pair, str(tmp_path / "p.jsonl")) > 0
    with pytest.raises(ValueError, match=r"recorded without text columns; record it again with text=True"):
        export_jsonl(record(tmp_path / "w.parquet", "toy_walk", 1), str(tmp_path / "w.jsonl"))


def test_fork_replays_the_same_policy_exactly_and_reseeding_changes_the_dice(tmp_path):
    src = record(tmp_path / "g.parquet", "squared", 2, policy="scripted:greedy", num_envs=1, seed=3)
    original = Recording(src).episode(1)
    t = original.length // 2
    same = str(tmp_path / "same.parquet")
    assert fork(src, 1, int(original.ticks[t]), "scripted:greedy", same) == 1
    forked = Recording(same)
    assert forked.meta.forked_from == {"file": os.path.abspath(src), "episode": 1, "tick": int(original.ticks[t])}
    again = forked.episode(0)
    assert again.ticks[0] == original.ticks[t] and again.states.tobytes() == original.states[t:].tobytes()
    assert np.array_equal(again.actions, original.actions[t:])
    walks = str(tmp_path / "walks.parquet")
    assert fork(src, 1, 0, "random", walks, episodes=3, seed=1, reseed=7) == 3
    starts = [Recording(walks).episode(k).states[0] for k in range(3)]
    assert len({int(s["rng"]) for s in starts}) == 3 and {int(s["tick"]) for s in starts} == {0}
    with pytest.raises(ValueError, match=r"can be forked at ticks 0\.\."):
        fork(src, 1, original.length, "random", str(tmp_path / "late.parquet"))


def test_record_replay_fork_commands(tmp_path, capsys):
    out = str(tmp_path / "c.parquet")
    assert (
        main(["record", "squared", "--policy", "scripted:greedy", "--episodes", "3", "--out", out, "--env.size", "5"])
        == 0
    )
    assert "recorded 3 episodes of squared (player=scripted:greedy)" in capsys.readouterr().out
    assert Recording(out).config.size == 5
    html, gif = str(tmp_path / "c.html"), str(tmp_path / "c.gif")
    assert main(["replay", out, "--episode", "2", "--html", html, "--gif", gif]) == 0
    assert os.path.getsize(html) > 1000 and os.path.getsize(gif) > 100
    assert main(["replay", out, "--episode", "1", "--print"]) == 0
    assert "squared episode 1  tick 0" in capsys.readouterr().out
    forked = str(tmp_path / "f.parquet")
    assert (
        main(["fork", out, "--episode", "0", "--tick", "1", "--policy", "random", "--episodes", "2", "--out", forked])
        == 0
    )
    assert "2 continuation(s) written" in capsys.readouterr().out
    assert main(["record", "squared", "--policy", "nope", "--out", str(tmp_path / "x.parquet")]) == 2
    assert "unknown player 'nope'; valid: random, checkpoint:PATH, scripted:greedy" in capsys.readouterr().err
    assert main(["record", "squared", "--out", str(tmp_path / "x.parquet")]) == 2
    assert "give exactly one of --policy" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.parquet")]) == 2
    assert (
        "'"
        + str(tmp_path / "missing.parquet")
        + "' cannot be read (No such file or directory); give an existing recording"
        in capsys.readouterr().err
    )
