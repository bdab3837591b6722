"""sparring: fast, honest game environments and self-improving agents on one laptop."""

import os

# Numba reads this at import: keep compiled kernels between runs.
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "sparring", "numba"))

from sparring.kit import make, names, register  # noqa: E402

__version__ = "0.1.0"

register("squared", "sparring.envs.squared.env:Squared")
register("duel", "sparring.envs.duel.env:Duel")
register("town", "sparring.envs.town.env:Town")
register("town16", "sparring.envs.town.env:Town16")
register("town64", "sparring.envs.town.env:Town64")
register("serpent", "sparring.envs.serpent.env:Serpent")
register("gauntlet", "sparring.envs.gauntlet.env:Gauntlet")
from sparring.kit import gym_registration as _gym_ids  # noqa: E402,F401 (the envs above as sparring/NAME-v0)

__all__ = ["make", "names", "register", "__version__"]
