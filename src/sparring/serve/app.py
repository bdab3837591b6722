"""The OpenEnv server of a sparring env, built with OpenEnv's own server library (``create_app``).

OpenEnv gives the routes: ``/ws`` (a persistent session: ``reset``, ``step``, ``state``
messages; what :class:`~sparring.serve.client.SparringEnvClient` and OpenEnv's own
``GenericEnvClient`` speak), and stateless ``/reset``, ``/step``, ``/state``, ``/schema``,
``/health``, ``/metadata``. This module adds what a public server needs around them:
bad input answered 4xx with one line (``{"detail": "..."}``), never 5xx; request bodies
and WebSocket messages bounded; each HTTP request given a deadline to arrive whole (slow
clients get 408); sessions bounded in number and reaped when idle; the env of a plain HTTP
request built ``stateless`` (its ``/reset`` names a snapshot to step from).
"""

from __future__ import annotations

import contextvars
import dataclasses

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.types import ConcurrencyConfig, ServerMode
from starlette.exceptions import HTTPException

from sparring.lm.server import BackgroundServer, bind, ready_server, uvicorn_config
from sparring.serve.errors import RequestError
from sparring.serve.openenv_env import (
    SparringAction,
    SparringEnvironment,
    SparringObservation,
    SparringState,
    check_env,
)
from sparring.serve.snapshots import SnapshotStore


@dataclasses.dataclass(frozen=True)
class OpenEnvLimits:
    """The server's bounds: sessions at once, idle seconds before a session is reaped, request body and
    WebSocket message bytes, seconds for a request to arrive whole, and the snapshot store's size."""

    max_sessions: int = 256
    session_timeout: float = 600.0
    max_request_bytes: int = 64 << 10
    max_message_bytes: int = 64 << 10
    request_timeout: float = 10.0
    max_snapshots: int = 4096
    max_snapshot_bytes: int = 256 << 20


def make_app(
    env: str, config: dict | None = None, limits: OpenEnvLimits = OpenEnvLimits(), store: SnapshotStore | None = None
) -> FastAPI:
    """OpenEnv's FastAPI app serving ``env`` (its ``--env.KEY`` values in ``config``), one env per session."""
    config = check_env(env, config or {})
    store = store or SnapshotStore(limits.max_snapshots, limits.max_snapshot_bytes)

    def factory() -> SparringEnvironment:  # OpenEnv calls it per WebSocket session and per plain HTTP request
        return SparringEnvironment(env, config, store, stateless=_PLAIN_HTTP.get())

    app = create_app(
        factory,
        SparringAction,
        SparringObservation,
        env_name=env,
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=limits.max_sessions, session_timeout=limits.session_timeout
        ),
        state_cls=SparringState,
        mode=ServerMode.SIMULATION,
    )
    app.state.limits = limits  # uvicorn_config reads the request deadline here
    app.state.snapshots = store
    app.add_exception_handler(RequestError, _request_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_middleware(BodyLimit, limit=limits.max_request_bytes)
    app.add_middleware(PlainHttp)
    return app


_PLAIN_HTTP = contextvars.ContextVar("sparring_plain_http", default=False)


class PlainHttp:
    """ASGI middleware: marks the handling of a plain HTTP request (not a WebSocket session), so the env OpenEnv
    builds for it is ``stateless``."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        token = _PLAIN_HTTP.set(True)
        try:
            return await self.app(scope, receive, send)
        finally:
            _PLAIN_HTTP.reset(token)


def _one_line(errors) -> str:
    if isinstance(errors, str):
        return " ".join(errors.split())
    if isinstance(errors, (list, tuple)) and errors and isinstance(errors[0], dict):
        first = errors[0]
        if first.get("type") == "json_invalid":
            return f"malformed JSON: {first.get('ctx', {}).get('error', first.get('msg', 'invalid'))}"
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return " ".join(f"{where}: {first.get('msg', 'invalid')}{more}".split())
    return " ".join(str(errors).split())[:300]


async def _request_error(request, exc: RequestError):
    return JSONResponse({"detail": exc.line}, status_code=exc.status)


async def _validation_error(request, exc: RequestValidationError):
    return JSONResponse({"detail": _one_line(exc.errors())}, status_code=422)


async def _http_error(request, exc: HTTPException):
    return JSONResponse({"detail": _one_line(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


class BodyLimit:
    """ASGI middleware: an HTTP request body over ``limit`` bytes (declared or sent) is answered 413, unread."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, int(limit)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await self._reject(send)
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                return await self._reject(send)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _reject(self, send) -> None:
        await JSONResponse({"detail": f"request body exceeds {self.limit} bytes"}, status_code=413)(
            {"type": "http"}, None, send
        )


def server_config(app: FastAPI, **options):
    """Uvicorn's config for ``app``: the request deadline and the WebSocket message bound of its limits."""
    limits = app.state.limits
    return uvicorn_config(app, ws_max_size=limits.max_message_bytes, **options)


def serve(env: str, config: dict | None = None, host: str = "127.0.0.1", port: int = 8000, limits=OpenEnvLimits()):
    """Serve ``env`` until interrupted (blocking); prints ``serving ENV (OpenEnv) on http://HOST:PORT`` once
    listening. A bad env, config or address is a one-line ValueError before anything listens."""
    app = make_app(env, config, limits)
    sock = bind(host, port)
    try:
        where = f"[{host}]" if ":" in host else host
        line = f"serving {env} (OpenEnv) on http://{where}:{sock.getsockname()[1]} (WebSocket sessions at /ws)"
        ready_server(server_config(app, log_level="warning"), line).run(sockets=[sock])
    finally:
        sock.close()


class ServerThread(BackgroundServer):
    """The OpenEnv server of ``app`` on a thread of this process (tests, examples, benchmarks): ``url`` is
    ``http://HOST:PORT``; :meth:`stop` ends it."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0, start_timeout: float = 30.0):
        super().__init__(app, host, port, start_timeout, path="", config=server_config)
