"""Issue 39's examples, one test each: bad input refused with one line and exit code 2 (or the documented
behaviour), data never overwritten without ``--force``, network waits that end, files that never end refused."""

import json
import os
import shutil
import socket
import time

import pytest

from sparring.cli import main
from tests.cli.damage import STEP, edit_json, tiny_run
from tests.record.conftest import record


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A run of squared at size 5 (one checkpoint, 64 of 128 steps) with its config.json, and a recording."""
    root = tmp_path_factory.mktemp("good")
    tiny_run(root / "run")
    (root / "run" / "config.json").write_text(json.dumps({"env": "squared", "env_config": {"size": 5}}))
    record(root / "rec.parquet", "squared", 1, num_envs=1, config={"size": 5})
    return root


@pytest.fixture
def work(good, tmp_path):
    shutil.copytree(good, tmp_path / "w")
    return tmp_path / "w"


def one_line(capsys, argv, *names, code=2) -> str:
    """``main(argv)`` exits ``code`` with one line on stderr naming each of ``names``; returns the line."""
    got = main([str(a) for a in argv])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert got == code and len(lines) == 1 and "Traceback" not in err, (argv, got, err)
    assert all(name in lines[0] for name in names), (names, lines[0])
    return lines[0]


def test_ablate_refuses_a_negative_first_seed(capsys):
    one_line(capsys, ["ablate", "squared", "--knob", "train.lr=1e-3,3e-4", "--steps", "64", "--first-seed", "-5"],
             "--first-seed", "'-5'")  # fmt: skip


@pytest.mark.parametrize(
    "label, edit, names",
    [
        ("nan-scale", lambda m: {**m, "policy": {**m["policy"], "scale": float("nan")}}, "'scale'"),
        ("negative-step", lambda m: {**m, "step": -5}, "'step' is -5"),
        ("huge-step", lambda m: {**m, "step": 2**80}, "'step' is 1208925819614629174706176"),
        ("zero-head", lambda m: {**m, "policy": {**m["policy"], "head_sizes": [0]}}, "'head_sizes'"),
        ("huge-obs", lambda m: {**m, "policy": {**m["policy"], "obs_size": 2**40}}, "'obs_size'"),
    ],
)
def test_checkpoint_meta_out_of_range_is_refused_by_every_reader(work, capsys, label, edit, names):
    """A NaN scale, a step of -5 or 2**80 in meta.json: eval, record and resume name meta.json and the key."""
    meta = work / "run" / STEP / "meta.json"
    text = json.dumps(edit(json.loads(meta.read_text())))  # NaN as Python's json writes it
    meta.write_text(text)
    run = work / "run"
    for argv in (
        ["eval", "squared", "--checkpoint", run, "--episodes", "2"],
        ["record", "squared", "--checkpoint", run, "--episodes", "1", "--out", work / "out" / "r.parquet"],
        ["train", "--resume", run],
    ):
        one_line(capsys, argv, "meta.json", names)
    assert not (work / "out").exists()


@pytest.mark.parametrize(
    "config, names",
    [({"env": "duel"}, "names env 'duel'"), ([1, 2], "is a JSON list"), ("{not json", "not a readable run config")],
)
def test_resume_refuses_a_run_config_of_another_env_or_a_list(work, capsys, config, names):
    edit_json("config.json", lambda c: config if isinstance(config, str) else config)(str(work / "run"))
    one_line(capsys, ["train", "--resume", work / "run"], "config.json", names)


def test_resume_refuses_a_changed_env_key_and_accepts_a_repeated_one(work, capsys):
    """``train --resume RUN --env.size 7`` on a run trained at size 5 names the key (it changes the observation
    layout); ``--env.size 5`` repeats the run's value and resumes."""
    line = one_line(capsys, ["train", "--resume", work / "run", "--env.size", "7"], "--env.size", "size=5")
    assert "observation layout" in line
    one_line(capsys, ["train", "--resume", work / "run", "--env.bogus", "1"], "bogus")
    assert main(["train", "--resume", str(work / "run"), "--env.size", "5", "--train.eval_episodes", "0"]) == 0


def test_record_refuses_to_overwrite_without_force(work, capsys):
    out = work / "rec.parquet"
    before = out.read_bytes()
    base = ["record", "squared", "--policy", "random", "--episodes", "1", "--env.size", "5", "--out", out]
    one_line(capsys, base, "--out", "exists", "--force")
    assert out.read_bytes() == before
    assert main([str(a) for a in [*base, "--force"]]) == 0 and out.read_bytes() != before


def test_fork_never_writes_over_its_own_input(work, capsys):
    rec = work / "rec.parquet"
    before = rec.read_bytes()
    base = ["fork", rec, "--episode", "0", "--tick", "0", "--policy", "random", "--out", rec]
    one_line(capsys, base, "--out", "exists")
    one_line(capsys, [*base, "--force"], "--out", "is the recording being forked")
    assert rec.read_bytes() == before
    other = work / "other.parquet"
    other.write_bytes(b"old")
    one_line(capsys, [*base[:-1], other], "--out", "exists")
    assert main([str(a) for a in [*base[:-1], other, "--force"]]) == 0 and other.read_bytes() != b"old"


def test_replay_refuses_to_overwrite_its_outputs_without_force(work, capsys):
    page = work / "page.html"
    page.write_text("mine")
    one_line(capsys, ["replay", work / "rec.parquet", "--html", page], "--html", "exists")
    assert page.read_text() == "mine"


@pytest.mark.parametrize("name", ["../x", "a/b", "..", "/abs", ""])
def test_sweep_name_stays_inside_the_sweeps_folder(tmp_path, capsys, name):
    one_line(capsys, ["sweep", "squared", "--steps", "64", "--sweeps", tmp_path / "s", "--name", name], "--name")
    assert not (tmp_path / "s").exists() and not (tmp_path / "x").exists()


def test_new_refuses_a_built_in_env_name(tmp_path, capsys):
    one_line(capsys, ["new", "squared", "--dir", tmp_path], "'squared' is already registered")
    assert os.listdir(tmp_path) == []


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_sweep_with_no_ray_cluster_at_the_address_fails_within_its_deadline(tmp_path, capsys):
    start = time.monotonic()
    address = f"127.0.0.1:{_closed_port()}"
    argv = ["sweep", "squared", "--steps", "64", "--sweeps", tmp_path, "--backend", "ray", "--ray-address", address]
    one_line(capsys, argv, "Ray cluster", address, "deadline 10 s")
    assert time.monotonic() - start < 10
    one_line(capsys, ["sweep", "squared", "--steps", "64", "--sweeps", tmp_path, "--ray-address", address],
             "--backend ray")  # fmt: skip
    one_line(capsys, ["train", "squared", "--steps", "64", "--runs", tmp_path, "--ray-address", address], address)


def test_a_ray_address_that_drops_connections_fails_within_the_stated_time():
    from sparring.sweep.ray_tune import check_ray_address

    # a listener on loopback whose backlog is full: the kernel drops further connection attempts unanswered
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        pending = [socket.socket() for _ in range(4)]
        for sock in pending:
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
        start = time.monotonic()
        try:
            with pytest.raises(ValueError, match=rf"answers at 127.0.0.1:{port} \(timed out after 0.5 s"):
                check_ray_address(f"127.0.0.1:{port}", seconds=0.5)
        finally:
            for sock in pending:
                sock.close()
    assert time.monotonic() - start < 3


@pytest.mark.parametrize("name", ["policy.safetensors", "meta.json", "records.npy", "optimizer.pt"])
def test_a_checkpoint_file_linked_to_an_endless_file_is_refused_at_once(work, capsys, name):
    """A checkpoint whose policy.safetensors is a link to /dev/zero hung eval."""
    path = work / "run" / STEP / name
    os.remove(path)
    os.symlink("/dev/zero", path)
    start = time.monotonic()
    readers = [["train", "--resume", work / "run"]]
    if name in ("policy.safetensors", "meta.json"):
        readers += [
            ["eval", "squared", "--checkpoint", work / "run", "--episodes", "2"],
            ["record", "squared", "--checkpoint", work / "run", "--out", work / "o.parquet"],
        ]
    for argv in readers:  # (a meta.json that is no file: `latest` names a step-N folder without one)
        one_line(capsys, argv, name, *(["not a regular file"] if name != "meta.json" else []))
    assert time.monotonic() - start < 60


def test_files_read_by_flags_are_refused_when_devices_pipes_or_folders(work, capsys):
    os.mkfifo(work / "pipe")
    for bad in ("/dev/zero", work / "pipe", work):
        one_line(capsys, ["replay", bad, "--print"], "argument file")
        one_line(capsys, ["sweep", "squared", "--space", bad, "--steps", "64"], "--space")
        one_line(capsys, ["explore", "serpent", "--resume", bad if bad != work else "/dev/zero"], "--resume")


@pytest.mark.parametrize(
    "flag, value", [("--temperature", "nan"), ("--lr", "inf"), ("--minutes", "nan"), ("--shaping", "nan")]
)
def test_grpo_non_finite_numbers_are_refused(tmp_path, capsys, flag, value):
    """``grpo --lr inf`` was accepted and reported success; the parser refuses any non-finite number now (the
    ranges of grpo's other knobs, --iterations -1 and the like, come with issue 34's LM work)."""
    one_line(capsys, ["grpo", "town", "--model", tmp_path, "--out", tmp_path / "g", flag, value], flag, repr(value))
