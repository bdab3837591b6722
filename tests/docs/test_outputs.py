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
    PAGES as PRODUCERS,
    checker,
    differences,
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
