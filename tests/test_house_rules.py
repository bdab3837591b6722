"""The house rules of DESIGN.md, read from the source: who may import whom, and no import loops.

Every ``import``/``from ... import`` of a ``sparring`` module counts, also those inside
functions (a lazy import is still a dependency).
"""

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"
MAY_IMPORT_TRAIN = {"train", "sweep", "cli"}  # record, evaluate, explore and lm get players from players/


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: pathlib.Path) -> set[str]:
    """The sparring modules ``path`` imports (``from a import b`` counts ``a.b`` when that is a module)."""
    here = _module_name(path)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                package = here.split(".")[: len(here.split(".")) - node.level + (path.name == "__init__.py")]
                base = ".".join(package + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == "sparring" and name in MODULES}


MODULES = {_module_name(p): p for p in SRC.joinpath("sparring").rglob("*.py")}
GRAPH = {name: _imports(path) - {name} for name, path in MODULES.items()}


def _package(module: str) -> str:
    """``sparring.train.vec`` -> ``train``; the root ``sparring`` -> ``sparring``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "sparring"


def _edges(rule):
    return sorted(f"{a} -> {b}" for a, deps in GRAPH.items() for b in deps if rule(a, b))


def test_kit_imports_nothing_else_of_the_package():
    assert _edges(lambda a, b: _package(a) == "kit" and _package(b) != "kit") == []


def test_envs_import_only_the_kit_and_their_own_folder():
    def bad(a, b):
        if _package(a) != "envs" or _package(b) == "kit":
            return False
        return a.split(".")[:3] != b.split(".")[:3]

    assert _edges(bad) == []


def test_lm_and_evaluate_import_no_particular_env():
    """They reach an env's words, progress and analyses through what it declares in the kit (its text face, its
    tally), never through its code."""
    assert _edges(lambda a, b: _package(a) in ("lm", "evaluate") and _package(b) == "envs") == []


def test_nothing_imports_the_cli():
    assert _edges(lambda a, b: _package(b) == "cli" and _package(a) != "cli" and a != "sparring.__main__") == []


def test_only_train_sweep_and_the_cli_import_train():
    assert _edges(lambda a, b: _package(b) == "train" and _package(a) not in MAY_IMPORT_TRAIN) == []


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path, or [] when it has none."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = "done"
        stack.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


@pytest.mark.parametrize("level", ["package", "module"])
def test_no_import_loops(level):
    if level == "module":
        graph = GRAPH
    else:
        graph = {}
        for a, deps in GRAPH.items():
            graph.setdefault(_package(a), set()).update(_package(b) for b in deps if _package(b) != _package(a))
        graph.get("sparring", set()).discard("kit")  # the root registers envs through the kit: not a loop
        for deps in graph.values():
            deps.discard("sparring")  # `import sparring` for its version or registry is the root, not a package
    assert _cycle(graph) == []


def test_the_rules_see_real_imports():
    """The test reads the code it guards: a known edge is found (else every rule above passes vacuously)."""
    assert "sparring.kit" in GRAPH["sparring.envs.squared.env"] or any(
        b.startswith("sparring.kit") for b in GRAPH["sparring.envs.squared.env"]
    )
    assert any(_package(b) == "players" for b in GRAPH["sparring.evaluate.play"])
