"""The fuzz harness: bad values for every flag of every command, generated from the parsers, and damaged files for
every flag that reads one; each must end with exit code 2 and one line on stderr that names the flag, the value
or the file, and no traceback.

How the cases are made. For each command, ``build_parser()`` gives its arguments; each argument's type says what
it accepts (``sparring.cli.values``: ``kind``, ``low``, ``high``), and :func:`bad_values` turns that into bad
values: empty, blank, non-numbers, NaN, infinities, fractions, one below the range and one above it (2**80
where the range is a 64-bit integer), unicode, names that leave their folder, paths that do not exist, are
folders, devices (a link to /dev/zero), pipes, in unwritable places or existing outputs without ``--force``; a
flag that holds a URL or an address (``BRAIN_URLS``, ``ADDRESSES``) gets bracket and port typos instead.
A flag that reads a file gets the damaged-file corpus (tests/cli/damage.py's cut and garbled bytes of a good
file, plus links to /dev/zero, pipes, folders where files belong). A new flag is covered without a new test.
Each case is a valid base command line (``BASES``) with one argument made bad.

The cases are sampled, not enumerated: ``SPARRING_FUZZ_CASES`` per command (default 40; 0 takes them all),
drawn with ``SPARRING_FUZZ_SEED`` (default 39). They run in two subprocesses, each calling ``main`` in a loop
(tests/cli/fuzz_run.py), so the suite pays two interpreter starts, not one per case.

Every command holds; a command (or a case, in ``KNOWN`` with its reason) that does not yet can be listed in
``XFAIL``: strict, so one that starts to hold fails its xfail and the mark is removed. ``SPARRING_FUZZ_ONLY``
(comma-separated commands) runs only those commands' cases, e.g. to count all of one command's cases.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import pytest

from sparring.cli import build_parser
from sparring.cli.values import INT_MAX
from tests.cli.damage import BYTES, STRUCTURAL
from tests.cli.test_url_values import ADDRESS_TYPOS
from tests.kit.test_net import url_typos

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = int(os.environ.get("SPARRING_FUZZ_SEED", "39"))
PER_COMMAND = int(os.environ.get("SPARRING_FUZZ_CASES", "40"))
LM_REASON = "validated with issue 34's LM work"
# commands of the LM layer that do not hold yet (flip by removing one once it holds)
XFAIL: set[str] = set()
# cases of other commands that do not hold yet, each with its reason; a case here that holds fails its test, to be
# removed
KNOWN: dict[str, str] = {}
# SPARRING_FUZZ_ONLY=grpo,distill runs only those commands' cases (the others' tests then pass with none)
ONLY = {c for c in os.environ.get("SPARRING_FUZZ_ONLY", "").split(",") if c}

# a valid command line per command, cheap to check; {tmp}, {file}, ... are filled in by `places`
BASES = {
    "list": ["list"],
    "new": ["new", "fuzzenv", "--dir", "{tmp}/new"],
    "check": ["check", "squared", "--steps", "10"],
    "bench": ["bench", "squared", "--sizes", "1", "--repeats", "3", "--seconds", "0.01", "--no-compile"],
    "serve": ["serve", "--model", "{empty}", "--port", "0"],
    "build-lm": ["build-lm", "--text", "{lines}", "--out", "{tmp}/model"],
    "distill": ["distill", "town", "--out", "{tmp}/distilled"],
    "grpo": ["grpo", "town", "--model", "{empty}", "--out", "{tmp}/grpo"],
    "train": ["train", "squared", "--steps", "64", "--runs", "{tmp}/runs", "--train.num_envs", "8"],
    "sweep": ["sweep", "squared", "--steps", "64", "--trials", "1", "--sweeps", "{tmp}/sweeps"],
    "ablate": ["ablate", "squared", "--knob", "train.lr=1e-3,3e-4", "--steps", "64", "--seeds", "2"],
    "explore": ["explore", "serpent", "--steps", "10", "--num-envs", "2", "--runs", "{tmp}/runs"],
    "eval": ["eval", "squared", "--policy", "scripted:greedy", "--episodes", "2"],
    "watch": ["watch", "squared", "--checkpoint", "{run}", "--episodes", "1", "--fps", "1000"],
    "play": ["play", "duel"],
    "record": ["record", "squared", "--policy", "random", "--episodes", "1", "--out", "{tmp}/out/r.parquet"],
    "replay": ["replay", "{recording}", "--print"],
    "fork": ["fork", "{recording}", "--episode", "0", "--tick", "0", "--policy", "random", "--out", "{tmp}/f.parquet"],
    "judge": ["judge", "duel", "--brain", "random", "--brain", "scripted:robot", "--episodes", "2"],
    "warm": ["warm", "squared"],
    "openenv": ["openenv", "duel", "--port", "0"],
}
# what a flag of a parser not yet typed with sparring.cli.values reads or writes (kind, as the types say)
UNTYPED = {("eval", "--checkpoint"): "path", ("watch", "--checkpoint"): "path"}
# a good file of what a flag reads, for the damaged-file corpus (the key names it in `places`)
GOOD = {("sweep", "--space"): "space", ("build-lm", "--text"): "lines", ("replay", "file"): "recording"}
GOOD[("fork", "file")] = "recording"
NUMBERS = ("", " ", "x", "nan", "inf", "-inf", "1e400", "\u2603")
# flags whose values hold a URL or a network address: they also get tests/kit/test_net.py's bracket and port typos
BRAIN_URLS = {("play", "--brain"), ("judge", "--brain"), ("judge", "--background")}
ADDRESSES = {("train", "--ray-address"), ("sweep", "--ray-address"), ("grpo", "--ray-address")}


def commands() -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, its lazily added arguments loaded."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for parser in sub.choices.values():
        parser.load_arguments()
    return dict(sub.choices)


def fuzzed_arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments of a command that take a value (flags and positionals; not --help or switches)."""
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction) and a.nargs != 0]


def kind_of(command: str, action: argparse.Action) -> str | None:
    """What an argument accepts: its type's ``kind``, or the UNTYPED table's word for it."""
    flag = action.option_strings[0] if action.option_strings else action.dest
    return UNTYPED.get((command, flag)) or getattr(action.type, "kind", None)


def bad_values(command: str, action: argparse.Action, places: dict) -> list[tuple[str, str]]:
    """(label, bad value) pairs for ``action`` from what its type accepts."""
    flag = action.option_strings[0] if action.option_strings else action.dest
    if (command, flag) in BRAIN_URLS:
        return [(f"url-typo-{i}", f"openai:{url}:model") for i, (url, _) in enumerate(url_typos()) if "://" in url]
    if (command, flag) in ADDRESSES:
        return [(f"address-typo-{i}", value) for i, value in enumerate(ADDRESS_TYPOS)]
    kind, t = kind_of(command, action), action.type
    if action.choices is not None:
        return [("empty", ""), ("not-a-choice", "bogus"), ("unicode", "\u2603")]
    if kind == "int":
        low, high = t.low, t.high
        values = [(v or "blank", v) for v in NUMBERS] + [("fraction", "1.5")]
        values.append(("below", str(low - 1)) if low > -INT_MAX - 1 else ("huge-negative", str(-(2**80))))
        values.append(("above", str(high + 1)) if high < INT_MAX else ("huge", str(2**80)))
        if low >= 0:
            values.append(("negative", "-5"))
        if low >= 1:
            values.append(("zero", "0"))
        return values
    if kind == "float":
        values = [(v or "blank", v) for v in NUMBERS]
        if t.low > float("-inf"):
            values.append(("below", repr(t.low) if getattr(t, "above", False) else repr(t.low - 1)))
        if t.high < float("inf"):
            values.append(("above", repr(t.high * 2 + 1)))
        return values
    if kind == "name":
        return [
            ("empty", ""),
            ("up", "../x"),
            ("slash", "a/b"),
            ("dots", ".."),
            ("unicode", "\u2603"),
            ("long", "x" * 300),
        ]
    if kind == "file":
        return [
            ("missing", places["missing"]),
            ("folder", places["empty"]),
            ("dev-zero", places["zero"]),
            ("fifo", places["fifo"]),
            *damaged(command, action, places),
        ]
    if kind == "path":
        return [
            ("missing", places["missing"]),
            ("empty-folder", places["empty"]),
            ("dev-zero", places["zero"]),
            ("fifo", places["fifo"]),
            ("a-text-file", places["file"]),
            ("links-to-dev-zero", places["zeros"]),
        ]
    if kind == "output":
        return [
            ("exists", places["file"]),
            ("a-folder", places["empty"]),
            ("under-a-file", os.path.join(places["file"], "x.out")),
            *([("read-only", os.path.join(places["ro"], "x.out"))] if places["ro"] else []),
        ]
    if kind == "folder":
        values = [("a-file", places["file"]), ("under-a-file", os.path.join(places["file"], "x"))]
        if places["ro"]:
            values.append(("read-only", os.path.join(places["ro"], "x")))
        if not getattr(t, "exists_ok", False):
            values.append(("not-empty", places["full"]))
        return values
    return [("empty", ""), ("blank", "  "), ("unicode", "\u2603\u00fc")]


def damaged(command: str, action: argparse.Action, places: dict) -> list[tuple[str, str]]:
    """The damaged-file corpus for a flag that reads a file: tests/cli/damage.py's cut and garbled bytes of a good
    one (or of a text file when there is no good sample)."""
    flag = action.option_strings[0] if action.option_strings else action.dest
    good = places[GOOD.get((command, flag), "file")]
    with open(good, "rb") as fh:
        data = fh.read()
    out = []
    # a recording has checksums: every damage is caught; TOML breaks when cut; plain text only when empty or not UTF-8
    kinds = {".parquet": tuple(BYTES), ".toml": STRUCTURAL}.get(os.path.splitext(good)[1], ("empty", "garble-head"))
    for how, damage in [(h, BYTES[h]) for h in kinds]:
        path = os.path.join(places["tmp"], "damaged", f"{command}-{flag.strip('-')}-{how}{os.path.splitext(good)[1]}")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(damage(data))
        out.append((f"damaged-{how}", path))
    return out


def with_value(base: list[str], action: argparse.Action, value: str) -> list[str]:
    """``base`` with ``action``'s value replaced by ``value`` (added when ``base`` does not give it)."""
    values = [value] * (action.nargs if isinstance(action.nargs, int) else 1)
    if not action.option_strings:  # a positional: right after the command, in the parser's order
        positionals = [a for a in fuzzed_arguments_cache[base[0]] if not a.option_strings]
        at = 1 + positionals.index(action)
        return [*base[:at], *values, *base[at + 1 :]] if len(base) > at else [*base, *values]
    flag = action.option_strings[0]
    argv = list(base)
    for i, arg in enumerate(argv):
        if arg in action.option_strings:
            n = len(values)
            return [*argv[:i], flag, *values, *argv[i + 1 + n :]]
    return [*argv, flag, *values]


fuzzed_arguments_cache: dict[str, list[argparse.Action]] = {}


def make_cases(places: dict) -> dict[str, list[dict]]:
    """The sampled cases of every command: ``{"id", "argv", "names"}`` (``names``: what the error line must
    name, any one of them)."""
    parsers = commands()
    cases: dict[str, list[dict]] = {}
    for command, parser in parsers.items():
        if command not in BASES or (ONLY and command not in ONLY):  # a command without a base: the test below
            continue
        actions = fuzzed_arguments(parser)
        fuzzed_arguments_cache[command] = actions
        base = [a.format(**places) for a in BASES[command]]
        every = []
        for action in actions:
            flag = action.option_strings[0] if action.option_strings else action.dest
            for label, value in bad_values(command, action, places):
                names = [flag, *action.option_strings, *([action.metavar] if isinstance(action.metavar, str) else [])]
                if value.strip():
                    names.append(value)
                every.append(
                    {"id": f"{command} {flag} {label}", "argv": with_value(base, action, value), "names": names}
                )
        rng = random.Random(f"{SEED}-{command}")
        cases[command] = every if PER_COMMAND <= 0 or len(every) <= PER_COMMAND else rng.sample(every, PER_COMMAND)
    return cases


def _read_only_folder(root: str) -> str | None:
    """A folder this process cannot write in (a chmod 555 one; root writes there anyway: then /sys), or None."""
    folder = os.path.join(root, "ro")
    os.makedirs(folder)
    os.chmod(folder, 0o555)
    for candidate in (folder, "/sys"):
        try:
            with tempfile.TemporaryFile(dir=candidate):
                pass
        except OSError:
            return candidate
    return None


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> dict:
    """The paths the cases use: a text file, an empty folder, a link to /dev/zero, a pipe, a folder whose files
    are links to /dev/zero, a read-only folder, a good recording and search space."""
    from tests.cli.damage import tiny_run
    from tests.record.conftest import record

    root = tmp_path_factory.mktemp("fuzz")
    (root / "file.txt").write_text("not what any command reads\n")
    (root / "lines.txt").write_text("go home\nbuy bread\n")
    (root / "space.toml").write_text('[sweep]\n"train.lr" = {log = [1e-4, 1e-2]}\n')
    (root / "empty").mkdir()
    (root / "empty-cwd").mkdir()
    (root / "full").mkdir()
    (root / "full" / "x").write_text("x")
    os.symlink("/dev/zero", root / "zero")
    os.mkfifo(root / "fifo")
    zeros = root / "zeros"
    (zeros / "checkpoints").mkdir(parents=True)
    for name in ("meta.json", "config.json", "archive.npz", "archive.json", "tokenizer.json", "model.safetensors"):
        os.symlink("/dev/zero", zeros / name)
    os.symlink("/dev/zero", zeros / "checkpoints" / "latest")
    record(root / "rec.parquet", "squared", 1, num_envs=1, config={"size": 5})
    tiny_run(root / "run")
    return {
        "run": str(root / "run"),
        "scratch": str(root / "empty-cwd"),
        "tmp": str(root),
        "file": str(root / "file.txt"),
        "lines": str(root / "lines.txt"),
        "space": str(root / "space.toml"),
        "recording": str(root / "rec.parquet"),
        "empty": str(root / "empty"),
        "full": str(root / "full"),
        "zero": str(root / "zero"),
        "fifo": str(root / "fifo"),
        "zeros": str(zeros),
        "missing": str(root / "no-such-file"),
        "ro": _read_only_folder(str(root)),
    }


def _run(cases: list[dict], out: str, cwd: str) -> list[dict]:
    """Run ``cases`` in a subprocess; one that kills the process is its own failure and the rest run in another."""
    env = {"SPARRING_FUZZ_CASE_S": "30", "SPARRING_FUZZ_MEMORY_GB": "4", **os.environ}
    env["PYTHONPATH"] = ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")
    results: list[dict] = []
    while len(results) < len(cases):
        rest = cases[len(results) :]
        proc = subprocess.run(
            [sys.executable, "-m", "tests.cli.fuzz_run", out],
            input=json.dumps([{"id": c["id"], "argv": c["argv"]} for c in rest]),
            text=True,
            cwd=cwd,  # a scratch folder: a relative path a command wrongly accepts lands there
            env=env,
            capture_output=True,
            timeout=900,
        )
        with open(out) as fh:
            results += [json.loads(line) for line in fh]
        if len(results) < len(cases):  # the process died in this case
            why = f"the process died (exit {proc.returncode}): {proc.stderr.strip()[-300:]!r}"
            results.append({"id": cases[len(results)]["id"], "code": None, "err": "", "trace": why, "seconds": 0})
    return results


@pytest.fixture(scope="module")
def results(places) -> dict[str, dict]:
    """Every sampled case run, in two subprocesses side by side: ``{id: result}``."""
    cases = [c for command in sorted(make_cases(places).items()) for c in command[1]]
    halves = [cases[0::2], cases[1::2]]
    with ThreadPoolExecutor(2) as pool:
        outs = [os.path.join(places["tmp"], f"results-{i}.jsonl") for i in range(2)]
        done = pool.map(_run, halves, outs, [places["scratch"]] * 2)
    by_id = {r["id"]: r for part in done for r in part}
    return {"cases": {c["id"]: c for c in cases}, "results": by_id}


def problem(case: dict, result: dict | None) -> str | None:
    """What is wrong with a case's result (None: it held)."""
    if result is None:
        return "did not run (the subprocess died before it)"
    if result["trace"]:
        return f"exception: {result['trace'].strip().splitlines()[-1][:200]}"
    lines = result["err"].strip().splitlines()
    if result["code"] != 2:
        return f"exit code {result['code']}, stderr {result['err'][-200:]!r}"
    if len(lines) != 1:
        return f"{len(lines)} lines on stderr: {result['err'][-300:]!r}"
    if not any(name in lines[0] for name in case["names"]):
        return f"the line names none of {case['names'][:3]}: {lines[0][:200]!r}"
    return None


def _marks(command: str):
    return [pytest.mark.xfail(strict=True, reason=LM_REASON)] if command in XFAIL else []


@pytest.mark.parametrize("command", [pytest.param(c, marks=_marks(c)) for c in BASES])
def test_every_bad_value_is_one_line_and_exit_2(results, command):
    ran = {i: c for i, c in results["cases"].items() if i.split(" ")[0] == command}
    failed = {i: problem(c, results["results"].get(i)) for i, c in ran.items()}
    failed = {i: why for i, why in failed.items() if why}
    held = len(ran) - len(failed)
    seconds = sum(results["results"][i]["seconds"] for i in ran if i in results["results"])
    print(f"{command}: {held}/{len(ran)} held in {seconds:.1f} s")
    unexpected = {i: why for i, why in failed.items() if i not in KNOWN}
    assert not unexpected, f"{command}: {held}/{len(ran)} held; " + "; ".join(
        f"[{i}] {w}" for i, w in unexpected.items()
    )
    now_hold = [i for i in ran if i in KNOWN and i not in failed]
    assert not now_hold, f"these cases hold now: remove them from KNOWN: {now_hold}"


def test_every_command_has_a_base_and_every_flag_a_kind():
    """A new command needs a base command line here; a new flag needs a type of sparring.cli.values (or a plain
    int/float/str, which the parser makes safe)."""
    parsers = commands()
    assert set(parsers) == set(BASES), "add a base command line for each new command to BASES"
    unknown = [
        f"{command} {a.option_strings[0] if a.option_strings else a.dest}"
        for command, parser in parsers.items()
        for a in fuzzed_arguments(parser)
        if a.choices is None and kind_of(command, a) is None
    ]
    assert not unknown, f"flags whose type says nothing of what they accept: {unknown}"
