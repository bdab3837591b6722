"""Damaged and crafted checkpoints, recordings and archives through every command that reads them: never a
traceback; exit code 2 and one line on stderr that names the file; nothing written.

The corpus (tests/cli/damage.py) cuts, garbles and rewrites each file of a good tiny checkpoint
(squared, size 5), recording and serpent archive. Commands run in-process through ``main``.
"""

import json
import os
import shutil
import sys

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers.utils import logging as hf_logging

from sparring.cli import main
from sparring.explore.explore import Explorer
from tests.cli.damage import (
    BYTES,
    STEP,
    STRUCTURAL,
    change,
    column,
    drop_key,
    edit_json,
    meta_value,
    remove,
    resealed,
    rewrite_archive,
    rewrite_bytes,
    rewrite_recording,
    set_key,
    tiny_run,
    unknown_phase,
    without_checksums,
)
from tests.record.conftest import record


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A folder with a good run (one checkpoint, 64 steps of 128), recording and archive."""
    root = tmp_path_factory.mktemp("good")
    tiny_run(root / "run")
    (root / "run" / "config.json").write_text("{}")
    (root / "rec").mkdir()
    record(root / "rec" / "rec.parquet", "squared", 2, num_envs=2, config={"size": 5})
    Explorer("serpent", num_envs=2, seed=0, segment=10).run(60).archive.save(str(root / "arch"), {"steps": 60})
    return root


@pytest.fixture
def work(good, tmp_path):
    """A fresh copy of the good files."""
    shutil.copytree(good, tmp_path / "w")
    return tmp_path / "w"


def commands(work, which):
    """The command lines named in ``which`` on the files in ``work`` (outputs go to ``work/out``)."""
    run, rec, arch, out = str(work / "run"), str(work / "rec" / "rec.parquet"), str(work / "arch"), work / "out"
    every = {
        "eval": ["eval", "squared", "--checkpoint", run, "--episodes", "2"],
        "record": ["record", "squared", "--checkpoint", run, "--episodes", "1", "--out", str(out / "r.parquet")],
        "fork-checkpoint": [
            "fork",
            str(work / "good.parquet"),
            "--episode",
            "0",
            "--tick",
            "0",
            "--checkpoint",
            run,
            "--out",
            str(out / "f.parquet"),
        ],
        "resume": ["train", "--resume", run],
        "replay": ["replay", rec, "--print"],
        "fork": ["fork", rec, "--episode", "0", "--tick", "0", "--policy", "random", "--out", str(out / "f.parquet")],
        "explore": ["explore", "serpent", "--resume", arch, "--steps", "4", "--num-envs", "2", "--json"],
        "archive-start": [
            "train",
            "serpent",
            "--steps",
            "64",
            "--runs",
            str(out / "runs"),
            "--train.num_envs",
            "2",
            "--train.horizon",
            "8",
            "--train.hidden",
            "8",
            "--train.threads",
            "1",
            "--train.archive_fraction",
            "0.5",
            "--train.archive_start",
            arch,
        ],
    }
    return {name: every[name] for name in which}


def fails_cleanly(capsys, argv, names: str, out) -> None:
    """``main(argv)`` exits 2 with one line on stderr that names ``names``, and writes nothing into ``out``."""
    code = main(argv)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and names in lines[0], (argv, code, err)
    assert not os.path.exists(out) or not os.listdir(out), os.listdir(out)


CHECKPOINT_READERS = ("eval", "record", "fork-checkpoint", "resume")
BINARY = ("policy.safetensors", "state.safetensors", "records.npy", "optimizer.pt")
READERS = {
    "policy.safetensors": CHECKPOINT_READERS,
    "state.safetensors": ("resume",),
    "records.npy": ("resume",),
    "optimizer.pt": ("resume",),
}


def _nan_weights(folder):
    path = os.path.join(folder, "policy.safetensors")
    weights = load_file(path)
    next(iter(weights.values())).fill_(float("nan"))
    save_file(weights, path)


def _tensors(change_fn):
    def damage(folder):
        path = os.path.join(folder, "state.safetensors")
        save_file(change_fn(load_file(path)), path)

    return damage


def _npy(make):
    def damage(folder):
        path = os.path.join(folder, "records.npy")
        np.save(path, make(np.load(path)), allow_pickle=True)

    return damage


def _torch_file(value):
    return lambda folder: torch.save(value, os.path.join(folder, "optimizer.pt"))


CHECKPOINT_CASES = [
    *[(f"{name}-{how}", rewrite_bytes(name, BYTES[how]), name, READERS[name]) for name in BINARY for how in BYTES],
    *[(f"{name}-removed", remove(name), name, READERS[name]) for name in BINARY],
    *[
        (f"{name}-{how}-unchecked", without_checksums(rewrite_bytes(name, BYTES[how])), name, READERS[name])
        for name in BINARY
        for how in STRUCTURAL
    ],
    ("policy-nan-weights", resealed("policy.safetensors", _nan_weights), "policy.safetensors", CHECKPOINT_READERS),
    (
        "state-no-just_done",
        without_checksums(_tensors(lambda t: {k: v for k, v in t.items() if k != "just_done"})),
        "state.safetensors",
        ("resume",),
    ),
    (
        "state-wrong-shape",
        without_checksums(_tensors(lambda t: {**t, "just_done": t["just_done"][:3]})),
        "state.safetensors",
        ("resume",),
    ),
    ("records-wrong-dtype", without_checksums(_npy(lambda r: np.zeros(len(r), np.int32))), "records.npy", ("resume",)),
    ("records-wrong-shape", without_checksums(_npy(lambda r: r[:3])), "records.npy", ("resume",)),
    ("records-objects", without_checksums(_npy(lambda r: np.array([{"a": 1}] * len(r)))), "records.npy", ("resume",)),
    ("optimizer-other-dict", without_checksums(_torch_file({"x": 1})), "optimizer.pt", ("resume",)),
    (
        "optimizer-empty-state",
        without_checksums(_torch_file({"optimizer": {}, "torch_rng": torch.zeros(3)})),
        "optimizer.pt",
        ("resume",),
    ),
    ("optimizer-a-pickle", without_checksums(_torch_file({"optimizer": Exception("x")})), "optimizer.pt", ("resume",)),
    ("meta-not-json", edit_json("meta.json", lambda m: "{not json"), "meta.json", CHECKPOINT_READERS),
    ("meta-empty", edit_json("meta.json", lambda m: ""), "meta.json", CHECKPOINT_READERS),
    ("meta-a-list", edit_json("meta.json", lambda m: [m]), "meta.json", CHECKPOINT_READERS),
    ("meta-binary", rewrite_bytes("meta.json", lambda d: b"\xff\xfe" + d), "meta.json", CHECKPOINT_READERS),
    ("meta-step-x", edit_json("meta.json", set_key("step", "x")), "meta.json", CHECKPOINT_READERS),
    ("meta-step-true", edit_json("meta.json", set_key("step", True)), "meta.json", CHECKPOINT_READERS),
    ("meta-format-99", edit_json("meta.json", set_key("format", 99)), "meta.json", CHECKPOINT_READERS),
    *[
        (f"meta-no-{key}", edit_json("meta.json", drop_key(key)), "meta.json", CHECKPOINT_READERS)
        for key in ("format", "env", "env_config", "policy", "step")
    ],
    *[
        (f"meta-no-{key}", edit_json("meta.json", drop_key(key)), "meta.json", ("resume",))
        for key in ("iteration", "elapsed", "recurrent_count", "train_config", "opponent", "opponent_state")
    ],
    (
        "meta-elapsed-nan",
        edit_json("meta.json", lambda m: json.dumps({**m, "elapsed": float("nan")})),
        "meta.json",
        ("resume",),
    ),
    ("meta-env-unknown", edit_json("meta.json", set_key("env", "nope")), "meta.json", CHECKPOINT_READERS),
    (
        "meta-env-config-bad",
        edit_json("meta.json", set_key("env_config", {"size": "big"})),
        "meta.json",
        CHECKPOINT_READERS,
    ),
    (
        "meta-env-config-unknown",
        edit_json("meta.json", set_key("env_config", {"bogus": 1})),
        "meta.json",
        CHECKPOINT_READERS,
    ),
    (
        "meta-policy-unknown-key",
        edit_json("meta.json", lambda m: {**m, "policy": {**m["policy"], "bogus": 1}}),
        "meta.json",
        CHECKPOINT_READERS,
    ),
    (
        "meta-policy-no-obs-size",
        edit_json("meta.json", lambda m: {**m, "policy": {"head_sizes": [5]}}),
        "meta.json",
        CHECKPOINT_READERS,
    ),
    (
        "meta-policy-hidden-negative",
        edit_json("meta.json", lambda m: {**m, "policy": {**m["policy"], "hidden": -1}}),
        "meta.json",
        CHECKPOINT_READERS,
    ),
    ("meta-checksums-garbage", edit_json("meta.json", set_key("checksums", "x")), "meta.json", CHECKPOINT_READERS),
    (
        "meta-checksums-escape",
        edit_json("meta.json", set_key("checksums", {"../x": "sha256:" + "0" * 64})),
        "meta.json",
        CHECKPOINT_READERS,
    ),
    ("meta-opponent-number", edit_json("meta.json", set_key("opponent", 5)), "meta.json", CHECKPOINT_READERS),
    ("meta-seats-number", edit_json("meta.json", set_key("seats", {"player": 5})), "meta.json", CHECKPOINT_READERS),
    (
        "meta-train-config-gamma",
        edit_json("meta.json", lambda m: {**m, "train_config": {**m["train_config"], "gamma": 5}}),
        "meta.json",
        ("resume",),
    ),
    (
        "meta-train-config-unknown",
        edit_json("meta.json", set_key("train_config", {"bogus": 1})),
        "meta.json",
        ("resume",),
    ),
    ("meta-recurrent-count", edit_json("meta.json", set_key("recurrent_count", 3)), "meta.json", ("resume",)),
]
LATEST_CASES = [
    ("latest-missing-folder", rewrite_bytes("latest", lambda d: b"step-000000999999"), "latest"),
    ("latest-garbage", rewrite_bytes("latest", lambda d: b"\xff\xfe\x00"), "latest"),
    ("latest-escape", rewrite_bytes("latest", lambda d: b"../../etc"), "latest"),
    ("latest-empty", rewrite_bytes("latest", lambda d: b""), "latest"),
    (
        "checkpoint-meta-removed",
        lambda folder: os.remove(os.path.join(folder, "step-000000000064", "meta.json")),
        "latest",
    ),
]


@pytest.mark.parametrize(
    "damage, names, readers", [c[1:] for c in CHECKPOINT_CASES], ids=[c[0] for c in CHECKPOINT_CASES]
)
def test_a_damaged_checkpoint_file_is_one_line_naming_it(work, capsys, damage, names, readers):
    damage(str(work / "run" / STEP))
    shutil.copy(work / "rec" / "rec.parquet", work / "good.parquet")
    for argv in commands(work, readers).values():
        fails_cleanly(capsys, argv, names, work / "out")


@pytest.mark.parametrize("damage, names", [c[1:] for c in LATEST_CASES], ids=[c[0] for c in LATEST_CASES])
def test_a_damaged_latest_is_one_line_naming_it(work, capsys, damage, names):
    damage(str(work / "run" / "checkpoints"))
    shutil.copy(work / "rec" / "rec.parquet", work / "good.parquet")
    for argv in commands(work, CHECKPOINT_READERS).values():
        fails_cleanly(capsys, argv, names, work / "out")


REC = "rec.parquet"
RECORDING_CASES = [
    *[(f"recording-{how}", rewrite_bytes(REC, BYTES[how])) for how in BYTES],
    ("recording-removed", remove(REC)),
    ("recording-not-parquet", rewrite_bytes(REC, lambda d: b"name,score\nada,3\n")),
    ("meta-version-99", rewrite_recording(REC, metadata=meta_value("schema_version", b"99"))),
    ("meta-no-version", rewrite_recording(REC, metadata=meta_value("schema_version", None))),
    ("meta-no-env", rewrite_recording(REC, metadata=meta_value("env", None))),
    ("meta-env-unknown", rewrite_recording(REC, metadata=meta_value("env", b'"nope"'))),
    ("meta-env-a-number", rewrite_recording(REC, metadata=meta_value("env", b"5"))),
    ("meta-not-json", rewrite_recording(REC, metadata=meta_value("config", b"{size"))),
    ("meta-not-utf8", rewrite_recording(REC, metadata=meta_value("config", b"\xff\xfe"))),
    ("meta-config-a-list", rewrite_recording(REC, metadata=meta_value("config", b"[]"))),
    ("meta-config-bad-value", rewrite_recording(REC, metadata=meta_value("config", b'{"size": "big"}'))),
    ("meta-config-other-size", rewrite_recording(REC, metadata=meta_value("config", b'{"size": 7}'))),
    ("meta-record-layout", rewrite_recording(REC, metadata=meta_value("record_dtype", b'"x"'))),
    ("meta-agents-a-string", rewrite_recording(REC, metadata=meta_value("num_agents", b'"1"'))),
    ("no-state-column", rewrite_recording(REC, table=column("state", None))),
    ("tick-column-retyped", rewrite_recording(REC, table=column("tick", lambda t: t["tick"].cast("int64")))),
    ("unknown-phase", rewrite_recording(REC, table=column("phase", unknown_phase))),
]


@pytest.mark.parametrize("damage", [c[1] for c in RECORDING_CASES], ids=[c[0] for c in RECORDING_CASES])
def test_a_damaged_recording_is_one_line_naming_it(work, capsys, damage):
    damage(str(work / "rec"))
    for argv in commands(work, ("replay", "fork")).values():
        fails_cleanly(capsys, argv, REC, work / "out")


def test_a_damaged_segment_of_an_unclosed_recording_is_named(work, capsys):
    parts = work / "rec" / "rec.parquet.parts"
    parts.mkdir()
    shutil.move(work / "rec" / REC, parts / "part-000000.parquet")
    rewrite_bytes("part-000000.parquet", BYTES["garble-tail"])(str(parts))
    for argv in commands(work, ("replay", "fork")).values():
        fails_cleanly(capsys, argv, "part-000000.parquet", work / "out")


def _progress_edit(change: dict):
    """An archive.json edit: its explore progress (``extra``) updated with ``change``."""
    return lambda meta: {**meta, "extra": {**meta["extra"], **change}}


NPZ = "archive.npz"
ARCHIVE_READERS = ("explore", "archive-start")
ARCHIVE_CASES = [
    *[(f"npz-{how}", rewrite_bytes(NPZ, BYTES[how]), NPZ, ARCHIVE_READERS) for how in BYTES],
    ("npz-removed", remove(NPZ), NPZ, ARCHIVE_READERS),
    ("json-not-json", rewrite_bytes("archive.json", lambda d: b"{cells"), "archive.json", ARCHIVE_READERS),
    ("json-a-list", edit_json("archive.json", lambda m: [m]), "archive.json", ARCHIVE_READERS),
    ("json-empty", rewrite_bytes("archive.json", lambda d: b""), "archive.json", ARCHIVE_READERS),
    *[
        (f"json-{name}", edit_json("archive.json", _progress_edit(edit)), "archive.json", ARCHIVE_READERS)
        for name, edit in [
            ("steps-negative", {"steps": -1}),
            ("steps-nan", {"steps": float("nan")}),
            ("steps-more", {"steps": 10**9}),
            ("goal-a-string", {"goal": "x"}),
        ]
    ],  # fmt: skip
    (
        "json-cells-changed",
        edit_json("archive.json", lambda m: {**m, "cells": m["cells"] + 1}),
        "archive.json",
        ARCHIVE_READERS,
    ),  # fmt: skip
    ("npz-meta-steps-negative", rewrite_archive(meta=set_key("extra", {"steps": -1})), NPZ, ("explore",)),
    ("npz-meta-steps-true", rewrite_archive(meta=set_key("extra", {"steps": True})), NPZ, ("explore",)),
    (
        "npz-meta-goal-nan",
        rewrite_archive(meta=set_key("extra", {"steps": 1, "goal": float("nan")})),
        NPZ,
        ("explore",),
    ),  # fmt: skip
    (
        "npz-arrays-changed",
        rewrite_archive(change("visits", lambda a: a + 1), keep_checksum=True),
        NPZ,
        ARCHIVE_READERS,
    ),
    ("npz-no-visits", rewrite_archive(change("visits", None)), NPZ, ARCHIVE_READERS),
    ("npz-records-cut", rewrite_archive(change("records", lambda a: a[:, :7])), NPZ, ARCHIVE_READERS),
    ("npz-fewer-cells", rewrite_archive(change("score", lambda a: a[:-1])), NPZ, ARCHIVE_READERS),
    ("npz-negative-visits", rewrite_archive(change("visits", lambda a: -a)), NPZ, ARCHIVE_READERS),
    ("npz-repeated-cells", rewrite_archive(change("keys", lambda a: np.zeros_like(a))), NPZ, ARCHIVE_READERS),
    ("npz-nan-score", rewrite_archive(change("score", lambda a: a * np.nan)), NPZ, ARCHIVE_READERS),
    ("npz-visits-as-floats", rewrite_archive(change("visits", lambda a: a.astype(np.float64))), NPZ, ARCHIVE_READERS),
    ("npz-meta-not-json", rewrite_archive(meta=lambda m: b"\xff{"), NPZ, ARCHIVE_READERS),
    ("npz-meta-a-list", rewrite_archive(meta=lambda m: [m]), NPZ, ARCHIVE_READERS),
    ("npz-meta-no-env", rewrite_archive(meta=drop_key("env")), NPZ, ARCHIVE_READERS),
    ("npz-meta-cells-x", rewrite_archive(meta=set_key("cells", "x")), NPZ, ARCHIVE_READERS),
    ("npz-meta-format-99", rewrite_archive(meta=set_key("format", 99)), NPZ, ARCHIVE_READERS),
    ("npz-meta-state-shape", rewrite_archive(meta=set_key("state_shape", [2, 1, 4])), NPZ, ARCHIVE_READERS),
    ("npz-meta-progress", rewrite_archive(meta=set_key("extra", {"steps": "x"})), NPZ, ("explore",)),
]


@pytest.mark.parametrize("damage, names, readers", [c[1:] for c in ARCHIVE_CASES], ids=[c[0] for c in ARCHIVE_CASES])
def test_a_damaged_archive_is_one_line_naming_it(work, capsys, damage, names, readers):
    damage(str(work / "arch"))
    for argv in commands(work, readers).values():
        fails_cleanly(capsys, argv, names, work / "out")


def test_the_good_files_pass_every_command(work, capsys):
    shutil.copy(work / "rec" / "rec.parquet", work / "good.parquet")
    for name, argv in commands(work, [*CHECKPOINT_READERS, "replay", "fork", "explore"]).items():
        assert main(argv) == 0, (name, capsys.readouterr().err)
        shutil.rmtree(work / "out", ignore_errors=True)


def test_an_archive_whose_json_copy_a_save_did_not_rewrite_still_loads(work, capsys):
    edit_json("archive.json", lambda m: {**m, "checksum": "sha256:" + "0" * 64, "cells": 1})(str(work / "arch"))
    assert main(commands(work, ["explore"])["explore"]) == 0, capsys.readouterr().err


def test_an_archive_without_its_json_copy_still_loads(work, capsys):
    os.remove(work / "arch" / "archive.json")  # a first save killed between its two files
    assert main(commands(work, ["explore"])["explore"]) == 0, capsys.readouterr().err


@pytest.fixture(scope="module")
def good_model(tmp_path_factory):
    """A tiny untrained model folder (tests/lm/conftest.py's size)."""
    from sparring.lm.model import build_small_model
    from tests.lm.conftest import LINES, TINY

    return build_small_model(LINES, str(tmp_path_factory.mktemp("model") / "tiny"), TINY, vocab_size=300)


def _config(key, value):
    return edit_json("config.json", set_key(key, value))


MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja")
MODEL_CASES = [
    *[(f"{name}-{how}", rewrite_bytes(name, BYTES[how]), name) for name in MODEL_FILES[:3] for how in STRUCTURAL],
    *[(f"{name}-removed", remove(name), name) for name in MODEL_FILES[1:3]],
    ("config-vocab-2**40", _config("vocab_size", 2**40), "config.json and the weights disagree"),
    ("config-vocab-fewer", _config("vocab_size", 7), "embed_tokens"),
    ("config-hidden-other", _config("hidden_size", 64), "mismatch"),
    ("config-layers-more", _config("num_hidden_layers", 3), "missing"),
    ("config-model-type-unknown", _config("model_type", "nope"), "nope"),
    ("config-a-list", edit_json("config.json", lambda c: [c]), "config"),
    ("template-syntax", rewrite_bytes("chat_template.jinja", lambda d: b"{% bad"), "chat_template.jinja"),
    ("template-undefined", rewrite_bytes("chat_template.jinja", lambda d: b"{{ nope.x }}"), "chat_template.jinja"),
    ("template-drops-turns", rewrite_bytes("chat_template.jinja", lambda d: b"hello"), "chat_template.jinja"),
    ("template-not-utf8", rewrite_bytes("chat_template.jinja", lambda d: b"\xff\xfe" + d), "chat_template.jinja"),
]


@pytest.mark.parametrize("damage, names", [c[1:] for c in MODEL_CASES], ids=[c[0] for c in MODEL_CASES])
def test_a_damaged_model_folder_is_one_line_before_serving_or_playing(good_model, tmp_path, capsys, monkeypatch,
                                                                      damage, names):  # fmt: skip
    def served(*args, **kwargs):
        raise AssertionError("the server started on a damaged model folder")

    monkeypatch.setattr("sparring.lm.server.ready_server", served)
    hf_logging._get_library_root_logger()  # transformers' own handler writes where a user would read it
    monkeypatch.setattr(hf_logging._default_handler, "stream", sys.stderr)
    model = tmp_path / "model"
    shutil.copytree(good_model, model)
    damage(str(model))
    fails_cleanly(capsys, ["serve", "--model", str(model), "--port", "0"], names, tmp_path / "out")
    play = ["play", "town", "--brain", f"local:{model}", "--episodes", "1", "--env.days", "1"]
    fails_cleanly(capsys, [*play, "--record", str(tmp_path / "out")], names, tmp_path / "out")


def test_the_good_model_folder_loads(good_model):
    from sparring.lm.local import LocalModel

    assert LocalModel(good_model).context == 96
