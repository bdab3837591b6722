"""How long the next start takes after editing one file of an env, before and after a change.

    python benchmarks/recompile_after_edit.py [--before REV] [--envs duel,town] [--files observe.py,render.py]

For each side ("before": git revision REV, default the last commit before issue 24's speed work;
"after": this checkout) the source is copied to a temporary folder, one cold run fills an empty
Numba cache, then for each file of the env's folder named by --files (those that exist): a comment
line is appended to it, one fresh process is timed (the probe of compile_times.py: start to first
step, and to everything compiled), the file is restored and one untimed run brings the cache back.
An edit recompiles whatever the cache stamps count as depending on the file: before, every file of
the folder stamped every function in it; after, a function's stamp covers its file and the files of
the folder it imports. Prints wall (cpu) seconds per env, file and side.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_times import BEFORE, REPO, export_source, probe  # noqa: E402

FILES = "observe.py,scripted.py,planner.py,render.py"


def edits(src: str, env: str, files: list[str], num_envs: int) -> dict:
    """``{"cold": marks, file: marks}`` for one side: a cold run, then one timed run after each file's edit."""
    with tempfile.TemporaryDirectory() as scratch:
        tree = os.path.join(scratch, "src")
        shutil.copytree(src, tree)
        cache = os.path.join(scratch, "cache")
        out = {"cold": probe(tree, env, cache, num_envs)}
        for name in files:
            path = pathlib.Path(tree, "sparring", "envs", env, name)
            original = path.read_text()
            path.write_text(original + "\n# edited\n")
            out[name] = probe(tree, env, cache, num_envs)
            path.write_text(original)
            probe(tree, env, cache, num_envs)  # the cache back to the original source, untimed
            print(f"  {env} {name} done", file=sys.stderr, flush=True)
    return out


def main() -> None:
    """Parse, measure both sides env by env, print one line per env, file and side."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--before", default=BEFORE, help="git revision measured as 'before'")
    p.add_argument("--envs", default="duel,gauntlet,town", help="comma-separated built-in envs")
    p.add_argument("--files", default=FILES, help=f"comma-separated file names of the env folder (default {FILES})")
    p.add_argument("--num-envs", type=int, default=64)
    args = p.parse_args()
    envs = [e for e in args.envs.split(",") if e]
    with tempfile.TemporaryDirectory() as old:
        sides = {"before": export_source(args.before, old), "after": str(REPO / "src")}
        print(f"start after editing one file: wall s (cpu s), first step / all; before = {args.before}")
        for env in envs:
            folder = REPO / "src" / "sparring" / "envs" / env
            if not folder.is_dir():
                raise SystemExit(f"recompile_after_edit: no env folder {folder}")
            files = [f for f in args.files.split(",") if (folder / f).is_file()]
            results = {side: edits(src, env, files, args.num_envs) for side, src in sides.items()}
            for what in ["cold", *files]:
                cells = []
                for side in sides:
                    marks = results[side][what]
                    (fw, fc), (aw, ac) = marks["first_step"], marks["all"]
                    cells.append(f"{side} {fw:6.2f} ({fc:5.2f}) / {aw:6.2f} ({ac:5.2f})")
                label = "cold (empty cache)" if what == "cold" else f"edit {what}"
                print(f"{env:<9} {label:<20} " + "   ".join(cells), flush=True)


if __name__ == "__main__":
    main()
