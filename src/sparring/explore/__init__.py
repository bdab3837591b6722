"""Go-Explore: an archive of states by progress cell, exploration from it, and restarts in training.

- :mod:`~sparring.explore.cells`: the cell contract an env implements (``cell_fields``, ``cell_keys``).
- :class:`~sparring.explore.archive.Archive`: best record per cell, statistics, thin-cell selection, files.
- :class:`~sparring.explore.explore.Explorer`: archive exploration with random or policy actions.
- :class:`~sparring.explore.restarts.ArchiveRestarts`: restarts inside PPO (``train.archive_fraction``).

Only the numpy-light parts load with the package; the explorer and the restarts (which need
torch) load from their modules.
"""

from sparring.explore.archive import Archive
from sparring.explore.frontier import frontier_table, summary

__all__ = ["Archive", "frontier_table", "summary"]
