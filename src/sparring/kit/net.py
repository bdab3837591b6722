"""Network waits with deadlines: an address that nothing answers at fails within a stated time, on one line."""

from __future__ import annotations

import ipaddress
import re
import socket
import time

CONNECT_SECONDS = 10.0
"""How long a connection to a cluster or server may take before the command gives up."""


def split_address(address: str, default_port: int | None = None) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT``, ``[V6]:PORT`` or ``SCHEME://HOST:PORT[/...]``; a ValueError says why not."""
    rest = address.split("://", 1)[-1].split("/", 1)[0]
    if rest.startswith("["):
        host, closed, port = rest[1:].partition("]")
        if not closed or (port and not port.startswith(":")):
            raise ValueError(f"address {address!r}: an IPv6 host needs both brackets, e.g. [::1]:6379")
        port = port.removeprefix(":")
    else:
        host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
    if not port and default_port is not None:
        port = str(default_port)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"address {address!r} is not HOST:PORT (a port in 1..65535), e.g. 127.0.0.1:6379")
    return host, int(port)


def check_http_url(url: str, what: str) -> str:
    """``url`` when it is an ``http(s)://HOST[:PORT][/PATH]`` address; else a one-line ValueError naming ``what``
    and the fault (an IPv6 host without both brackets, a port that is not a number in 1..65535, no host)."""
    example = "e.g. http://127.0.0.1:8000/v1 or http://[::1]:8000/v1"
    scheme, sep, rest = url.partition("://") if isinstance(url, str) else ("", "", "")
    if not sep or scheme.lower() not in ("http", "https"):
        raise ValueError(f"{what} {url!r} is not an http(s) URL; {example}")
    hostport = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]
    if hostport.startswith("["):
        host, closed, port = hostport[1:].partition("]")
        if not closed or "[" in host or "]" in port or (port and not port.startswith(":")):
            raise ValueError(f"{what} {url!r}: an IPv6 host needs both brackets, once; {example}")
        port = port[1:] if port else None
        try:
            ipaddress.IPv6Address(host.partition("%")[0])
        except ValueError:
            raise ValueError(f"{what} {url!r}: {host!r} in brackets is not an IPv6 address; {example}") from None
    else:
        if "[" in hostport or "]" in hostport:
            raise ValueError(f"{what} {url!r}: an IPv6 host needs both brackets, once; {example}")
        if hostport.count(":") > 1:
            raise ValueError(f"{what} {url!r}: an IPv6 host needs brackets, or its port is mistyped; {example}")
        host, colon, port = hostport.partition(":")
        port = port if colon else None
    if not host or any(c.isspace() for c in host):
        raise ValueError(f"{what} {url!r} names no host; {example}")
    if port is not None and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(f"{what} {url!r}: its port {port!r} is not a number in 1..65535; {example}")
    return url


def check_reachable(address: str, what: str, seconds: float = CONNECT_SECONDS, default_port: int | None = None) -> None:
    """Connect to ``address`` (TCP) and close; a ValueError within ``seconds`` when nothing accepts there."""
    try:
        host, port = split_address(address, default_port)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
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
