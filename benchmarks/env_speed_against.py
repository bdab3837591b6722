"""An env's stepping speed against its own source at a git revision, both measured in one process.

    python benchmarks/env_speed_against.py ENV [--against REV] [--num-envs 1024] [--rounds 7]

The env's folder at REV (default: the last commit before issue 24's speed work) is exported with
`git archive` into a temporary package whose imports of its own modules are renamed to it, and its
env class is stepped beside this checkout's: both use this checkout's kit, so only the env's code
differs. Each round measures both (random in-range actions, `sparring.kit.bench.throughput`: median
of 3 repeats of 0.2 s); the printed ratio new/old is the median over rounds, so a change of the
machine's load hits both sides of every ratio.
"""

from __future__ import annotations

import argparse
import importlib
import io
import pathlib
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
AGAINST = "a9ded0b0e89195bb8723771cea58316d8c73e8b0"  # the last commit before issue 24's speed work


def old_env_class(env: str, rev: str, into: str, cls_name: str) -> type:
    """The class ``cls_name`` of ``src/sparring/envs/ENV/env.py`` at ``rev``, imported as package ``old_ENV``."""
    folder = f"src/sparring/envs/{env}"
    try:
        tar = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", rev, folder], capture_output=True, check=True
        ).stdout
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"env_speed_against: cannot export {folder} at {rev!r}: {exc.stderr.decode().strip()}")
    package = pathlib.Path(into) / f"old_{env}"
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        for member in archive.getmembers():
            if member.isfile():
                target = package / pathlib.PurePosixPath(member.name).relative_to(folder)
                target.parent.mkdir(parents=True, exist_ok=True)
                text = archive.extractfile(member).read()
                if target.suffix == ".py":
                    text = re.sub(rf"\bsparring\.envs\.{env}\b", f"old_{env}", text.decode()).encode()
                target.write_bytes(text)
    sys.path.insert(0, into)
    return getattr(importlib.import_module(f"old_{env}.env"), cls_name)


def main() -> None:
    """Measure both classes round by round and print the rates and the median ratio."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("env", help="a built-in env (its folder src/sparring/envs/ENV)")
    p.add_argument("--against", default=AGAINST, help="git revision of the old source")
    p.add_argument("--num-envs", type=int, default=1024)
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args()
    if args.num_envs < 1 or args.rounds < 1:
        raise SystemExit("env_speed_against: --num-envs and --rounds must be >= 1")
    sys.path.insert(0, str(REPO / "src"))
    from sparring.kit import registry
    from sparring.kit.bench import throughput

    new = registry.get(args.env)
    if not new.__module__.startswith(f"sparring.envs.{args.env}."):
        raise SystemExit(f"env_speed_against: {args.env!r} is not a built-in env folder of this checkout")
    with tempfile.TemporaryDirectory() as scratch:
        old = old_env_class(args.env, args.against, scratch, new.__name__)
        rates = {"old": [], "new": []}
        for _ in range(args.rounds):
            for side, cls in (("old", old), ("new", new)):
                rates[side].append(throughput(cls, args.num_envs, repeats=3, seconds=0.2)["median"])
    ratios = [n / o for n, o in zip(rates["new"], rates["old"])]
    old_rate, new_rate = (statistics.median(rates[side]) / 1e6 for side in ("old", "new"))
    print(
        f"{args.env} at {args.num_envs} envs, {args.rounds} rounds: old ({args.against[:10]}) "
        f"{old_rate:.3f} M agent-steps/s, new {new_rate:.3f} M; "
        f"ratio new/old {statistics.median(ratios):.3f} (rounds: {', '.join(f'{r:.2f}' for r in ratios)})"
    )


if __name__ == "__main__":
    main()
