"""The kit's Numba cache: reused across processes, stale neither after editing a file the code imports, and kept
when a file of the folder that the code never imports changes."""

import os
import subprocess
import sys
import textwrap

HELPER = (
    "from sparring.kit import helper\nfrom pkg.rules import bonus\n\n\n"
    "@helper\ndef score(x):\n    return bonus(x) * 10\n"
)


def run(tmp_path, module: str = "pkg.env") -> tuple[int, bool]:
    """score(1) of ``module`` and whether it came from the on-disk cache, in a fresh process."""
    code = f"from {module} import score; print(score(1), bool(score.stats.cache_hits))"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    value, hit = out.split()
    return int(value), hit == "True"


def write_rules(tmp_path, plus: int, where: str = "pkg/rules.py") -> None:
    (tmp_path / where).write_text(
        textwrap.dedent(f"""\
            from sparring.kit import kernel


            @kernel
            def bonus(x):
                return x + {plus}
            """)
    )


def make_package(tmp_path, env_source: str = HELPER) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "env.py").write_text(env_source)
    write_rules(tmp_path, 1)


def test_helper_recompiles_when_an_inlined_kernel_in_another_file_changes(tmp_path):
    make_package(tmp_path)
    assert run(tmp_path) == (20, False)
    assert run(tmp_path) == (20, True)
    write_rules(tmp_path, 2)  # env.py itself is unchanged: Numba alone would reuse the stale entry
    assert run(tmp_path) == (30, False)
    assert run(tmp_path) == (30, True)


def test_a_file_imported_through_another_counts_and_one_never_imported_does_not(tmp_path):
    helper_via_mid = HELPER.replace("pkg.rules import bonus", "pkg.mid import lift").replace("bonus(", "lift(")
    make_package(tmp_path, helper_via_mid)
    (tmp_path / "pkg" / "mid.py").write_text(
        "from sparring.kit import kernel\n\nfrom .rules import bonus\n\n\n@kernel\ndef lift(x):\n    return bonus(x)\n"
    )
    (tmp_path / "pkg" / "render.py").write_text("COLOUR = 'red'\n")
    assert run(tmp_path) == (20, False)
    (tmp_path / "pkg" / "render.py").write_text("COLOUR = 'blue'\n")  # nothing score can reach
    assert run(tmp_path) == (20, True)
    write_rules(tmp_path, 2)  # reached through mid.py's relative import
    assert run(tmp_path) == (30, False)


def test_top_level_modules_count_their_sibling_modules(tmp_path):
    (tmp_path / "flat_env.py").write_text(HELPER.replace("from pkg.rules import", "from flat_rules import"))
    write_rules(tmp_path, 1, "flat_rules.py")
    assert run(tmp_path, "flat_env") == (20, False)
    write_rules(tmp_path, 2, "flat_rules.py")
    assert run(tmp_path, "flat_env") == (30, False)
