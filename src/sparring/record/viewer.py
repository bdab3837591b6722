"""The HTML episode viewer: one self-contained file (inline JS, CSS and data; no network, no server).

Every env works through the drawing protocol of :meth:`sparring.kit.spec.Env.draw`
(shapes per frame); an env without it is shown as its ``render_ansi`` text, and
an env without either by its state values alone.

Two additions to the protocol, both optional: an env whose ``draw`` takes a third argument is given the
previous recorded state as ``draw(s, cfg, before)`` (``before`` is None on an episode's first state), so it
can draw what happened during the tick; and any shape may carry a ``log`` text (and a ``kind``, e.g.
``"trade"``), which the page lists in its event log for that tick and for the whole episode. An ``arrow``
shape is a line with a head at ``(x2, y2)``: town draws its trades, gifts and talk so.
"""

from __future__ import annotations

import html
import inspect
import json
import math
import os
import re
from importlib import resources

import numpy as np

from sparring.kit.atomic import atomic_file
from sparring.record.frames import state_values
from sparring.record.reader import Recording

SHAPE_KEYS = {
    "rect": ("x", "y", "w", "h"),
    "circle": ("x", "y", "r"),
    "line": ("x1", "y1", "x2", "y2"),
    "arrow": ("x1", "y1", "x2", "y2"),
    "text": ("x", "y", "text"),
    "bar": ("x", "y", "w", "h", "value", "max"),
}
TEXT_KEYS = ("type", "text", "fill", "stroke", "label", "log", "kind")
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PLACEHOLDER = re.compile(r"\{\{(TITLE|CSS|JS|DATA)\}\}")


def check_shapes(shapes, env: str, tick: int) -> list[dict]:
    """``shapes`` as JSON-ready dicts; a malformed one raises ValueError naming the env, tick and shape."""
    if not isinstance(shapes, list):
        raise ValueError(
            f"env {env!r}: draw() must return a list of shape dicts, got {type(shapes).__name__} at tick {tick}"
        )
    out = []
    for k, shape in enumerate(shapes):
        kind = shape.get("type") if isinstance(shape, dict) else None
        if kind not in SHAPE_KEYS:
            raise ValueError(
                f"env {env!r}: shape {k} at tick {tick} is {shape!r}; its 'type' must be one of {sorted(SHAPE_KEYS)}"
            )
        missing = [key for key in SHAPE_KEYS[kind] if key not in shape]
        if missing:
            raise ValueError(
                f"env {env!r}: {kind} shape {k} at tick {tick} lacks {missing} "
                f"(a {kind} needs {list(SHAPE_KEYS[kind])})"
            )
        clean = {key: (str(v) if key in TEXT_KEYS else float(v)) for key, v in shape.items()}
        bad = [key for key, v in clean.items() if isinstance(v, float) and not math.isfinite(v)]
        if bad:
            raise ValueError(f"env {env!r}: {kind} shape {k} at tick {tick} has non-finite {bad}")
        out.append(clean)
    return out


def _floats(x: np.ndarray) -> list:
    """Nested lists of floats, NaN as None (JSON has no NaN)."""
    return np.where(np.isnan(x), None, np.round(x.astype(np.float64), 6)).tolist()


def _drawn(cls, states: np.ndarray, cfg) -> list:
    """``cls.draw`` of every state; given the state before it where ``draw`` takes one (see the module's doc)."""
    if len(inspect.signature(cls.draw).parameters) < 3:
        return [cls.draw(s, cfg) for s in states]
    return [cls.draw(s, cfg, states[i - 1] if i else None) for i, s in enumerate(states)]


def viewer_data(rec: Recording, episode: int) -> dict:
    """Everything the page shows for ``episode``, as JSON-ready values."""
    cls, ep = rec.env_cls, rec.episode(episode)
    drawn = _drawn(cls, ep.states, rec.config)
    frames = None
    if any(d is not None for d in drawn):
        frames = [check_shapes(d if d is not None else [], cls.name, int(t)) for d, t in zip(drawn, ep.ticks)]
    text = None
    if frames is None and hasattr(cls, "render_ansi"):
        text = [ANSI_ESCAPE.sub("", cls.render_ansi(s, rec.config)) for s in ep.states]
    values = [state_values(s, cls) for s in ep.states]
    return {
        "env": cls.name,
        "episode": ep.id,
        "file": os.path.basename(rec.path),
        "policy": rec.meta.policy,
        "config": rec.meta.config,
        "forkedFrom": rec.meta.forked_from,
        "agents": rec.meta.num_agents,
        "heads": list(cls.actions.names),
        "phases": list(cls.phases),
        "metrics": list(cls.metrics),
        "learner": [bool(x) for x in ep.learner],
        "ticks": ep.ticks.tolist(),
        "phase": ep.phases.tolist(),
        "frames": frames,
        "events": [
            [i, shape.get("kind", ""), shape["log"]]
            for i, shapes in enumerate(frames or [])
            for shape in shapes
            if "log" in shape
        ],
        "text": text,
        "valueNames": list(values[0]),
        "values": [[x if math.isfinite(x) else None for x in v.values()] for v in values],
        "actions": ep.actions.tolist(),
        "rewards": _floats(ep.rewards),
        "returns": _floats(ep.states["ep_return"]),
        "metricValues": _floats(ep.states["metrics"][:, : len(cls.metrics)]),
        "logp": None if np.isnan(ep.logp).all() else _floats(ep.logp),
        "value": None if np.isnan(ep.value).all() else _floats(ep.value),
    }


def render_html(data: dict) -> str:
    """The page for ``data`` (from :func:`viewer_data`) with its script, style and data inlined."""
    assets = resources.files("sparring.record") / "assets"
    # "</" would end the inline <script> early: escape it inside the JSON text
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    parts = {
        "TITLE": html.escape(f"{data['env']} · episode {data['episode']}"),
        "CSS": (assets / "viewer.css").read_text(encoding="utf-8"),
        "JS": (assets / "viewer.js").read_text(encoding="utf-8"),
        "DATA": payload,
    }
    template = (assets / "viewer.html").read_text(encoding="utf-8")
    return PLACEHOLDER.sub(lambda m: parts[m.group(1)], template)


def write_html(rec: Recording, episode: int, out: str) -> str:
    """Write the viewer of ``episode`` to ``out`` (temp file + rename); returns ``out``."""
    page = render_html(viewer_data(rec, episode))
    with atomic_file(out, encoding="utf-8") as fh:
        fh.write(page)
    return out
