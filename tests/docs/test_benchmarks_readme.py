"""benchmarks/README.md has one row a script, and every file it says cites a script names it there.

A row's "cited by" cell lists files as `PATH`, a Markdown page's with `§ HEADING`: the script's file name (or,
from a Python file, its import) must then appear in that heading's own text, up to the next heading. Every
script is cited: one no file cites is removed or folded into one that is.
"""

import re

import pytest

from tests.docs.blocks import ROOT

BENCHMARKS = ROOT / "benchmarks"
ROW = re.compile(r"^\| \[`(?P<script>\w+\.py)`\]\((?P=script)\) \| [^|]+ \| (?P<cited>[^|]+) \| [^|]+ \|$", re.M)
CITER = re.compile(r"`(?P<path>[^`]+)`(?: § (?P<heading>.+))?")


def rows() -> dict[str, str]:
    """{script file name: its "cited by" cell}."""
    return {m["script"]: m["cited"].strip() for m in ROW.finditer((BENCHMARKS / "README.md").read_text())}


def citers(cell: str) -> list[tuple[str, str | None]]:
    """The (path, heading or None) pairs of a "cited by" cell."""
    found = [CITER.fullmatch(part.strip()) for part in cell.split(";")]
    assert all(found), f"a 'cited by' entry is not `PATH` or `PATH` § HEADING: {cell!r}"
    return [(m["path"], m["heading"]) for m in found]


def section(text: str, heading: str) -> str:
    """The text under a Markdown heading, up to the next heading of any level."""
    m = re.search(rf"^#+ {re.escape(heading)}\n(.*?)(?=^#+ |\Z)", text, re.M | re.S)
    assert m, f"no heading {heading!r}"
    return m[1]


def names(text: str, script: str) -> bool:
    stem = script.removesuffix(".py")
    return bool(re.search(rf"\b{re.escape(script)}\b|^(?:from {stem} import|import {stem}\b)", text, re.M))


def test_every_script_has_one_row_and_every_row_a_script():
    table = rows()
    readme = (BENCHMARKS / "README.md").read_text()
    on_disk = {p.name for p in BENCHMARKS.glob("*.py") if p.name != "__init__.py"}
    assert sorted(on_disk - set(table)) == [], "scripts without a row in benchmarks/README.md"
    assert sorted(set(table) - on_disk) == [], "rows of benchmarks/README.md for scripts that do not exist"
    assert len(re.findall(r"^\| \[`", readme, re.M)) == len(table), "a row of benchmarks/README.md does not parse"


@pytest.mark.parametrize("script,cell", sorted(rows().items()))
def test_each_citer_names_the_script(script, cell):
    for path, heading in citers(cell):
        file = ROOT / path
        assert file.is_file(), f"{script}: {path} does not exist"
        text = file.read_text()
        if heading is not None:
            assert file.suffix == ".md", f"{script}: a heading of {path}, which is not a Markdown page"
            text = section(text, heading)
        assert names(text, script), f"{path}{' § ' + heading if heading else ''} does not name {script}"
