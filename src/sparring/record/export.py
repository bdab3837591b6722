"""Export recorded turns as JSONL that Hugging Face ``datasets`` reads (``load_dataset("json", ...)``)."""

from __future__ import annotations

import json

import pyarrow.compute as pc

from sparring.kit.atomic import atomic_file
from sparring.record.reader import load


def export_jsonl(path: str, out: str, learners_only: bool = True) -> int:
    """Write one JSON object per recorded move of ``path`` to ``out``; returns the line count.

    Each line is ``{"episode", "tick", "agent", "observation", "action",
    "reward"}`` with the text observation the agent acted on, its action as
    text and the reward that action earned. Final rows (no action) are left
    out, and so are seats played by the env itself unless ``learners_only`` is
    False. The recording must have text columns (recorded with ``text=True``).
    """
    table = load(path)
    if "obs_text" not in table.column_names:
        raise ValueError(
            f"{path} was recorded without text columns; record it again with text=True "
            f"(its env needs a describe(s, cfg, agent) method)"
        )
    keep = pc.invert(table["final"])
    if learners_only:
        keep = pc.and_(keep, table["learner"])
    rows = table.filter(keep).select(["episode", "tick", "agent", "obs_text", "action_text", "reward"])
    with atomic_file(out, encoding="utf-8") as fh:
        for r in rows.to_pylist():
            fh.write(
                json.dumps(
                    {
                        "episode": r["episode"],
                        "tick": r["tick"],
                        "agent": r["agent"],
                        "observation": r["obs_text"],
                        "action": r["action_text"],
                        "reward": r["reward"],
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    return rows.num_rows
