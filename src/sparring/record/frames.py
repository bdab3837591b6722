"""Per-tick facts of an episode shared by the terminal replay, the videos and the HTML viewer."""

from __future__ import annotations

import numpy as np

from sparring.record.reader import Episode, Recording


def state_values(s, env_cls: type) -> dict[str, float | int]:
    """The env's own state fields of record ``s``, flattened: ``{"row": 5, "hp[1]": 72, ...}``."""
    out: dict[str, float | int] = {}
    for name in env_cls.state:
        value = np.asarray(s[name])
        if value.ndim == 0:
            out[name] = value.item()
        else:
            for idx in np.ndindex(value.shape):
                out[f"{name}[{','.join(map(str, idx))}]"] = value[idx].item()
    return {k: int(v) if isinstance(v, bool) else v for k, v in out.items()}


def action_names(rec: Recording, action) -> dict[str, int]:
    """One agent's action as ``{head name: value}``."""
    return {h: int(v) for h, v in zip(rec.env_cls.actions.names, action)}


def tick_text(rec: Recording, ep: Episode, t: int) -> str:
    """A text picture of tick index ``t`` (0..T): header, the env's ANSI frame, each seat's move (by seat name; a
    seat the env plays itself shows no move: the env ignored the one given and made its own)."""
    cls, s = rec.env_cls, ep.states[t]
    head = f"{cls.name} episode {ep.id}  tick {int(ep.ticks[t])} ({t}/{ep.length})  phase {cls.phases[ep.phases[t]]}"
    if hasattr(cls, "render_ansi"):
        body = cls.render_ansi(s, rec.config)
    else:
        body = "\n".join(f"{k} = {v}" for k, v in state_values(s, cls).items())
    lines = [head, body]
    for a in range(rec.meta.num_agents):
        seat = cls.seats[a] if len(cls.seats) > a else f"agent {a}"
        ret = float(s["ep_return"][a]) + (float(ep.rewards[t, a]) if t < ep.length else 0.0)  # after this tick
        if t == ep.length:
            lines.append(f"{seat}: episode over  return {ret:+.3f}")
        elif ep.learner[a]:
            acts = " ".join(f"{k}={v}" for k, v in action_names(rec, ep.actions[t, a]).items())
            lines.append(f"{seat}: {acts}  reward {ep.rewards[t, a]:+.3f}  return {ret:+.3f}")
        else:  # the env ignored the action given for this seat and chose its own inside the kernels
            lines.append(
                f"{seat} (played by the env, its move is not recorded)  reward {ep.rewards[t, a]:+.3f}  "
                f"return {ret:+.3f}"
            )
    return "\n".join(lines)
