"""What each output block of the docs shows, produced by running the commands the page documents.

Each page with ``<!-- output: NAME -->`` blocks has a function here that runs its commands in a work folder and
returns the body of every such block (:class:`Shown`). ``python -m tests.docs.regen`` writes them into the pages;
the tests run the same functions and compare. A block is compared exactly when another run prints the same
(the checker on a fixed seed, an error message); otherwise by its :func:`tests.docs.blocks.shape` (headers,
column names, labels and order, not the numbers), since training gives other figures on another run or machine.

The tutorial's full run trains for the 2 M steps the page says; ``quick=True`` trains for three iterations
instead, which prints the same shape and is what the test runs. Output blocks of long commands keep the first
and the last of each run of progress lines (:func:`~tests.docs.blocks.fold_repeats`). Paths under the work
folder are shown under :data:`SHOWN_FOLDER`, the folder the pages say the commands ran in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tests.docs.blocks import PROGRESS, fold_repeats, marked_blocks, shape
from tests.docs.commands import (
    ROOT,
    TUTORIAL,
    in_folder,
    load_env,
    load_step,
    registered,
    sparring,
)

SHOWN_FOLDER = "/tmp/demo"
CATCH_TRAIN = "sparring train catch --steps 2000000"
CATCH_TRAIN_QUICK = "sparring train catch --steps 196608"  # three iterations of 1024 envs x 64 steps
CATCH_EVAL = "sparring eval catch --checkpoint RUN --episodes 1000 --greedy"
CATCH_RECORD = "sparring record catch --checkpoint RUN --greedy --episodes 5 --out catch.parquet"
CATCH_REPLAY = "sparring replay catch.parquet --episode 0 --html catch.html"
MISTAKE = ("rand_int(s, cfg.width)", "np.random.randint(cfg.width)")  # the tutorial's one-line slip
JUDGE_DUEL = (
    "sparring judge duel --brain scripted:robot --brain scripted:tribrid --brain scripted:reactive "
    "--brain scripted:random --brain random --episodes 400 --out duel.json"
)
JUDGE_TOWN = (
    "sparring judge town --brain scripted:planner --brain scripted:planner:0.1 --brain scripted:planner:0.3 "
    "--brain random --background scripted:planner --episodes 100"
)
# the seats page's table: (runner, chaser) as the page writes them, and the command that measured the row
SEATS_TABLE = {
    ("`random`", "`env:bfs`"): "sparring eval tag --policy random",
    ("`scripted:bfs`", "`env:bfs`"): "sparring eval tag --policy scripted:bfs",
    ("the checkpoint", "`env:bfs`"): "sparring eval tag --checkpoint RUN",
    ("the checkpoint", "`env:random`"): "sparring eval tag --checkpoint RUN --seat chaser=random",
    (
        "the checkpoint",
        "`scripted:bfs`, played from outside",
    ): "sparring eval tag --checkpoint RUN --env.opponent learner --seat chaser=scripted:bfs",
}
TABLE_ROW = re.compile(r"^\| (.+?) \| (.+?) \| (\d\.\d+ \[\d\.\d+, \d\.\d+\]) \|$", re.M)


@dataclass(frozen=True)
class Shown:
    """The body of an output block, and whether another run prints it exactly (else: the same shape)."""

    body: str
    exact: bool


@dataclass
class Outputs:
    """A page's output blocks by name, and the files its commands wrote that the docs show (docs path: file)."""

    blocks: dict[str, Shown]
    files: dict[str, Path] = field(default_factory=dict)


def run(line: str, work: Path, expected: int = 0) -> str:
    """What ``line`` printed, with ``work`` shown as :data:`SHOWN_FOLDER`; it must exit with ``expected``."""
    code, out = sparring(line)
    if code != expected:
        raise AssertionError(f"{line!r} exited {code}, expected {expected}:\n{out}")
    for folder in {str(work), str(work.resolve())}:
        out = out.replace(folder, SHOWN_FOLDER)
    return out.rstrip("\n")


def run_folder(train_output: str, work: Path) -> str:
    """The run folder that ``sparring train`` printed last, as a path to use in ``work``."""
    return re.search(r"^run folder: (\S+)$", train_output, re.M).group(1).replace(SHOWN_FOLDER, str(work))


def lines_from(text: str, start: str) -> str:
    """``text`` from its first line that contains ``start`` on."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if start in line)
    return "\n".join(lines[first:])


def mistake(work: Path) -> type:
    """Step 1's ``Catch`` with the tutorial's slip (:data:`MISTAKE`), from a copy in ``work/mistake``."""
    folder = work / "mistake"
    folder.mkdir()
    source = (TUTORIAL / "step1" / "env.py").read_text()
    if source.count(MISTAKE[0]) != 1:
        raise AssertionError(f"docs/tutorial/step1/env.py should have {MISTAKE[0]!r} once, for the slip")
    (folder / "env.py").write_text(source.replace(*MISTAKE))
    (folder / "defaults.toml").write_text((TUTORIAL / "step1" / "defaults.toml").read_text())
    return load_env(folder / "env.py", "tutorial_catch_mistake", "Catch")


def seed_numba_random(seed: int) -> None:
    """Seed the generator that ``np.random`` uses in compiled code (Numba's own, one per process).

    The slip draws from it, so what the checker finds depends on the draws before; seeded, the page's
    block shows one real outcome that every run reproduces.
    """
    import numba

    @numba.njit
    def seed_it(s):
        np.random.seed(s)

    seed_it(seed)


def tutorial(work: Path, quick: bool = False) -> Outputs:
    """docs/tutorial.md: the checker on steps 1 and 2 and on the slip, then train, eval, record and replay."""
    blocks = {}
    with in_folder(work):
        with registered({"catch": load_step(1)}):
            blocks["check-step1"] = Shown(run("sparring check catch", work), exact=True)
        with registered({"catch": mistake(work)}):
            seed_numba_random(0)
            out = run("sparring check catch", work, expected=1)
            fails = [line for line in out.splitlines() if line.startswith("  FAIL")]
            blocks["check-mistake"] = Shown("\n".join([*fails, out.splitlines()[-1]]), exact=True)
        with registered({"catch": load_step(2)}):
            blocks["check-step2"] = Shown(lines_from(run("sparring check catch", work), "reward audit"), exact=True)
        with registered({"catch": load_step(3)}):
            out = run(CATCH_TRAIN_QUICK if quick else CATCH_TRAIN, work)
            blocks["train-catch"] = Shown(fold_repeats(out), exact=False)
            folder = run_folder(out, work)
            blocks["eval-catch"] = Shown(fold_repeats(run(CATCH_EVAL.replace("RUN", folder), work)), exact=False)
            if quick:
                return Outputs(blocks)
            run(CATCH_RECORD.replace("RUN", folder), work)
            run(CATCH_REPLAY, work)
    files = {
        "docs/tutorial/catch-replay.html": work / "catch.html",
        "docs/tutorial/catch-training.png": work / folder / "plots" / "learning.png",
    }
    return Outputs(blocks, files)


def seats(work: Path, results: dict[str, tuple[int, str]]) -> Outputs:
    """docs/seats.md: its blocks from ``results``, what :func:`~tests.docs.commands.seats_page_run` gave."""

    def out(line: str) -> str:
        text = results[line][1]
        for folder in {str(work), str(work.resolve())}:
            text = text.replace(folder, SHOWN_FOLDER)
        return text.rstrip("\n")

    listed = next(line for line in out("sparring list").splitlines() if line.startswith("tag: "))
    errors = [line for line, (code, _) in results.items() if code != 0]
    replay = [frame for frame in out("sparring replay tag.parquet --print").split("\n\n") if frame.strip()]
    episode0 = [frame for frame in replay if frame.startswith("tag episode 0 ")]
    blocks = {
        "list-check-tag": Shown(f"{listed}\n{out('sparring check tag')}", exact=True),
        "train-tag": Shown(fold_repeats(out("sparring train tag --steps 500000")), exact=False),
        "eval-tag": Shown(fold_repeats(out("sparring eval tag --checkpoint RUN")), exact=False),
        "errors-tag": Shown("\n".join(out(line) for line in errors), exact=True),
        "record-tag": Shown(
            fold_repeats(out("sparring record tag --checkpoint RUN --episodes 20 --out tag.parquet")), exact=False
        ),
        "replay-tag": Shown("\n\n".join([episode0[0], *episode0[-2:]]), exact=False),
    }
    return Outputs(blocks)


def evaluated_win(out: str) -> tuple[float, float, float]:
    """The evaluated seat's win rate and its 95% interval, from an eval report's first lines."""
    m = re.search(r"^  win +\d+ +(\d\.\d+) +95% CI \[(\d\.\d+), (\d\.\d+)\]$", out, re.M)
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


def seats_table(text: str, results: dict[str, tuple[int, str]]) -> str:
    """The seats page with its table of runner wins written from ``results`` (each row from its command)."""

    def row(m: re.Match) -> str:
        rate, lo, hi = evaluated_win(results[SEATS_TABLE[m[1], m[2]]][1])
        return f"| {m[1]} | {m[2]} | {rate:.3f} [{lo:.3f}, {hi:.3f}] |"

    return TABLE_ROW.sub(row, text)


def kit(work: Path) -> Outputs:
    """docs/kit.md: the refusal of a recording whose state was edited (squared's ``target`` set to 1e8)."""
    from tests import trust_plant

    with in_folder(work):
        run("sparring record squared --policy random --episodes 1 --out rec.parquet", work)
        trust_plant.recording("rec.parquet", "target", 100_000_000)
        refused = run("sparring replay rec.parquet --print", work, expected=2)
    return Outputs({"refused-state": Shown(refused, exact=True)})


def checker(work: Path) -> Outputs:
    """docs/checker.md: the stall audit's warning on the test suite's toy whose time limit pays for stalling."""
    from tests.kit import toys

    with in_folder(work), registered({toys.PaysForStalling.name: toys.PaysForStalling}):
        out = run(f"sparring check {toys.PaysForStalling.name}", work)
    return Outputs({"stall-warning": Shown(lines_from(out, "WARN stall audit").splitlines()[0].strip(), exact=True)})


def judge(work: Path) -> Outputs:
    """docs/judge.md: a round robin of duel's scripted ladder, and the planner with noise among planners in town."""
    with in_folder(work):
        blocks = {name: Shown(done_line_only(run(line, work)), exact=False) for name, line in JUDGE_COMMANDS.items()}
    return Outputs(blocks)


def done_line_only(text: str) -> str:
    """``text`` with the progress display's lines cut to its last (``... done, ...``), first, as the display
    writes it before the report; the report's own rows stay, whatever their shape."""
    lines = text.splitlines()
    progress = [line for line in lines if PROGRESS.match(line)]
    return "\n".join(progress[-1:] + [line for line in lines if not PROGRESS.match(line)])


JUDGE_COMMANDS = {"judge-duel": JUDGE_DUEL, "judge-town": JUDGE_TOWN}

# docs/envs.md: each built-in env's scripted players, evaluated (the README's table of envs cites these blocks)
ENV_EVALS = {
    "eval-duel": ("sparring eval duel --policy scripted:tribrid --episodes 1000",),
    "eval-serpent": (
        "sparring eval serpent --policy scripted:reference --episodes 1000",
        "sparring eval serpent --policy scripted:reactive --episodes 1000",
    ),
    "eval-gauntlet": ("sparring eval gauntlet --policy scripted:expert --episodes 500",),
    "eval-town": ("sparring eval town --policy scripted:planner --episodes 125 --metric goal_rate",),
}


def eval_head(text: str) -> str:
    """An eval report's first lines: its header and the evaluated seat's win, loss and draw, and the line of the
    metric asked for (``--metric``), if any; the progress display's lines left out. A scripted player on the
    default seed plays the same episodes on every run, so these lines are the same bytes every time."""
    lines = [line for line in text.splitlines() if not PROGRESS.match(line)]
    start = next(i for i, line in enumerate(lines) if re.match(r"\w+: \d+ episodes, seat ", line))
    metric = [line for line in lines if re.match(r"  \w+: \d+/\d+ seat-episodes", line)]
    return "\n".join(lines[start : start + 4] + metric)


def envs(work: Path) -> Outputs:
    """docs/envs.md: the scripted players of each built-in env, the head of their eval reports."""
    with in_folder(work):
        blocks = {
            name: Shown("\n\n".join(eval_head(run(line, work)) for line in lines), exact=True)
            for name, lines in ENV_EVALS.items()
        }
    return Outputs(blocks)


PAGES = {
    "tutorial.md": tutorial,
    "seats.md": seats,
    "kit.md": kit,
    "checker.md": checker,
    "judge.md": judge,
    "envs.md": envs,
}
"""The pages with output blocks; each function takes the work folder (seats.md also the commands' results)."""


def differences(page: str, outputs: Outputs) -> list[str]:
    """How ``docs/PAGE``'s output blocks differ from ``outputs`` (exactly, or by shape), one message per block."""
    found = {b.name: b for b in marked_blocks((ROOT / "docs" / page).read_text()) if b.kind == "output"}
    out = []
    if set(found) != set(outputs.blocks):
        out.append(f"docs/{page} has output blocks {sorted(found)}, its commands make {sorted(outputs.blocks)}")
    for name in sorted(set(found) & set(outputs.blocks)):
        shown, now = found[name].body, outputs.blocks[name]
        if now.exact and shown != now.body:
            out.append(f"docs/{page} block {name}: the page shows\n{shown}\n--- the command prints\n{now.body}")
        elif not now.exact and shape(shown) != shape(now.body):
            page_shape, now_shape = "\n".join(shape(shown)), "\n".join(shape(now.body))
            out.append(f"docs/{page} block {name}: the page's shape\n{page_shape}\n--- the command's\n{now_shape}")
    if out:
        out.append(f"rewrite the blocks with: python -m tests.docs.regen {page}")
    return out
