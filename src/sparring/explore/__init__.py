"""Go-Explore: an archive of states by progress cell, exploration from it, and restarts in training.

- :mod:`~sparring.explore.cells`: the cell contract an env implements (``cell_fields``, ``cell_keys``).
- :class:`~sparring.explore.archive.Archive`: best record per cell, statistics, thin-cell selection, files.
- :class:`~sparring.explore.explore.Explorer`: archive exploration with random or policy actions.
- :class:`~sparring.explore.restarts.ArchiveRestarts`: restarts inside PPO (``train.archive_fraction``).
"""

from sparring.explore.archive import Archive
from sparring.explore.explore import Explorer
from sparring.explore.frontier import frontier_table, summary

__all__ = ["Archive", "Explorer", "frontier_table", "summary"]
