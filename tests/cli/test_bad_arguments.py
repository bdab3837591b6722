"""Bad values on the command line: exit code 2 and one line on stderr naming the flag and what is valid, before any
work is done and with nothing written."""

import os
import re
import tempfile

import pytest

from sparring.cli import main
from tests.train import toys  # noqa: F401  (registers the toy envs)

TRAIN = ["train", "squared", "--steps", "64"]
# (command line, what the one line names); {out} is a fresh folder that must stay empty
BAD = [
    ([*TRAIN, "--env.size", "100000"], "'size': '100000'"),
    ([*TRAIN, "--train.num_envs", "1000000000"], "num_envs=1000000000"),
    (["record", "squared", "--policy", "random", "--num-envs", "1000000000", "--out", "{out}/r.parquet"], "--num-envs"),
    ([*TRAIN, "--train.hidden", "0"], "--train.hidden"),
    ([*TRAIN, "--train.threads", "-3"], "--train.threads"),
    ([*TRAIN, "--train.horizon", "0"], "--train.horizon"),
    ([*TRAIN, "--train.minibatch_size", "0"], "--train.minibatch_size"),
    ([*TRAIN, "--train.gamma", "5"], "--train.gamma"),
    ([*TRAIN, "--train.gae_lambda", "-0.5"], "--train.gae_lambda"),
    ([*TRAIN, "--train.lr", "inf"], "--train.lr"),
    ([*TRAIN, "--train.minutes", "nan"], "--train.minutes"),
    ([*TRAIN, "--train.archive_fraction", "2"], "--train.archive_fraction"),
    ([*TRAIN, "--train.num_envs", "1e400"], "--train.num_envs"),
    (["train", "squared", "--minutes", "nan"], "--minutes"),
    (["train", "squared", "--steps", "-5"], "--steps"),
    (["train", "squared", "--archive", "2"], "--archive"),
    (["train"], "--resume"),
    (["check", "squared", "--steps", "0"], "--steps"),
    (["bench", "squared", "--seconds", "-1"], "--seconds"),
    (["eval", "squared", "--policy", "scripted:x", "--episodes", "0"], "--episodes"),
    (["eval", "squared", "--policy", "scripted:x", "--window", "0"], "--window"),
    (["watch", "squared", "--checkpoint", "x", "--fps", "nan"], "--fps"),
    (["record", "squared", "--policy", "random", "--episodes", "0", "--out", "{out}/r.parquet"], "--episodes"),
    (["record", "squared", "--policy", "random", "--out", "{out}"], "--out"),
    (["replay", "{file}", "--fps", "0"], "--fps"),
    (
        ["fork", "{file}", "--episode", "0", "--tick", "-1", "--policy", "random", "--out", "{out}/f.parquet"],
        "--tick",
    ),
    (["explore", "serpent", "--num-envs", "0"], "--num-envs"),
    (["explore", "serpent", "--save-s", "0"], "--save-s"),
    (["explore", "serpent", "--out", "{file}"], "--out"),
    (["sweep", "squared", "--trials", "0"], "--trials"),
    (["build-lm", "--text", "{file}", "--out", "{out}/m", "--hidden", "0"], "--hidden"),
]
# output paths whose folder cannot be written (read-only, or a file where a folder should be)
UNWRITABLE = [
    (["train", "squared", "--steps", "64", "--runs", "{ro}/runs"], "--runs"),
    (["eval", "squared", "--checkpoint", "x", "--record", "{ro}/e.parquet"], "--record"),
    (["record", "squared", "--policy", "random", "--out", "{ro}/r.parquet"], "--out"),
    (["fork", "{file}", "--episode", "0", "--tick", "0", "--policy", "random", "--out", "{ro}/f.parquet"], "--out"),
    (["replay", "{file}", "--gif", "{ro}/r.gif"], "--gif"),
    (["replay", "{file}", "--html", "{ro}/r.html"], "--html"),
    (["explore", "serpent", "--out", "{ro}/arch"], "--out"),
    (["build-lm", "--text", "{file}", "--out", "{ro}/m"], "--out"),
]


@pytest.fixture
def places(tmp_path):
    """{out}: an empty folder; {file}: a text file; {ro}: a folder this process cannot write in."""
    (tmp_path / "out").mkdir()
    (tmp_path / "lines.txt").write_text("go home\n")
    return {"out": str(tmp_path / "out"), "file": str(tmp_path / "lines.txt"), "ro": str(tmp_path / "lines.txt")}


def fails_on_one_line(capsys, argv, names, out) -> None:
    code = main(argv)
    err = capsys.readouterr().err
    progress = re.compile(r"\(\d+:\d\d elapsed\)$")  # a slow start's own notice, e.g. on a loaded machine
    lines = [line for line in err.strip().splitlines() if not progress.search(line)]
    assert code == 2 and len(lines) == 1 and names in lines[0], (argv, code, err)
    assert "Traceback" not in err and os.listdir(out) == [], os.listdir(out)


@pytest.mark.parametrize("argv, names", BAD, ids=[" ".join(a[:4]) + " " + n for a, n in BAD])
def test_a_bad_value_is_one_line_naming_the_flag(capsys, places, argv, names):
    fails_on_one_line(capsys, [a.format(**places) for a in argv], names, places["out"])


@pytest.mark.parametrize("argv, names", UNWRITABLE, ids=[a[0] + " " + n for a, n in UNWRITABLE])
def test_an_output_under_a_file_is_one_line_naming_the_flag(capsys, places, argv, names):
    fails_on_one_line(capsys, [a.format(**places) for a in argv], names, places["out"])


def _read_only_folder(tmp_path) -> str | None:
    """A folder this process cannot write in: a chmod 555 one (root writes there anyway: then /sys), or None."""
    folder = tmp_path / "ro"
    folder.mkdir()
    os.chmod(folder, 0o555)
    for candidate in (str(folder), "/sys"):
        try:
            with tempfile.TemporaryFile(dir=candidate):
                pass
        except OSError:
            return candidate
    return None


@pytest.mark.parametrize("argv, names", UNWRITABLE, ids=[a[0] + " " + n for a, n in UNWRITABLE])
def test_an_output_in_a_read_only_folder_is_one_line_naming_the_flag(capsys, places, tmp_path, argv, names):
    ro = _read_only_folder(tmp_path)
    if ro is None:
        pytest.skip("no folder here refuses this process's writes")
    fails_on_one_line(capsys, [a.format(**{**places, "ro": ro}) for a in argv], names, places["out"])
