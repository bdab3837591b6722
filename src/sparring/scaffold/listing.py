"""What ``sparring list`` shows of each registered env, built-in or from another package's entry point."""

from __future__ import annotations

from importlib.metadata import entry_points

from sparring.kit import registry
from sparring.kit.config import make_config


def entry_point_sources() -> dict[str, str]:
    """Env name -> the installed distribution that declares it in the ``sparring.envs`` entry point group."""
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
