"""Running the docs' `sparring` commands as a user would, in-process: in a folder, with the page's env registered.

Used by the docs tests and by ``python -m tests.docs.regen``, so the test and the pages' output blocks run the
very same commands. A command's stdout and stderr go to one buffer, in the order a terminal shows them.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from sparring.cli import main
from sparring.kit import registry

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial"
TAG = ROOT / "docs" / "seats" / "tag"
TAG_FILES = ("world.py", "scripted.py", "env.py", "defaults.toml")


def sparring(line: str) -> tuple[int, str]:
    """Exit code and what ``sparring ARGS`` printed (``line`` as typed: ``"sparring check catch"``)."""
    argv = line.split()
    if argv[0] != "sparring":
        raise ValueError(f"not a sparring command: {line!r}")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(argv[1:])
    return code, out.getvalue()


@contextlib.contextmanager
def registered(envs: dict[str, type]) -> Iterator[None]:
    """The registry with ``envs`` added (name: class, replacing an env of that name), as it was again afterwards."""
    saved = dict(registry._REGISTRY)
    try:
        for name, cls in envs.items():
            registry.register(name, cls, replace=True)
        yield
    finally:
        registry._REGISTRY.clear()
        registry._REGISTRY.update(saved)


def load_env(path: Path, module: str, attr: str) -> type:
    """The class ``attr`` of the env file ``path``, imported as ``module`` (Numba's cache finds kernels by it)."""
    spec = importlib.util.spec_from_file_location(module, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return getattr(loaded, attr)


@functools.cache
def load_step(k: int) -> type:
    """The ``Catch`` class of ``docs/tutorial/step<k>/env.py`` (loaded once: each load compiles anew)."""
    return load_env(TUTORIAL / f"step{k}" / "env.py", f"tutorial_catch_step{k}", "Catch")


def page_commands(text: str) -> list[tuple[str, int]]:
    """(command line, expected exit code) for every line of a page's bash blocks, comments removed."""
    out = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.M | re.S):
        for line in block.splitlines():
            command, _, comment = line.partition("  #")
            if command.strip():
                code = re.search(r"exit code (\d+)", comment)
                out.append((command.strip(), int(code.group(1)) if code else 0))
    return out


def pip_install(package: Path, site: Path) -> Path:
    """The package folder ``package`` pip-installed offline into ``site`` (without its dependencies); ``site``."""
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*pip, "--target", str(site), str(package)], check=True, capture_output=True)
    return site


def install_tag(work: Path) -> Path:
    """The seats page's env files over the template's in ``work/tag``, pip-installed offline into ``work/site``."""
    src = work / "tag" / "src" / "tag"
    (src / "env.py").unlink()
    for name in TAG_FILES:
        shutil.copy(TAG / name, src / name)
    return pip_install(work / "tag", work / "site")


def matches_elided(comment: str, line: str) -> bool:
    """Whether ``line`` is ``comment`` with its `` ... `` (or a trailing `` ...``) standing for what it left out."""
    parts = re.split(r" \.\.\.(?: |$)", comment.strip())
    return (
        re.fullmatch(
            ".*".join(re.escape(part) for part in parts) + (".*" if comment.strip().endswith("...") else ""), line
        )
        is not None
    )


def list_comment(text: str) -> str:
    """The comment after ``sparring list`` in a page's bash blocks (what the page says it prints)."""
    return re.search(r"^sparring list +# (.+)$", text, re.M)[1]


@contextlib.contextmanager
def in_folder(work: Path) -> Iterator[None]:
    """Commands run in ``work`` (the current folder as it was again afterwards)."""
    here = os.getcwd()
    os.chdir(work)
    try:
        yield
    finally:
        os.chdir(here)


@contextlib.contextmanager
def seats_page_run(page: Path, work: Path) -> Iterator[dict[str, tuple[int, str]]]:
    """Every command of the seats page run in ``work``, in order: {line as on the page: (exit code, output)}.

    ``sparring new`` writes the template package; at the page's ``pip install -e ./tag`` the page's env files go
    over the template's and the package is pip-installed offline into ``work/site``, on ``sys.path`` for the
    commands after it (its ``sparring.envs`` entry point registers ``tag``). ``RUN`` is the run folder that
    ``sparring train`` printed. A command must exit as its comment says (``exit code N``), else with 0.
    ``tag`` stays registered while the context is open; then the registry, ``sys.path`` and ``sys.modules``
    are as they were.
    """
    results, run_dir, site = {}, None, None
    try:
        with registered({}):
            with in_folder(work):
                for line, expected in page_commands(page.read_text()):
                    if line == "pip install -e ./tag":
                        site = str(install_tag(work))
                        sys.path.insert(0, site)
                        importlib.invalidate_caches()
                        continue
                    if not line.startswith("sparring "):
                        raise AssertionError(f"the page has a command the test does not run: {line!r}")
                    if "RUN" in line.split():
                        if not run_dir:
                            raise AssertionError(f"{line!r} needs the run folder of a `sparring train` above it")
                    code, out = sparring(" ".join(run_dir if a == "RUN" else a for a in line.split()))
                    if code != expected:
                        raise AssertionError(f"{line!r} exited {code}, expected {expected}\n{out}")
                    results[line] = (code, out)
                    if line.split()[1] == "train":
                        run_dir = re.search(r"^run folder: (\S+)$", out, re.M).group(1)
            yield results
    finally:
        if site in sys.path:
            sys.path.remove(site)
        for name in [m for m in sys.modules if m == "tag" or m.startswith("tag.")]:
            del sys.modules[name]
