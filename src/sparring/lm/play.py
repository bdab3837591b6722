"""``sparring play ENV --brain SPEC ...``: an env where every seat fed from outside has its own brain, recorded.

Seat ``c`` gets the ``c``-th spec (the last one repeats for the rest);
seats with the same spec share one brain, asked once per tick for all of
them. Seats that do not act now (the face's ``acting``: a fainted town
character) are not asked. Text brains need the env's text face; scripted and
checkpoint brains play any env.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from sparring.kit import registry
from sparring.kit.batch import BatchedEnv
from sparring.kit.text import face
from sparring.lm.decisions import Meter
from sparring.lm.specs import make_brain


@dataclasses.dataclass
class SeatResult:
    """How one seat did over the episodes played."""

    name: str
    brain: str
    episodes: int = 0
    successes: int = 0
    out: int = 0
    """Episodes it ended no longer acting (town: fainted)."""
    total_return: float = 0.0
    goals: dict = dataclasses.field(default_factory=dict)
    """Episodes per goal name (envs whose seats have goals)."""


@dataclasses.dataclass
class PlayReport:
    """Per-seat success and per-brain fallback counts of :func:`play_brains`."""

    seats: list[SeatResult]
    brains: dict
    """Brain name -> {"turns", "fallbacks", "failed", "unparseable"} (no fallbacks for brains that read no text)."""
    recording: str | None
    episodes: int = 0
    """Episodes finished (fewer than asked when the play was interrupted)."""
    model: str = ""
    """The models' turns and decisions a second (:meth:`sparring.lm.decisions.Meter.summary`); empty without one."""

    def text(self) -> str:
        """A readable table: each seat's successes with a 95% Wilson interval, mean return, episodes ended out."""
        from sparring.kit.stats import wilson_interval

        lines = [f"{'seat':<10} {'brain':<40} {'success':>9} {'95% interval':>14}  mean return  out at end"]
        for c in self.seats:
            goals = f"   ({', '.join(f'{k} {v}' for k, v in sorted(c.goals.items()))})" if c.goals else ""
            mean = c.total_return / max(1, c.episodes)
            low, high = wilson_interval(c.successes, c.episodes)
            lines.append(
                f"{c.name:<10} {c.brain[-40:]:<40} {f'{c.successes}/{c.episodes}':>9} {f'[{low:.3f}, {high:.3f}]':>14}"
                f" {mean:>12.3f} {c.out:>11}{goals}"
            )
        for name, s in self.brains.items():
            lines.append(
                f"brain {name}: {s['turns']} turns, {s['fallbacks']} fallbacks ({s['failed']} failed, "
                f"{s['unparseable']} unparseable)" + (f", {s['kept']} went on undecided" if s.get("kept") else "")
            )
        if self.model:
            lines.append(self.model)
        if self.recording:
            lines.append(f"recorded to {self.recording}")
        return "\n".join(lines)


def _brain_counts(brain, turns: int) -> dict:
    stats = getattr(brain, "stats", None)  # brains that read no text never fall back
    failed, unparseable = (stats.failed, stats.unparseable) if stats is not None else (0, 0)
    kept = getattr(stats, "kept", 0)  # turns a compact prompt let go on undecided
    return {
        "turns": turns,
        "fallbacks": failed + unparseable,
        "failed": failed,
        "unparseable": unparseable,
        "kept": kept,
    }


def play_brains(
    specs: list[str],
    episodes: int = 1,
    seed: int = 0,
    record: str | None = None,
    env: str = "town",
    num_envs: int = 4,
    progress=None,
    temperature: float = 1.0,
    prompt: str | None = None,
    dtype: str | None = None,
    **config,
) -> PlayReport:
    """Play ``episodes`` episodes with a brain per seat fed from outside; record them to ``record``/ENV.parquet.
    Local models sample their lines at ``temperature`` (0: the most likely line), put turns in ``prompt``
    (default: their own) and load in ``dtype`` (default float32). ``progress`` (a
    :class:`~sparring.kit.progress.Progress`) counts the episodes; an interrupted play returns the episodes
    finished so far (the recording keeps them)."""
    from sparring.kit.progress import silent
    from sparring.record import Recorder

    progress = progress or silent()
    if not specs:
        raise ValueError("give at least one --brain")
    if episodes < 1 or num_envs < 1:
        raise ValueError(f"episodes and num_envs must be >= 1, got {episodes} and {num_envs}")
    if not 0.0 <= temperature <= 100.0:
        raise ValueError(f"--temperature must be in [0, 100] (0: the most likely line), got {temperature}")
    cls = registry.get(env)
    text = face(cls)
    batch = BatchedEnv(cls, num_envs=min(num_envs, episodes), seed=seed, autoreset=False, **config)
    seats = [int(a) for a in np.flatnonzero(batch.learner_rows[: batch.num_agents])]
    shared: dict[str, object] = {}
    for spec in dict.fromkeys(specs[min(a, len(specs) - 1)] for a in seats):
        progress.status(f"making the brain {spec}")  # a local model takes seconds to load
        shared[spec] = make_brain(spec, batch, seed, temperature=temperature, prompt=prompt, dtype=dtype)
    progress.status("playing (compiling the env's kernels on a first run)")
    seat_spec = {a: specs[min(a, len(specs) - 1)] for a in seats}
    names = text.seat_names(cls) if text else cls.seats
    results = [
        SeatResult(names[a], shared[seat_spec[a]].name if a in seat_spec else "the env's own")
        for a in range(batch.num_agents)
    ]
    out = None
    if record:
        os.makedirs(record, exist_ok=True)
        out = os.path.join(record, f"{cls.name}.parquet")
        if os.path.exists(out):
            raise ValueError(f"{out} exists; give --record a new or empty folder")
        recorder = Recorder(
            batch,
            out,
            policy="; ".join(f"{names[a]}={shared[s].name}" for a, s in seat_spec.items()),
            max_episodes=episodes,
        )  # a last partial round also steps envs it does not count
    done, turns, meter = 0, dict.fromkeys(shared, 0), Meter()
    progress.start(episodes, unit="episode")
    progress.watch(meter.figures)
    try:
        while done < episodes:
            playing = min(batch.num_envs, episodes - done)
            while not batch.done[:playing].all():
                actions = np.zeros((batch.rows, len(batch.heads.sizes)), np.int32)
                for spec, brain in shared.items():
                    rows = np.array(
                        [
                            e * batch.num_agents + a
                            for e in range(playing)
                            if not batch.done[e]
                            for a in seats
                            if seat_spec[a] == spec and (text is None or text.acting(batch.records[e], batch.config, a))
                        ],
                        np.int64,
                    )
                    if rows.size:
                        turns[spec] += rows.size
                        actions[rows] = brain.act(batch, rows)
                (recorder.step if record else batch.step)(actions)
            for e in range(playing):
                _tally(cls, text, batch.records[e], batch.config, results)
            done += playing
            progress.update(done, {"success": results[seats[0]].successes / max(1, done)})
            batch.reset_envs(np.arange(batch.num_envs))
    except KeyboardInterrupt:
        progress.print(f"play: interrupted; the {done} finished episode(s) are reported")
    finally:
        if record:
            recorder.close()
        for brain in shared.values():
            if hasattr(brain, "close"):
                brain.close()
    brains = {b.name: _brain_counts(b, turns[s]) for s, b in shared.items()}
    return PlayReport(results, brains, out, done, meter.summary())


def _tally(cls, text, s, cfg, results: list[SeatResult]) -> None:
    from sparring.kit.text import TextFace

    judge = text or TextFace
    for a, r in enumerate(results):
        r.episodes += 1
        r.successes += int(judge.success(cls, s, cfg, a))
        r.out += int(text is not None and not text.acting(s, cfg, a))
        r.total_return += float(s["ep_return"][a])
        if text is not None and text.goals:
            goal = text.goal_of(s, a)
            r.goals[goal] = r.goals.get(goal, 0) + 1
