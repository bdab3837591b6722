"""The marked blocks of the docs pages: code that shows a tested file, output that a command printed.

A marker is an HTML comment alone on its line, then (after at most one blank line) a fenced block; neither
GitHub nor mkdocs shows the comment, so the raw Markdown reads as the page::

    <!-- file: docs/tutorial/step1/env.py -->        the whole file
    <!-- file: docs/tutorial/step3/env.py#slow -->   the lines between ``# region slow`` and ``# endregion slow``
    <!-- output: check-step1 -->                     what a command printed (tests/docs/outputs.py names them)

A block may be indented (inside an admonition): the marker and the fences carry the indent, the body is
read and written without it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "docs"
MARKED = re.compile(
    r"^(?P<indent>[ ]*)<!-- (?P<kind>file|output): (?P<name>\S+) -->\n(?:[ ]*\n)?"
    r"(?P=indent)```(?P<lang>\w*)\n(?P<body>.*?)^(?P=indent)```[ ]*$",
    re.M | re.S,
)
NUMBER = re.compile(r" *[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?")  # 1,441,792 is one number
PROGRESS = re.compile(r"(train|eval|record|explore|distill|grpo|sweep|ablate|bench|judge) \S+: ")  # the display's lines
ROW = re.compile(r" +[^\d\s][^\d]*?(?: +[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)+ *")  # an indented label, then numbers
BOARD = re.compile(r"[.#A-Z]*\.[.#A-Z]*")  # a replay's board row: floor '.', walls '#', pieces as capitals
PIECE = re.compile(r"[A-Z]")


@dataclass(frozen=True)
class Block:
    """One marked block of a page: its marker's kind and name, and its body without the indent."""

    kind: str
    name: str
    lang: str
    body: str
    indent: str
    span: tuple[int, int]  # the body's place in the page text, indent included


def marked_blocks(text: str) -> list[Block]:
    """Every marked block of a page's text, in order."""
    out = []
    for m in MARKED.finditer(text):
        indent = m["indent"]
        lines = m["body"].splitlines()
        stray = [line for line in lines if line.strip() and not line.startswith(indent)]
        if stray:
            raise ValueError(f"block {m['kind']}: {m['name']} has a line outside its indent: {stray[0]!r}")
        body = "\n".join(line[len(indent) :] for line in lines)
        out.append(Block(m["kind"], m["name"], m["lang"], body, indent, m.span("body")))
    return out


def with_bodies(text: str, bodies: dict[tuple[str, str], str]) -> str:
    """The page's text with the body of each block named in ``bodies`` ((kind, name): body) replaced."""
    parts, last = [], 0
    for block in marked_blocks(text):
        new = bodies.get((block.kind, block.name))
        if new is None:
            continue
        lines = [block.indent + line if line.strip() else "" for line in new.rstrip("\n").split("\n")]
        parts += [text[last : block.span[0]], "\n".join(lines) + "\n"]
        last = block.span[1]
    return "".join(parts) + text[last:]


def file_text(name: str) -> str:
    """What a ``file:`` block shows: the file (relative to the repository), or its region ``PATH#REGION``."""
    path, _, region = name.partition("#")
    lines = (ROOT / path).read_text().rstrip("\n").split("\n")
    if not region:
        return "\n".join(lines)
    marks = [i for i, line in enumerate(lines) if line.strip() in (f"# region {region}", f"# endregion {region}")]
    if len(marks) != 2 or lines[marks[0]].strip() != f"# region {region}":
        raise ValueError(f"{path}: region {region!r} needs one '# region {region}' and one '# endregion {region}' line")
    return "\n".join(lines[marks[0] + 1 : marks[1]])


def shape(text: str) -> list[str]:
    """The lines of a command's output with what another run changes taken out, to compare two runs' outputs.

    Numbers become ``#`` (spaces collapsed); a table row (an indented label without digits, then numbers
    only, each after a space) and a table's ``... N phases ...`` note become ``<row>``, since which rows a
    table lists depends on what happened; repeats of a line fold into one; the progress display's lines
    (``train catch: ...``) are left out, since which of them a command writes depends on how long it
    takes; a replay's board row keeps its walls but not its pieces (``C.#R`` becomes ``..#.``), since where a
    trained player walks depends on the machine's arithmetic. Headers, column names, labels of figures and the
    order of sections stay.
    """
    out = []
    for line in text.splitlines():
        if PROGRESS.match(line):
            continue
        row = ROW.fullmatch(line) or line.lstrip().startswith("... ")
        masked = "<row>" if row else _line_shape(line)
        if masked and (not out or out[-1] != masked):
            out.append(masked)
    return out


def fold_repeats(text: str) -> str:
    """``text`` with each run of consecutive lines of one shape (progress lines) cut to its first and last."""
    lines = text.splitlines()
    kept = [
        line
        for i, line in enumerate(lines)
        if not (0 < i < len(lines) - 1 and _line_shape(lines[i - 1]) == _line_shape(line) == _line_shape(lines[i + 1]))
    ]
    return "\n".join(kept)


def _line_shape(line: str) -> str:
    if BOARD.fullmatch(line):
        return PIECE.sub(".", line)
    return " ".join(NUMBER.sub(" #", line).split())
