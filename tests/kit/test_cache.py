"""The kit's Numba cache: reused across processes, and stale neither after editing a sibling file."""

import os
import subprocess
import sys
import textwrap

HELPER = (
    "from sparring.kit import helper\nfrom pkg.rules import bonus\n\n\n"
    "@helper\ndef score(x):\n    return bonus(x) * 10\n"
)


def run(tmp_path) -> tuple[int, bool]:
    """score(1) and whether it came from the on-disk cache, in a fresh process."""
    code = "from pkg.env import score; print(score(1), bool(score.stats.cache_hits))"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    value, hit = out.split()
    return int(value), hit == "True"


def write_rules(tmp_path, plus: int) -> None:
    (tmp_path / "pkg" / "rules.py").write_text(
        textwrap.dedent(f"""\
            from sparring.kit import kernel


            @kernel
            def bonus(x):
                return x + {plus}
            """)
    )


def test_helper_recompiles_when_an_inlined_kernel_in_another_file_changes(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "env.py").write_text(HELPER)
    write_rules(tmp_path, 1)
    assert run(tmp_path) == (20, False)
    assert run(tmp_path) == (20, True)
    write_rules(tmp_path, 2)  # env.py itself is unchanged: Numba alone would reuse the stale entry
    assert run(tmp_path) == (30, False)
    assert run(tmp_path) == (30, True)
