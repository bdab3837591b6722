"""Sizes checked against memory before allocating: an impossible size is an error naming it, not a MemoryError."""

from __future__ import annotations

import os
import sys


def available_memory() -> int | None:
    """Bytes of memory a new allocation can use now (Linux: MemAvailable; else the physical memory; None: unknown)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def gib(nbytes: float) -> str:
    """A byte count in words: ``"3.2 GiB"``."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}"
    return f"{int(nbytes)} bytes"


def check_fits(nbytes: float, what: str, remedy: str) -> None:
    """Raise ValueError when ``nbytes`` (what ``what`` would allocate) exceed the memory available.

    ``remedy`` says which setting to lower; the check is skipped where the available memory is unknown.
    """
    free = available_memory()
    if free is not None and nbytes > free:
        raise ValueError(f"{what} needs about {gib(nbytes)} of memory, more than the {gib(free)} available; {remedy}")


def peak_resident() -> int | None:
    """The most resident memory this process has held so far, in bytes (None where the platform does not say)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)  # macOS counts bytes, Linux KiB


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
HEAP_THRESHOLD = 128 << 10
"""Bytes from which :func:`return_freed_memory` has glibc map each allocation on its own (its default start)."""


def return_freed_memory() -> bool:
    """Make glibc hand memory back to the system when a large tensor is freed; True where it applied (glibc).

    glibc serves an allocation of 128 KiB or more with its own mapping, returned on free, but raises that
    threshold (up to 32 MiB) each time such a block is freed, after which large blocks come from its heaps and
    stay resident: a training pass's activations, freed, then keep the process's resident memory at its peak.
    Fixing the threshold (``mallopt(M_MMAP_THRESHOLD)``, which turns the raise off) and trimming the heap from
    the same size keeps resident memory near what is alive (``benchmarks/distill_pass_memory.py --recompute``
    against the same with ``--return-freed``: 1.31 GiB before a SmolLM2 backward pass instead of 2.41, the same
    time). Process-wide; the environment variables
    ``MALLOC_MMAP_THRESHOLD_`` and ``MALLOC_TRIM_THRESHOLD_`` do the same from a process's start.
    """
    import ctypes
    import platform

    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, HEAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, HEAP_THRESHOLD))
