"""``sparring openenv ENV``: serve an env with a text face as an OpenEnv environment (see docs/openenv.md)."""

from __future__ import annotations

import argparse

from sparring.cli.overrides import env_overrides
import sparring.cli.values as values
from sparring.cli.values import count


def cmd_openenv(args, extra) -> int:
    """Serve the env until interrupted; one line, ``serving ENV (OpenEnv) on http://HOST:PORT ...``, once listening."""
    from sparring.serve.app import OpenEnvLimits, serve

    limits = OpenEnvLimits(
        max_sessions=args.max_sessions,
        session_timeout=args.session_timeout,
        max_request_bytes=args.max_request_bytes,
        max_message_bytes=args.max_request_bytes,
        request_timeout=args.request_timeout,
        max_snapshots=args.max_snapshots,
        max_snapshot_bytes=args.max_snapshot_mb << 20,
    )
    for name in ("session_timeout", "request_timeout"):
        if not getattr(args, name) > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be > 0 seconds, got {getattr(args, name)}")
    serve(args.env, env_overrides(extra), args.host, args.port, limits)
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``openenv``."""
    p = sub.add_parser(
        "openenv",
        help="serve an env with a text face as an OpenEnv environment (WebSocket sessions, exact snapshots)",
    )
    p.add_argument("env", help="an env with a text face (town, duel, serpent, ...); --env.KEY VALUE sets its config")
    p.add_argument("--host", default="127.0.0.1", type=values.host(), help="address to listen on (default loopback)")
    p.add_argument("--port", type=values.port(), default=8000, help="port (0: any free port; default 8000)")
    p.add_argument("--max-sessions", type=count(1), default=256, help="sessions at once (default 256)")
    p.add_argument(
        "--session-timeout",
        type=values.number(0, 1e9, above=True),
        default=600.0,
        help="idle seconds before a session is closed",
    )
    p.add_argument("--max-request-bytes", type=count(1), default=64 << 10, help="largest body or WebSocket message")
    p.add_argument(
        "--request-timeout",
        type=values.number(0, 1e6, above=True),
        default=10.0,
        help="seconds for an HTTP request to arrive whole",
    )
    p.add_argument("--max-snapshots", type=count(1), default=4096, help="snapshots kept (oldest evicted first)")
    p.add_argument("--max-snapshot-mb", type=count(1), default=256, help="memory of the snapshots kept, in MiB")
    p.set_defaults(fn=cmd_openenv)
