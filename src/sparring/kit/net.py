"""Network waits with deadlines: an address that nothing answers at fails within a stated time, on one line."""

from __future__ import annotations

import socket
import time

CONNECT_SECONDS = 10.0
"""How long a connection to a cluster or server may take before the command gives up."""


def split_address(address: str, default_port: int | None = None) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT``, ``[V6]:PORT`` or ``SCHEME://HOST:PORT[/...]``; a ValueError says why not."""
    rest = address.split("://", 1)[-1].split("/", 1)[0]
    if rest.startswith("["):
        host, _, port = rest[1:].partition("]")
        port = port.removeprefix(":")
    else:
        host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
    if not port and default_port is not None:
        port = str(default_port)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"address {address!r} is not HOST:PORT (a port in 1..65535), e.g. 127.0.0.1:6379")
    return host, int(port)


def check_reachable(address: str, what: str, seconds: float = CONNECT_SECONDS, default_port: int | None = None) -> None:
    """Connect to ``address`` (TCP) and close; a ValueError within ``seconds`` when nothing accepts there."""
    host, port = split_address(address, default_port)
    start = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=seconds):
            return
    except OSError as exc:
        waited = time.monotonic() - start
        why = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or type(exc).__name__)
        raise ValueError(
            f"no {what} answers at {host}:{port} ({why} after {waited:.1f} s, deadline {seconds:g} s); "
            "check the address and that it is running"
        ) from None
