"""Where ``sparring eval`` writes its files, and the HTML replays of the worst evaluated episodes."""

from __future__ import annotations

import os

import numpy as np

from sparring.players.load import resolve


def output_folder(checkpoint: str, record: str | None) -> str:
    """The folder of ``record`` when given, else the checkpoint's run folder (``<run>/checkpoints/step-N``)."""
    if record:
        return os.path.dirname(os.path.abspath(record))
    folder = resolve(checkpoint)
    parent = os.path.dirname(os.path.abspath(folder))
    return os.path.dirname(parent) if os.path.basename(parent) == "checkpoints" else folder


def worst_episodes(returns: np.ndarray, lengths: np.ndarray, k: int) -> list[int]:
    """Indices of the ``k`` lowest returns, lowest first; ties: the shorter (quicker) episode, then the earlier."""
    if k < 0:
        raise ValueError(f"worst must be >= 0, got {k}")
    return [int(i) for i in np.lexsort((np.arange(len(returns)), lengths, returns))[:k]]


def write_worst(recording: str, episodes: np.ndarray, k: int, folder: str, stem: str) -> list[str]:
    """HTML replays ``<stem>-worst<rank>-episode<id>.html`` in ``folder`` of the ``k`` lowest-return episodes.

    ``episodes`` are the :func:`~sparring.evaluate.episodes.play_episodes` rows ([return, length, ...]);
    row ``i`` is episode ``i`` of the Parquet file ``recording``.
    """
    from sparring.record import Recording, write_html

    rec = Recording(recording)
    return [
        write_html(rec, ep, os.path.join(folder, f"{stem}-worst{rank + 1}-episode{ep}.html"))
        for rank, ep in enumerate(worst_episodes(episodes[:, 0], episodes[:, 1], k))
    ]
