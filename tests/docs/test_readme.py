"""README.md is a front door: short, its set-up commands first, its tables true, its figures the docs' own.

The README reads in five minutes: at most :data:`MAX_LINES` lines, `make demo` and `make test` on its first
screen (CI's ``.ci/run`` runs that test command). Its table of commands has one row per ``sparring``
subcommand, as the CLI's parser has them; its table of envs one row per built-in env of the registry. A
figure in the env table is an output block of docs/envs.md (``python -m tests.docs.regen envs.md`` reruns
them and ``test_outputs.py`` compares them exactly): each number of a row's result is in the block of the
row's command, and a row whose command makes no block gives no number. Every relative link resolves, to a
heading where it names one (GitHub's anchors: the README is read there). The Python snippet runs, and is
docs/index.md's.
"""

from __future__ import annotations

import argparse
import glob
import os
import re

import pytest

from sparring.cli import build_parser
from sparring.cli.overrides import pull_overrides
from sparring.kit import registry
from tests.docs.blocks import PAGES, ROOT, marked_blocks
from tests.docs.outputs import ENV_EVALS

README = ROOT / "README.md"
MAX_LINES = 100
FIRST_SCREEN = 25  # lines: what a terminal or GitHub shows before the first scroll
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def text() -> str:
    return README.read_text()


def tables(source: str) -> list[list[list[str]]]:
    """Every Markdown table of ``source``: its rows (header first, the rule left out) as lists of cells."""
    found, rows = [], []
    for line in [*source.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                rows.append(cells)
        elif rows:
            found.append(rows)
            rows = []
    return found


def table(header: str) -> list[list[str]]:
    """The body rows of the README's table whose first column is ``header``."""
    matches = [t for t in tables(text()) if t[0][0] == header]
    assert len(matches) == 1, f"README.md should have one table whose first column is {header!r}"
    return matches[0][1:]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def code_spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def sparring_lines() -> list[str]:
    """Every ``sparring ...`` command line the README gives to run: its bash blocks and the env table's
    ``reproduce`` column (the command table's cells are checked by name: they show placeholders)."""
    lines = []
    for block in re.findall(r"^```bash\n(.*?)^```", text(), re.M | re.S):
        lines += [line.partition("  #")[0].strip() for line in block.splitlines()]
    header = next(t for t in tables(text()) if t[0][0] == "env")[0]
    lines += [span for row in table("env") for span in code_spans(row[header.index("reproduce")])]
    return [line for line in lines if line.startswith("sparring ")]


def test_the_readme_reads_in_five_minutes():
    count = len(text().splitlines())
    assert count <= MAX_LINES, f"README.md has {count} lines, more than {MAX_LINES}: move detail to a page of docs/"


def test_the_set_up_commands_are_on_the_first_screen_and_ci_runs_the_test_command():
    first = text().splitlines()[:FIRST_SCREEN]
    for target in ("demo", "test"):
        assert any(line.startswith(f"make {target} ") for line in first), f"`make {target}` not in the first lines"
    makefile = (ROOT / "Makefile").read_text()
    assert all(re.search(rf"^{t}:", makefile, re.M) for t in ("demo", "test", "smollm2")), "a make target is gone"
    ci = [line.partition("#")[0].strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "make test" in ci, ".ci/run no longer runs the README's test command, `make test`"
    if "`make smollm2` and `make test`" in " ".join(text().split()):
        assert ci.index("make smollm2") < ci.index("make test"), "the README says .ci/run runs make smollm2 first"


def test_the_command_table_has_one_row_per_sparring_subcommand():
    names = []
    for row in table("command"):
        m = re.fullmatch(r"`sparring ([\w-]+)(?: [^`]*)?`", row[0])
        assert m, f"a command cell should be `sparring NAME ...`: {row[0]!r}"
        names.append(m[1])
    real = subcommands()
    assert sorted(set(names) - set(real)) == [], f"rows for commands the CLI does not have (it has {sorted(real)})"
    assert sorted(set(real) - set(names)) == [], "sparring subcommands without a row in the README's table"
    assert len(names) == len(set(names)), "a command has two rows"


def as_a_shell_would(args: list[str]) -> list[str]:
    """``args`` with each glob expanded in the current folder, as a shell does (a run folder the demo made
    stands in for ``runs/squared-*``)."""
    out = []
    for arg in args:
        if "*" in arg:
            os.makedirs(arg.replace("*", "demo"), exist_ok=True)
            out += sorted(glob.glob(arg))
        else:
            out.append(arg)
    return out


def test_every_sparring_command_the_readme_shows_parses(tmp_path, monkeypatch):
    """Each shown line is a real subcommand with flags the parser knows (nothing runs), taken in order in one
    folder as a shell would (a glob expanded, a file an earlier line writes with ``--out`` there for the next);
    ``--brain NAME`` of an installed model names one that sparring knows."""
    lines = sparring_lines()
    assert len(lines) >= 5, lines
    monkeypatch.chdir(tmp_path)
    for line in lines:
        rest, _ = pull_overrides(as_a_shell_would(line.split()[1:]))
        try:
            args, extra = build_parser().parse_known_args(rest)
        except SystemExit as exc:
            pytest.fail(f"README.md: {line!r} does not parse (exit {exc.code})")
        assert extra == [], f"README.md: {line!r} has arguments the parser does not know: {extra}"
        if getattr(args, "out", None) and not os.path.exists(args.out):
            open(args.out, "w").close()
    brains = {b for line in lines for b in re.findall(r"--brain (\S+)", line)}
    assert "smollm2" in brains, "the README should show the real small language model, `--brain smollm2`"
    from sparring.lm.model_spec import NAMED_MODELS

    named = {b for b in brains if ":" not in b and b not in ("scripted", "random")}
    assert named <= set(NAMED_MODELS), (
        f"brains by name that sparring does not know: {sorted(named - set(NAMED_MODELS))}"
    )


def built_in_envs() -> list[str]:
    """The registry's envs that this package registers (not those of installed packages)."""
    out = []
    for name in registry.names():
        target = registry.target(name)
        module = target.partition(":")[0] if isinstance(target, str) else target.__module__
        if module.startswith("sparring.envs."):
            out.append(name)
    return out


def test_every_built_in_env_has_a_row():
    listed = [re.sub(r"\[(`[^`]+`)\]\([^)]*\)", r"\1", row[0]) for row in table("env")]
    names = {name for cell in listed for name in code_spans(cell)}
    missing = sorted(set(built_in_envs()) - names)
    assert missing == [], f"registered envs without a row (or a name in a row) of the README's env table: {missing}"


def env_blocks() -> dict[str, str]:
    """{command: the part of its docs/envs.md output block that the command printed}."""
    bodies = {b.name: b.body for b in marked_blocks((PAGES / "envs.md").read_text()) if b.kind == "output"}
    out = {}
    for name, lines in ENV_EVALS.items():
        parts = bodies[name].split("\n\n")
        assert len(parts) == len(lines), f"docs/envs.md block {name} should have a part per command of {lines}"
        out.update(zip(lines, parts))
    return out


def test_each_figure_of_the_env_table_is_in_the_docs_block_of_its_command():
    header = tables(text())[[t[0][0] for t in tables(text())].index("env")][0]
    result, command = header.index(next(h for h in header if h.startswith("measured"))), header.index("reproduce")
    blocks = env_blocks()
    for row in table("env"):
        (line,) = code_spans(row[command])
        figures = NUMBER.findall(row[result])
        if line not in blocks:
            assert figures == [], f"{row[0]}: figures {figures} that no docs block checks (its command: {line!r})"
            continue
        shown = set(NUMBER.findall(blocks[line]))
        assert figures and set(figures) <= shown, (
            f"{row[0]}: the README says {row[result]!r}; {line!r} printed (docs/envs.md):\n{blocks[line]}"
        )


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    plain = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", plain).replace(" ", "-")


def test_every_relative_link_of_the_readme_resolves():
    links = [link for link in LINK.findall(text()) if not re.match(r"\w+:", link)]
    assert any(link.startswith("docs/") for link in links), "the README links into docs/"
    for link in links:
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.exists(), f"README.md links to {link!r}: {path} does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", target.read_text(), re.M)
            anchors = {github_anchor(h) for h in headings}
            assert anchor in anchors, f"README.md links to {link!r}: no such heading in {path}"
    on_nav = set(re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))
    linked = {link.partition("#")[0].removeprefix("docs/") for link in links if link.startswith("docs/")}
    assert linked <= on_nav, f"README.md links to docs pages that mkdocs.yml's nav leaves out: {linked - on_nav}"


def test_the_python_snippet_runs_and_is_the_front_page_of_the_docs():
    (snippet,) = re.findall(r"^```python\n(.*?)^```", text(), re.M | re.S)
    assert snippet in re.findall(r"^```python\n(.*?)^```", (PAGES / "index.md").read_text(), re.M | re.S)
    scope: dict = {}
    exec(compile(snippet, "README.md", "exec"), scope)
    assert scope["obs"].shape[0] == scope["rew"].shape[0] == 1024  # squared has one agent per env


def test_github_anchors_are_what_github_makes():
    assert github_anchor("squared") == "squared"
    assert github_anchor("Measured: gauntlet from wave 1") == "measured-gauntlet-from-wave-1"
    assert (
        github_anchor("Data-parallel training on Ray: `--train.vec ray`")
        == "data-parallel-training-on-ray---trainvec-ray"
    )
