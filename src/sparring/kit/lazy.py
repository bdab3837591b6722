"""Package names that load on first use (PEP 562), so importing a package stays light.

``__getattr__, __dir__ = lazy_names("sparring.x", {"Name": "sparring.x.module", ...})`` in a package's
``__init__``: ``sparring.x.Name`` imports its module when first asked for and is kept in the package after.
"""

from __future__ import annotations

import importlib
import sys


def lazy_names(package: str, homes: dict[str, str]):
    """The ``__getattr__`` and ``__dir__`` of ``package`` whose names ``homes`` maps to the modules holding them."""

    def __getattr__(name: str):
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        setattr(sys.modules[package], name, value)  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__
