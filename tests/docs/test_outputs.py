"""The docs' output blocks are what their commands print now (tests/docs/outputs.py runs the commands).

Exact where another run prints the same; by shape (headers, column names, labels, order) where training
makes other figures. The tutorial's 2 M-step training is replaced by a three-iteration one, which prints the
same shape; ``python -m tests.docs.regen`` reruns everything at the pages' own settings and rewrites them.
The seats page's blocks are checked in test_seats_page.py, from the run of its commands there.
"""

import importlib
import re
import sys

import pytest

from tests.docs.blocks import PAGES, ROOT, marked_blocks
from tests.docs.commands import (
    in_folder,
    list_comment,
    matches_elided,
    page_commands,
    pip_install,
    registered,
    sparring,
)
from tests.docs.outputs import (
    CATCH_EVAL,
    CATCH_RECORD,
    CATCH_REPLAY,
    CATCH_TRAIN,
    ENV_EVALS,
    JUDGE_COMMANDS,
    PAGES as PRODUCERS,
    checker,
    differences,
    envs,
    judge,
    kit,
    tutorial,
)

PAGE_FILES = sorted(PAGES.rglob("*.md"))


@pytest.mark.parametrize("page", PAGE_FILES, ids=[str(p.relative_to(ROOT)) for p in PAGE_FILES])
def test_every_output_block_is_marked_with_what_writes_it(page):
    """A ```text block or one without a language (the docs' output blocks) carries an output marker; a page with
    one has a producer."""
    text = page.read_text()
    marked = {b.span[0] for b in marked_blocks(text) if b.kind == "output"}
    for m in re.finditer(r"^( *)```(\w*)\n(.*?)^\1```", text, re.M | re.S):
        if m[2] in ("", "text"):
            where = f"{page.relative_to(ROOT)} line {text.count(chr(10), 0, m.start()) + 1}"
            assert m.start(3) in marked, f"{where}: an output block without an output marker"
    if marked:
        assert page.name in PRODUCERS, f"{page.relative_to(ROOT)} has output blocks but no producer in outputs.py"


def test_the_tutorial_runs_the_commands_it_shows():
    shown = {line for line, _ in page_commands((PAGES / "tutorial.md").read_text())}
    assert {CATCH_TRAIN, CATCH_EVAL, CATCH_RECORD, CATCH_REPLAY} <= shown


def test_the_tutorial_prose_cites_its_blocks():
    """The figures the prose gives are those of the train and eval blocks they talk about."""
    text = (PAGES / "tutorial.md").read_text()
    words = " ".join(text.split())
    blocks = {b.name: b.body for b in marked_blocks(text)}
    done = next(line for line in blocks["train-catch"].splitlines() if line.startswith("train catch: done"))
    last = float(re.search(r"caught=([\d.]+)", done)[1])
    minutes = int(re.search(r"(\d+):\d+ elapsed", done)[1])
    assert minutes < 1 and "training took under a minute" in words
    assert f"to {last:.0%} (`plots/learning.png`" in words and f"from about 0.15 to {last:.2f}" in words
    caught = float(re.search(r"^ +means: .*caught=([\d.]+)", blocks["eval-catch"], re.M)[1])
    assert f"catches {caught:.0%} of the balls" in words
    lost_in = re.search(r"^ +lost in phase .*\n((?: +\w+ +\d+\n)+)", blocks["eval-catch"], re.M)
    if "Every lost episode ended in the `bounced` phase" in words:
        assert [row.split()[0] for row in lost_in[1].splitlines()] == ["bounced"], blocks["eval-catch"]


def test_the_tutorial_blocks(tmp_path):
    assert differences("tutorial.md", tutorial(tmp_path, quick=True)) == []


def test_the_kit_page_blocks(tmp_path):
    assert differences("kit.md", kit(tmp_path)) == []


def test_the_checker_page_blocks(tmp_path):
    assert differences("checker.md", checker(tmp_path)) == []


def test_the_judge_page_blocks(tmp_path):
    assert differences("judge.md", judge(tmp_path)) == []


def test_the_envs_page_blocks(tmp_path):
    assert differences("envs.md", envs(tmp_path)) == []


def test_the_envs_page_shows_the_commands_it_runs():
    shown = {line for line, _ in page_commands((PAGES / "envs.md").read_text())}
    assert {line for lines in ENV_EVALS.values() for line in lines} <= shown


def test_the_judge_page_shows_the_commands_it_runs():
    shown = {line for line, _ in page_commands((PAGES / "judge.md").read_text())}
    assert set(JUDGE_COMMANDS.values()) <= shown


def _ratings(block: str) -> list[tuple[str, str, str, int]]:
    """(brain, mu, sigma, games) of a judge block's ratings table, best first, figures as printed."""
    rows = re.findall(r"^ +\d+  (\S+) +(-?\d+\.\d\d) +(\d+\.\d\d) +-?\d+\.\d\d +(\d+)$", block, re.M)
    return [(brain, mu, sigma, int(games)) for brain, mu, sigma, games in rows]


def _matrix(block: str) -> list[list[str]]:
    """The cells of a judge block's cross-play matrix as printed (``-`` on a round robin's diagonal)."""
    rows = re.findall(r"^  \[\d+\] +((?:(?:-|\d\.\d{3} \[\d\.\d\d,\d\.\d\d\]) *)+)$", block, re.M)
    return [re.findall(r"-|\d\.\d{3} \[\d\.\d\d,\d\.\d\d\]", row) for row in rows]


def _interval(cell: str) -> tuple[float, float]:
    low, high = re.search(r"\[([\d.]+),([\d.]+)\]", cell).groups()
    return float(low), float(high)


def test_the_judge_prose_cites_its_blocks():
    """The duel paragraph's figures are the block's; the town paragraph's claims hold in its block."""
    text = (PAGES / "judge.md").read_text()
    words = " ".join(text.split())
    blocks = {b.name: b.body for b in marked_blocks(text)}
    duel = blocks["judge-duel"]
    ratings = _ratings(duel)
    ladder = ["scripted:robot", "scripted:tribrid", "scripted:reactive", "scripted:random", "random"]
    assert [brain for brain, *_ in ratings] == ladder, duel
    (best, mu, sigma, _), *rest = ratings
    assert f"`{best}` at mu {mu} (sigma {sigma})" in words
    assert all(f"`{brain}` at mu {mu}" in words for brain, mu, _, _ in rest)
    matrix = _matrix(duel)
    assert f"The robot beats the tribrid {matrix[0][1]} of the time" in words
    assert f"the tribrid beats the reactive fighter {matrix[1][2]}" in words
    a, b = re.search(r"^  \[4\] vs \[5\]: +(\d+) - (\d+) ", duel, re.M).groups()
    assert f"split their games, {a} to {b}" in words
    assert all(_interval(cell)[0] <= 0.5 <= _interval(cell)[1] for cell in (matrix[3][4], matrix[4][3]))

    town = blocks["judge-town"]
    goal = [float(cell.split()[0]) for (cell,) in _matrix(town)]
    assert goal == sorted(goal, reverse=True) and len(set(goal)) == len(goal), town  # falls as the noise grows
    background = [float(x) for x in re.findall(r"^ +background +(\d\.\d{3}) ", town, re.M)]
    assert background[0] > max(background[1:]), town
    trades = [float(x) for x in re.findall(r"trades per town (\d+\.\d) ", town)]
    assert trades[0] < min(trades[1:3]), town  # planner:0.1 and planner:0.3 trade more than planners alone
    ratings = _ratings(town)
    assert [brain for brain, *_ in ratings] == [
        "scripted:planner",
        "scripted:planner:0.1",
        "scripted:planner:0.3",
        "random",
    ]
    assert (
        f"rated from {ratings[0][3]:,} paired games" in words and f"each of the others from {ratings[1][3]:,}," in words
    )
    assert {games for *_, games in ratings[1:]} == {ratings[1][3]}


def test_the_tutorial_says_what_sparring_list_prints_for_the_template(tmp_path):
    """Section 0: ``sparring new catch``, the package installed, then ``sparring list`` as the page's comment says."""
    site = str(tmp_path / "site")
    try:
        with in_folder(tmp_path), registered({}):
            assert sparring("sparring new catch")[0] == 0
            sys.path.insert(0, str(pip_install(tmp_path / "catch", tmp_path / "site")))
            importlib.invalidate_caches()
            code, out = sparring("sparring list")
    finally:
        if site in sys.path:
            sys.path.remove(site)
        for name in [m for m in sys.modules if m == "catch" or m.startswith("catch.")]:
            del sys.modules[name]
    line = next(line for line in out.splitlines() if line.startswith("catch: "))
    comment = list_comment((PAGES / "tutorial.md").read_text())
    assert code == 0 and matches_elided(comment, line), f"the page says {comment!r}; sparring list prints {line!r}"


def test_an_elided_comment_matches_the_lines_it_shortens():
    line = "catch: agents=1 seats=['player(outside)'] obs=12xfloat32 heads=[move=5] from=sparring-catch"
    assert matches_elided("catch: agents=1 seats=['player(outside)'] ... from=sparring-catch", line)
    assert matches_elided("catch: agents=1 ...", line)
    assert not matches_elided("catch: agents=1 obs=12xfloat32 ... from=sparring-catch", line)  # seats left out
    assert not matches_elided("catch: agents=1 ... from=sparring-tag", line)
