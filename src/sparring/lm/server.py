"""``sparring serve``: a local model folder as an OpenAI-compatible ``/v1/chat/completions`` and ``/v1/models``.

Limits keep a bad request from costing more than an error: the body size
(413), the prompt length (400), ``max_tokens`` (capped, never refused). Every
malformed request gets a 4xx with an OpenAI-style ``{"error": {"message": ...}}``
body. Loopback by default; with an API key every request needs
``Authorization: Bearer KEY`` (401 otherwise).
"""

from __future__ import annotations

import dataclasses
import hmac
import json
import os
import socket
import threading
import time
import uuid

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException

from sparring.lm.batcher import Batcher, Job
from sparring.lm.local import LocalModel
from sparring.lm.protocol import ChatRequest

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclasses.dataclass(frozen=True)
class ServeLimits:
    """What one request may ask for."""

    max_request_bytes: int = 1 << 20
    """Largest request body in bytes (413 beyond)."""
    max_tokens: int = 256
    """Most tokens one answer may have; a larger ``max_tokens`` is lowered to this."""
    default_max_tokens: int = 64
    """Answer length when the request gives none."""
    max_prompt_tokens: int | None = None
    """Longest prompt in tokens (400 beyond); None: the model's context minus one answer token."""
    max_batch: int = 16
    """Most requests answered together in one batch (requests that arrive while the model is busy wait and
    are batched; seeded requests run alone)."""

    def __post_init__(self):
        for name in ("max_request_bytes", "max_tokens", "default_max_tokens", "max_batch"):
            if getattr(self, name) < 1:
                raise ValueError(f"serve limits: {name} must be >= 1, got {getattr(self, name)}")
        if self.max_prompt_tokens is not None and self.max_prompt_tokens < 1:
            raise ValueError(f"serve limits: max_prompt_tokens must be >= 1 or None, got {self.max_prompt_tokens}")


class ApiError(Exception):
    """A request the server refuses: HTTP ``status`` with ``message`` for the client."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.message, self.kind = status, message, kind


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)


def make_app(model: LocalModel, name: str | None = None, api_key: str | None = None,
             limits: ServeLimits = ServeLimits()) -> FastAPI:
    """The FastAPI app serving ``model`` under the id ``name`` (default: the folder's name).

    ``app.state.batcher`` is the :class:`~sparring.lm.batcher.Batcher` answering its requests.
    """
    name = name or os.path.basename(model.folder.rstrip(os.sep))
    prompt_cap = min(limits.max_prompt_tokens or model.context - 1, model.context - 1)
    created = int(time.time())
    app = FastAPI(title="sparring serve", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.batcher = batcher = Batcher(model, limits.max_batch)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return _error(exc.status, exc.message, exc.kind)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException):
        return _error(exc.status_code, f"{exc.detail}: {request.method} {request.url.path}; this server has "
                      "GET /v1/models and POST /v1/chat/completions")

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):
        return _error(500, f"internal error ({type(exc).__name__}): {exc}", "server_error")

    def _check_key(request: Request) -> None:
        if api_key is None:
            return
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {api_key}".encode()):
            raise ApiError(401, "missing or wrong API key; send the header 'Authorization: Bearer <key>'",
                           "authentication_error")

    def _model_card() -> dict:
        return {"id": name, "object": "model", "created": created, "owned_by": "sparring"}

    @app.get("/v1/models")
    async def list_models(request: Request):
        _check_key(request)
        return {"object": "list", "data": [_model_card()]}

    @app.get("/v1/models/{model_id:path}")
    async def get_model(model_id: str, request: Request):
        _check_key(request)
        if model_id != name:
            raise ApiError(404, f"model {model_id!r} not found; this server serves {name!r}", "not_found_error")
        return _model_card()

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request):
        _check_key(request)
        req = _parse(await _read_body(request, limits.max_request_bytes))
        if req.model != name:
            raise ApiError(404, f"model {req.model!r} not found; this server serves {name!r}", "not_found_error")
        messages = req.plain_messages()
        try:
            prompt = model.prompt_ids(messages)
        except Exception as exc:  # a template that refuses this conversation (e.g. roles out of order)
            raise ApiError(400, f"the model's chat template rejected the messages: {exc}") from None
        if len(prompt) > prompt_cap:
            raise ApiError(400, f"prompt is {len(prompt)} tokens; this server takes at most {prompt_cap}")
        wanted = req.max_completion_tokens or req.max_tokens or limits.default_max_tokens
        new_tokens = min(wanted, limits.max_tokens, model.context - len(prompt))
        done = await run_in_threadpool(batcher.run, Job(prompt, new_tokens, req.temperature, req.top_p, req.seed,
                                                        req.stop_list()))
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
            "model": name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": done.text},
                         "finish_reason": done.finish_reason}],
            "usage": {"prompt_tokens": done.prompt_tokens, "completion_tokens": done.completion_tokens,
                      "total_tokens": done.prompt_tokens + done.completion_tokens},
        }

    return app


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(400, f"Content-Length must be a number of bytes, got {declared!r}")
        if int(declared) > limit:
            raise ApiError(413, f"request body is {declared} bytes; this server takes at most {limit}")
    body = bytearray()
    async for chunk in request.stream():  # a chunked body has no Content-Length: count as it arrives
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"request body exceeds {limit} bytes")
    return bytes(body)


def _parse(body: bytes) -> ChatRequest:
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise ApiError(400, f"request body is not valid JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, "request body nests JSON too deeply") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"request body must be a JSON object, got {type(data).__name__}")
    try:
        return ChatRequest.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors())
        raise ApiError(400, f"invalid chat completion request: {problems}") from None


def bind(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {exc}") from None
    return sock


class BackgroundServer:
    """Uvicorn serving ``app`` on a thread of this process (tests, and games that host their own brains).

    ``url`` is the base URL of the API (``http://HOST:PORT/v1``); :meth:`stop` ends it.
    """

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0, start_timeout: float = 30.0):
        import uvicorn

        self._sock = bind(host, port)
        bound = self._sock.getsockname()
        self.url = f"http://{host if ':' not in host else f'[{host}]'}:{bound[1]}/v1"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self._sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + start_timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"uvicorn did not start on {host}:{bound[1]} within {start_timeout} s")
            time.sleep(0.01)

    def stop(self) -> None:
        """Ask uvicorn to exit and wait for its thread."""
        self.server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serve(folder: str, host: str = "127.0.0.1", port: int = 8000, api_key: str | None = None,
          name: str | None = None, limits: ServeLimits = ServeLimits(), threads: int | None = None) -> None:
    """Load the model folder and serve it until interrupted (blocking); ``threads``: torch CPU threads."""
    import uvicorn

    model = LocalModel(folder, threads)
    name = name or os.path.basename(model.folder.rstrip(os.sep))
    app = make_app(model, name, api_key, limits)
    sock = bind(host, port)
    where = f"[{host}]" if ":" in host else host
    print(f"serving {model.folder} as model {name!r} on http://{where}:{sock.getsockname()[1]}/v1"
          f"{' (API key required)' if api_key else ''}", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="info")).run(sockets=[sock])
