"""What ``sparring list`` shows of each registered env, built-in or from another package's entry point.

The summaries are kept in ``$NUMBA_CACHE_DIR/sparring-list.json`` (beside the compiled kernels), each
under a key of its env's source: the size and modification time of every file of the package that
holds the env and of sparring itself. A warm ``sparring list`` reads them without importing Numba or
any env (about 0.1 s instead of about 1 s); a changed file, an env registered as a class or a cache
that cannot be read or written means the env is imported and summarised as before.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os

from sparring.kit import registry

CACHE_NAME = "sparring-list.json"
_SOURCE_SUFFIXES = (".py", ".toml", ".json")


def entry_point_sources() -> dict[str, str]:
    """Env name -> the installed distribution that declares it in the ``sparring.envs`` entry point group."""
    from importlib.metadata import entry_points

    out = {}
    for ep in entry_points(group=registry.ENTRY_POINT_GROUP):
        out.setdefault(ep.name, ep.dist.name if ep.dist is not None else ep.value)
    return out


def env_summary(name: str, sources: dict[str, str] | None = None) -> dict:
    """Shape of env ``name``: agents, seats (played from ``outside`` or by the ``env`` with its default config),
    observation, heads, phases, metrics, scripted opponents, source.

    An env that cannot be imported or configured (a broken third-party package) gets
    an ``error`` entry instead, so one bad env does not hide the others.
    """
    from sparring.kit.config import make_config

    sources = entry_point_sources() if sources is None else sources
    try:
        cls = registry.get(name)
        obs = cls.obs_spec(make_config(cls))
    except Exception as exc:  # any import or config error of someone else's env: report it, list the rest
        return {"name": name, "source": sources.get(name, "?"), "error": f"{type(exc).__name__}: {exc}"}
    learner = cls.learner_seats(make_config(cls))
    seats = {seat: ("outside" if k in learner else "env") for k, seat in enumerate(cls.seats)}
    return {
        "name": name,
        "agents": int(cls.num_agents),
        "seats": seats,
        "obs_size": int(obs.size),
        "obs_dtype": str(obs.dtype),
        "heads": {n: int(s) for n, s in zip(cls.actions.names, cls.actions.sizes)},
        "phases": list(cls.phases),
        "metrics": list(cls.metrics),
        "scripted": sorted(cls.scripted),
        "best_scripted": cls.best_scripted,
        "source": sources.get(name, cls.__module__),
    }


def summaries(names: list[str], sources: dict[str, str] | None = None) -> list[dict]:
    """:func:`env_summary` of each of ``names``, read from the cache for envs whose source is unchanged."""
    sources = entry_point_sources() if sources is None else sources
    path = os.path.join(os.environ.get("NUMBA_CACHE_DIR") or os.path.expanduser("~/.cache/sparring/numba"), CACHE_NAME)
    cached = _read_cache(path)
    out, fresh = [], {}
    for name in names:
        key = _source_key(name, sources.get(name))
        entry = cached.get(name)
        if key is not None and isinstance(entry, dict) and entry.get("key") == key and _is_summary(entry.get("info")):
            out.append(entry["info"])
            continue
        info = env_summary(name, sources)
        out.append(info)
        if key is not None and "error" not in info:  # a broken env is tried again next time
            fresh[name] = {"key": key, "info": info}
    if fresh:
        _write_cache(path, {**cached, **fresh})
    return out


def _source_key(name: str, source: str | None) -> str | None:
    """A digest of the name, its target and the stamps of every source file of its package and of sparring
    (None when the env was registered as a class, or its package cannot be found without importing it)."""
    import sparring

    target = registry.target(name)
    if not isinstance(target, str):
        return None
    folder = _package_folder(target.partition(":")[0].split(".")[0])
    if folder is None:
        return None
    h = hashlib.sha256(f"{name}\0{target}\0{source}\0{sparring.__version__}".encode())
    for root in sorted({folder, os.path.dirname(os.path.abspath(sparring.__file__))}):
        _stamp_tree(h, root)
    return h.hexdigest()


def _package_folder(top: str) -> str | None:
    """The folder (or single file) of the top-level module ``top``, found without running it."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return os.path.abspath(list(spec.submodule_search_locations)[0])
    return os.path.abspath(spec.origin) if spec.origin and os.path.isfile(spec.origin) else None


def _stamp_tree(h, root: str) -> None:
    """Fold the path, size and modification time of every source file under ``root`` into ``h``."""
    if os.path.isfile(root):
        st = os.stat(root)
        h.update(f"{root}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        return
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for fname in sorted(files):
            if fname.endswith(_SOURCE_SUFFIXES):
                st = os.stat(os.path.join(folder, fname))
                h.update(f"{folder}/{fname}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())


def _is_summary(info) -> bool:
    return isinstance(info, dict) and isinstance(info.get("name"), str) and "heads" in info and "seats" in info


def _read_cache(path: str) -> dict:
    """The cache's entries; {} when it is missing or not a JSON object (then it is rebuilt)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(path: str, entries: dict) -> None:
    """Write the cache all at once; a folder that cannot be written only means no cache."""
    from sparring.kit.atomic import atomic_file

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with atomic_file(path, encoding="utf-8") as fh:
            json.dump(entries, fh)
    except OSError:
        pass


def format_summary(info: dict, most: int = 8) -> str:
    """One line of ``sparring list``; phase and metric lists longer than ``most`` are cut (``--json`` has all)."""
    if "error" in info:
        return f"{info['name']}: cannot load ({info['error']}) from={info['source']}"
    heads = ", ".join(f"{n}={s}" for n, s in info["heads"].items())
    best = f" best={info['best_scripted']}" if info["best_scripted"] else ""
    seats = _cut([f"{seat}({who})" for seat, who in info["seats"].items()], most)
    return (
        f"{info['name']}: agents={info['agents']} seats={seats} obs={info['obs_size']}x{info['obs_dtype']} "
        f"heads=[{heads}] "
        f"phases={_cut(info['phases'], most)} scripted={info['scripted']}{best} "
        f"metrics={_cut(info['metrics'], most)} from={info['source']}"
    )


def _cut(names: list[str], most: int) -> str:
    if len(names) <= most:
        return str(names)
    return str(names[:most])[:-1] + f", ... {len(names)} in all]"
