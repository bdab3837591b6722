"""`sparring --help` stays fast: neither `import sparring.cli` nor the help of any command imports a heavy library.

Checked on ``sys.modules`` in a fresh process (robust on a busy machine, unlike a timing);
benchmarks/cli_startup.py measures the time.
"""

import json
import subprocess
import sys

import pytest

HEAVY = ("torch", "numba", "scipy", "gymnasium", "pettingzoo", "pyarrow", "numpy", "optuna", "transformers")
CHECK = """
import contextlib, io, json, sys
import sparring.cli
argv = json.loads(sys.argv[1])
if argv is not None:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = sparring.cli.main(argv)
    assert code == 0 and out.getvalue().startswith("usage: sparring"), (code, out.getvalue()[:200])
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules} & set(json.loads(sys.argv[2])))))
"""


def heavy_imports(argv) -> list[str]:
    """The heavy top-level packages a fresh process has imported after ``import sparring.cli`` (and ``main(argv)``)."""
    out = subprocess.run(
        [sys.executable, "-c", CHECK, json.dumps(argv), json.dumps(HEAVY)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("argv", [None, ["--help"], ["train", "--help"], ["eval", "--help"], ["explore", "--help"]])
def test_the_help_path_imports_no_heavy_library(argv):
    assert heavy_imports(argv) == []


def test_the_check_sees_a_heavy_import():
    """The probe is not blind: a command's help whose flags come from a torch module does import it."""
    assert "numpy" in heavy_imports(["grpo", "--help"])


def test_import_sparring_is_light_and_its_names_load_on_use():
    code = (
        "import sys, sparring; light = 'numba' not in sys.modules; "
        "from sparring.kit import BatchedEnv, Env; "
        "print(light, 'numba' in sys.modules, BatchedEnv.__module__, Env.__module__, sparring.names()[:1])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True", "sparring.kit.batch", "sparring.kit.spec", "['duel']"]
