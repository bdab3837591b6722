"""Rewrite the docs' marked blocks from their sources: ``python -m tests.docs.regen [PAGE ...] [--code-only]``.

Code blocks (``<!-- file: PATH -->``) are copied from the files they show, in every page. Output blocks
(``<!-- output: NAME -->``) are what the page's commands print now (tests/docs/outputs.py), for the pages
named (default: every page that has some), run in-process (set NUMBA_CACHE_DIR as for the tests). The
tutorial trains for its 2 M steps, so all pages take a few minutes on two cores. The seats page's table
of runner wins and the files the tutorial shows (its replay, its training plot) are rewritten from the
same runs.

The pages are Markdown a person edits, with the code and the output inline so that GitHub shows them; this
script keeps them equal to their sources, and the tests (tests/docs/test_code_blocks.py, test_outputs.py,
test_seats_page.py) fail when a page and its source part, so the pages cannot drift unnoticed. Generating
whole pages from templates would do the same with a second copy of every page to keep."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from tests.docs.blocks import PAGES as DOCS
from tests.docs.blocks import file_text, marked_blocks, with_bodies
from tests.docs.commands import ROOT, seats_page_run
from tests.docs.outputs import PAGES, SHOWN_FOLDER, seats, seats_table


def write_code_blocks() -> list[str]:
    """Every page's ``file:`` blocks from their files; the pages that changed."""
    changed = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text()
        bodies = {("file", b.name): file_text(b.name) for b in marked_blocks(text) if b.kind == "file"}
        new = with_bodies(text, bodies)
        if new != text:
            page.write_text(new)
            changed.append(str(page.relative_to(ROOT)))
    return changed


def write_outputs(name: str) -> None:
    """The output blocks of ``docs/NAME`` (and its table and files) from a fresh run of its commands."""
    page = DOCS / name
    with tempfile.TemporaryDirectory(prefix="sparring-docs-") as tmp:
        work = Path(tmp)
        text = page.read_text()
        if name == "seats.md":
            with seats_page_run(page, work) as results:
                outputs = seats(work, results)
                text = seats_table(text, results)
        else:
            outputs = PAGES[name](work)
        wanted = {b.name for b in marked_blocks(text) if b.kind == "output"}
        if wanted != set(outputs.blocks):
            raise SystemExit(f"docs/{name}: the page's output blocks {sorted(wanted)} are not {sorted(outputs.blocks)}")
        page.write_text(with_bodies(text, {("output", k): v.body for k, v in outputs.blocks.items()}))
        for dest, source in outputs.files.items():
            if source.suffix == ".html":  # the page names the checkpoint it played: under SHOWN_FOLDER, as the blocks
                (ROOT / dest).write_text(source.read_text().replace(str(work), SHOWN_FOLDER))
            else:
                shutil.copyfile(source, ROOT / dest)
    print(f"docs/{name}: {len(outputs.blocks)} output blocks{''.join(f', {d}' for d in outputs.files)}")


def main(argv: list[str] | None = None) -> int:
    """Rewrite the code blocks, then the output blocks of the pages asked for."""
    parser = argparse.ArgumentParser(prog="python -m tests.docs.regen", description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="*", metavar="PAGE", help=f"pages to rerun (default all): {sorted(PAGES)}")
    parser.add_argument("--code-only", action="store_true", help="copy the code blocks only, run nothing")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.pages) - set(PAGES))
    if unknown:
        parser.error(f"unknown page(s) {unknown}; pages with output blocks: {sorted(PAGES)}")
    for page in write_code_blocks():
        print(f"{page}: code blocks copied from their files")
    if not args.code_only:
        for name in args.pages or sorted(PAGES):
            write_outputs(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
