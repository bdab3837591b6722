"""The cell frontier table: what the archive found, how deep, and how restarts from it went."""

from __future__ import annotations

import numpy as np

from sparring.explore.archive import Archive


def summary(archive: Archive) -> dict:
    """Cells found, the deepest progress value and its phase, and restart outcomes (JSON-able)."""
    if not len(archive):
        return {"cells": 0}
    fields = archive.field_values()
    deepest = int(fields[:, 0].max())
    at_depth = np.flatnonzero(fields[:, 0] == deepest)
    best = at_depth[np.argmax(archive.score[at_depth])]
    phases = archive.env_cls.phases
    return {
        "cells": len(archive),
        "deepest": {archive.fields[0]: deepest, "phase": phases[int(archive.records["phase"][best])]},
        "visits": int(archive.visits.sum()),
        "chosen": int(archive.chosen.sum()),
        "restarts_ended": int(archive.restarts.sum()),
        "restart_successes": int(archive.successes.sum()),
    }


def frontier_table(archive: Archive, top: int = 10) -> str:
    """Per progress value: cells, visits, choices, restart outcomes, best score; then the ``top`` cells by weight."""
    info = summary(archive)
    if not info["cells"]:
        return "the archive is empty"
    fields, depth_name = archive.field_values(), archive.fields[0]
    ended, wins = info["restarts_ended"], info["restart_successes"]
    rate = f"{wins / ended:.1%}" if ended else "-"
    lines = [
        f"cells found: {info['cells']}   deepest {depth_name}: {info['deepest'][depth_name]} "
        f"(phase {info['deepest']['phase']})   restarts ended: {ended}, succeeded: {wins} ({rate})",
        "",
        f"{depth_name:>10} {'cells':>6} {'visits':>9} {'chosen':>8} {'restarts':>8} {'success':>8} "
        f"{'best score':>10} {'ticks':>6}",
    ]
    for value in np.unique(fields[:, 0]):
        cells = np.flatnonzero(fields[:, 0] == value)
        best = cells[np.lexsort((archive.length[cells], -archive.score[cells]))[0]]
        restarts, successes = archive.restarts[cells].sum(), archive.successes[cells].sum()
        success = f"{successes / restarts:.0%}" if restarts else "-"
        lines.append(
            f"{value:>10} {len(cells):>6} {archive.visits[cells].sum():>9} {archive.chosen[cells].sum():>8} "
            f"{restarts:>8} {success:>8} {archive.score[best]:>10.3f} {archive.length[best]:>6}"
        )
    weights = archive.weights()
    order = np.argsort(-weights, kind="stable")[:top]
    lines += [
        "",
        f"frontier: the {len(order)} cells most likely to be chosen next (weight = 1/sqrt(1+chosen) + "
        "1/sqrt(1+visits) + 1 - success rate)",
        "  " + " ".join(f"{f:>9}" for f in archive.fields) + f" {'weight':>7} {'visits':>7} {'chosen':>7} "
        f"{'restarts':>8} {'score':>7} {'ticks':>6}",
    ]
    for c in order:
        lines.append(
            "  " + " ".join(f"{v:>9}" for v in fields[c]) + f" {weights[c]:>7.3f} {archive.visits[c]:>7} "
            f"{archive.chosen[c]:>7} {archive.restarts[c]:>8} {archive.score[c]:>7.3f} {archive.length[c]:>6}"
        )
    return "\n".join(lines)
