"""``sparring play town --brain SPEC ...``: a town where every character has its own brain, recorded.

Character ``c`` gets the ``c``-th spec (the last one repeats for the rest);
characters with the same spec share one brain, asked once per tick for all
of them. Fainted characters are not asked (they can only wait).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from sparring.envs.town.names import NAMES
from sparring.envs.town.world import GOAL_NAMES
from sparring.kit import registry
from sparring.kit.batch import BatchedEnv
from sparring.lm.town import SAFE_ACTION, make_brain


@dataclasses.dataclass
class CharacterResult:
    """How one character did over the episodes played."""

    name: str
    brain: str
    episodes: int = 0
    successes: int = 0
    fainted: int = 0
    goals: dict = dataclasses.field(default_factory=dict)
    """Episodes per goal name."""


@dataclasses.dataclass
class PlayReport:
    """Per-character goal success and per-brain fallback counts of :func:`play_town`."""

    characters: list[CharacterResult]
    brains: dict
    """Brain name -> {"turns", "fallbacks", "failed", "unparseable"} (no fallbacks for brains that read no text)."""
    recording: str | None

    def text(self) -> str:
        """A readable table."""
        lines = [f"{'character':<10} {'brain':<40} goal success   fainted"]
        for c in self.characters:
            goals = ", ".join(f"{k} {v}" for k, v in sorted(c.goals.items()))
            lines.append(
                f"{c.name:<10} {c.brain[-40:]:<40} {c.successes:>3}/{c.episodes:<3} {c.fainted:>9}   ({goals})"
            )
        for name, s in self.brains.items():
            lines.append(
                f"brain {name}: {s['turns']} turns, {s['fallbacks']} fallbacks ({s['failed']} failed, "
                f"{s['unparseable']} unparseable)"
            )
        if self.recording:
            lines.append(f"recorded to {self.recording}")
        return "\n".join(lines)


def _brain_counts(brain, turns: int) -> dict:
    stats = getattr(brain, "stats", None)  # brains that read no text never fall back
    failed, unparseable = (stats.failed, stats.unparseable) if stats is not None else (0, 0)
    return {"turns": turns, "fallbacks": failed + unparseable, "failed": failed, "unparseable": unparseable}


def play_town(
    specs: list[str],
    episodes: int = 1,
    seed: int = 0,
    record: str | None = None,
    env: str = "town",
    num_envs: int = 4,
    **config,
) -> PlayReport:
    """Play ``episodes`` town episodes with a brain per character; record them to ``record``/town.parquet."""
    from sparring.record import Recorder

    if not specs:
        raise ValueError("give at least one --brain")
    if episodes < 1 or num_envs < 1:
        raise ValueError(f"episodes and num_envs must be >= 1, got {episodes} and {num_envs}")
    cls = registry.get(env)
    if not hasattr(cls, "describe") or "planner" not in getattr(cls, "scripted", {}):
        raise ValueError(f"play with brains needs a town env (town, town16, ...), got {env!r}")
    batch = BatchedEnv(cls, num_envs=min(num_envs, episodes), seed=seed, autoreset=False, **config)
    seats = [int(a) for a in np.flatnonzero(batch.learner_rows[: batch.num_agents])]
    shared: dict[str, object] = {}
    for spec in dict.fromkeys(specs[min(a, len(specs) - 1)] for a in seats):
        shared[spec] = make_brain(spec, batch, seed)
    seat_spec = {a: specs[min(a, len(specs) - 1)] for a in seats}
    results = [
        CharacterResult(NAMES[a], shared[seat_spec[a]].name if a in seat_spec else "scripted:planner (env)")
        for a in range(batch.num_agents)
    ]
    out = None
    if record:
        os.makedirs(record, exist_ok=True)
        out = os.path.join(record, "town.parquet")
        if os.path.exists(out):
            raise ValueError(f"{out} exists; give --record a new or empty folder")
        recorder = Recorder(
            batch,
            out,
            policy="; ".join(f"{NAMES[a]}={shared[s].name}" for a, s in seat_spec.items()),
            max_episodes=episodes,
        )  # a last partial round also steps envs it does not count
    done, turns = 0, dict.fromkeys(shared, 0)
    try:
        while done < episodes:
            playing = min(batch.num_envs, episodes - done)
            while not batch.done[:playing].all():
                actions = np.full((batch.rows, 1), SAFE_ACTION, np.int32)
                alive = batch.records["alive"].reshape(-1).astype(bool)
                for spec, brain in shared.items():
                    rows = np.array(
                        [
                            e * batch.num_agents + a
                            for e in range(playing)
                            if not batch.done[e]
                            for a in seats
                            if seat_spec[a] == spec
                        ],
                        np.int64,
                    )
                    rows = rows[alive[rows]]
                    if rows.size:
                        turns[spec] += rows.size
                        actions[rows] = brain.act(batch, rows)
                (recorder.step if record else batch.step)(actions)
            for e in range(playing):
                _tally(batch.records[e], results)
            done += playing
            batch.reset_envs(np.arange(batch.num_envs))
    finally:
        if record:
            recorder.close()
        for brain in shared.values():
            if hasattr(brain, "close"):
                brain.close()
    return PlayReport(results, {b.name: _brain_counts(b, turns[s]) for s, b in shared.items()}, out)


def _tally(s, results: list[CharacterResult]) -> None:
    for a, r in enumerate(results):
        r.episodes += 1
        r.successes += int(s["goal_done"][a])
        r.fainted += int(not s["alive"][a])
        goal = GOAL_NAMES[int(s["goal"][a])]
        r.goals[goal] = r.goals.get(goal, 0) + 1
