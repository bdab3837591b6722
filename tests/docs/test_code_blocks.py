"""The code in the docs' Markdown is the tested files themselves, so the raw pages (as GitHub shows them) read.

Every ``<!-- file: PATH -->`` block must equal the file (or its ``# region NAME`` lines) that the tests run;
``python -m tests.docs.regen --code-only`` copies them. The code is inline rather than included at build
time (pymdownx.snippets) so that the Markdown shows it without a build.
"""

import re

import pytest

from tests.docs.blocks import PAGES, ROOT, file_text, marked_blocks

PAGE_FILES = sorted(PAGES.rglob("*.md"))
FILE_BLOCKS = [(page, b) for page in PAGE_FILES for b in marked_blocks(page.read_text()) if b.kind == "file"]


@pytest.mark.parametrize("page,block", FILE_BLOCKS, ids=[f"{p.relative_to(ROOT)}:{b.name}" for p, b in FILE_BLOCKS])
def test_each_code_block_is_its_file(page, block):
    assert block.body == file_text(block.name), (
        f"{page.relative_to(ROOT)}: the block of {block.name} differs from the file; "
        "copy it with: python -m tests.docs.regen --code-only"
    )


def test_the_tutorial_and_the_seats_page_show_their_env_files():
    shown = {b.name for _, b in FILE_BLOCKS}
    assert {"docs/tutorial/step1/env.py", "docs/tutorial/step2/env.py", "docs/tutorial/step3/env.py#slow"} <= shown
    assert {f"docs/seats/tag/{f}" for f in ("world.py", "scripted.py", "env.py", "defaults.toml")} <= shown


@pytest.mark.parametrize("page", PAGE_FILES, ids=[str(p.relative_to(ROOT)) for p in PAGE_FILES])
def test_no_page_includes_code_at_build_time(page):
    markers = re.findall(r"^\s*-{2}8<-{2}.*$", page.read_text(), re.M)
    assert not markers, f"{page.relative_to(ROOT)} has snippet markers {markers}: inline the code in a file: block"
