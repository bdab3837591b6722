"""``sparring new NAME``: write a commented template env that passes the checker and trains as it is.

Where it goes: inside a sparring checkout (a folder at or above ``where`` holds a
``pyproject.toml`` of the project ``sparring`` and ``src/sparring/envs/``) the env
becomes a built-in, ``src/sparring/envs/NAME/`` with its test in
``tests/envs/NAME/`` and a ``register`` line in ``src/sparring/__init__.py``.
Anywhere else (or with ``standalone=True``) it becomes a pip package folder
``where/NAME/`` whose ``pyproject.toml`` declares the ``sparring.envs`` entry point.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import keyword
import os
import re
import sys
import tomllib
from pathlib import Path
from string import Template

from sparring.kit import registry
from sparring.kit.atomic import atomic_file, atomic_folder

TEMPLATES = Path(__file__).parent / "templates"
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,39}")
MAX_AGENTS = 16


@dataclasses.dataclass
class Scaffold:
    """What :func:`new_env` wrote: the mode, the files, and the commands to run next."""

    name: str
    mode: str  # "repo" or "standalone"
    files: list[Path]
    next_steps: list[str]


def class_name(name: str) -> str:
    """The env class name for an env name: ``my_maze`` -> ``MyMaze``."""
    return "".join(part.capitalize() for part in name.split("_") if part)


def check_name(name: str, standalone: bool) -> None:
    """Raise ValueError unless ``name`` can be a new env's name (and, standalone, a new top-level package)."""
    if not NAME_PATTERN.fullmatch(name) or name.endswith("_") or keyword.iskeyword(name):
        raise ValueError(
            f"env name {name!r} is not valid; use 1-40 lowercase letters, digits and underscores, "
            "starting with a letter (e.g. 'maze' or 'coin_rush'), not a Python keyword"
        )
    if name in registry.names():
        raise ValueError(f"env name {name!r} is already registered; taken: {', '.join(registry.names())}")
    if standalone and (name in sys.stdlib_module_names or importlib.util.find_spec(name) is not None):
        raise ValueError(
            f"env name {name!r} is already an importable Python module here, and a standalone env "
            "is a package of its own name: pick another name"
        )


def find_checkout(start: Path) -> Path | None:
    """The root of the sparring checkout containing ``start``, or None outside one."""
    for folder in (start, *start.parents):
        project = folder / "pyproject.toml"
        if project.is_file() and (folder / "src" / "sparring" / "envs").is_dir():
            with open(project, "rb") as fh:
                if tomllib.load(fh).get("project", {}).get("name") == "sparring":
                    return folder
    return None


def _render(template: str, name: str, agents: int) -> str:
    text = (TEMPLATES / template).read_text()
    # at least one coin per agent, so every agent has something to walk to
    seats = ("player",) if agents == 1 else tuple(f"player{k}" for k in range(agents))
    return Template(text).substitute(
        name=name, Class=class_name(name), agents=agents, coins=max(3, agents), seats=repr(seats)
    )


def _env_files(name: str, agents: int) -> dict[str, str]:
    return {
        "__init__.py": _render("package_init.py.tmpl", name, agents),
        "env.py": _render("env.py.tmpl", name, agents),
        "defaults.toml": _render("defaults.toml.tmpl", name, agents),
    }


def _write_folder(target: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` (relative path -> text) into a temp sibling, then rename it to ``target`` at once."""
    if target.exists():
        raise ValueError(f"{target} already exists; remove it or pick another name or --dir")
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_folder(target) as tmp:
        for rel, text in files.items():
            (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / rel).write_text(text)
    return [target / rel for rel in files]


def _with_registration(init: Path, name: str) -> str:
    """The text of ``init`` with ``register(NAME, ...)`` inserted after its last registration."""
    lines = init.read_text().splitlines(keepends=True)
    last = max((i for i, line in enumerate(lines) if line.startswith("register(")), default=None)
    if last is None:
        raise ValueError(f"{init} has no register(...) lines to add {name!r} after")
    lines.insert(last + 1, f'register("{name}", "sparring.envs.{name}.env:{class_name(name)}")\n')
    return "".join(lines)


def new_env(name: str, agents: int = 1, where: str | os.PathLike | None = None, standalone: bool = False) -> Scaffold:
    """Write the template env ``name`` with ``agents`` agents; see the module docstring for where."""
    where = Path(where or os.getcwd()).resolve()
    if not isinstance(agents, int) or not 1 <= agents <= MAX_AGENTS:
        raise ValueError(f"--agents must be an int from 1 to {MAX_AGENTS}, got {agents!r}")
    checkout = None if standalone else find_checkout(where)
    check_name(name, standalone=checkout is None)
    test = {"test_env.py": _render("test_env.py.tmpl", name, agents)}
    if checkout is not None:
        env_dir, test_dir = checkout / "src" / "sparring" / "envs" / name, checkout / "tests" / "envs" / name
        if test_dir.exists():
            raise ValueError(f"{test_dir} already exists; remove it or pick another name")
        init = checkout / "src" / "sparring" / "__init__.py"
        registered = _with_registration(init, name)  # fails before anything is written
        files = _write_folder(env_dir, _env_files(name, agents))
        files += _write_folder(test_dir, {"__init__.py": "", **test})
        with atomic_file(init) as fh:  # keeps its permissions
            fh.write(registered)
        files.append(init)
        steps = [f"sparring check {name}", f"sparring train {name} --minutes 2", f"pytest tests/envs/{name}"]
        return Scaffold(name, "repo", files, steps)
    package = {f"src/{name}/{rel}": text for rel, text in _env_files(name, agents).items()}
    files = _write_folder(
        where / name,
        {
            "pyproject.toml": _render("pyproject.toml.tmpl", name, agents),
            "README.md": _render("README.md.tmpl", name, agents),
            **package,
            **{f"tests/{rel}": text for rel, text in test.items()},
        },
    )
    steps = [f"pip install -e {where / name}", f"sparring check {name}", f"sparring train {name} --minutes 2"]
    return Scaffold(name, "standalone", files, steps)
