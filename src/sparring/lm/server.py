"""``sparring serve``: a local model folder as an OpenAI-compatible ``/v1/chat/completions`` and ``/v1/models``.

Limits keep a bad request from costing more than an error: the body size
(413), the prompt length in characters (400, checked before tokenizing) and in
tokens (400), ``max_tokens`` (capped, never refused), and the time a client has to
send its whole request (408 and the connection closed). Every field is type- and
range-checked (``seed`` in 0..2**63-1, ``temperature`` in [0, 2], ...): a bad one
gets a 400 naming the field, what is valid and what was sent. A ``temperature`` below
``TEMPERATURE_FLOOR`` (1e-3) is greedy decoding, as 0 is (dividing the logits by 1e-300
would overflow them): a valid-looking request is never answered 5xx. Every malformed
request gets a 4xx with an OpenAI-style ``{"error": {"message": ...}}`` body. CPU
work (parsing, the chat template, tokenizing, generating) runs on worker threads,
never on the event loop, so a huge prompt does not stall other clients. Loopback
by default; with an API key every request needs ``Authorization: Bearer KEY``
(401 otherwise).
"""

from __future__ import annotations

import dataclasses
import errno
import hmac
import json
import math
import socket
import threading
import time
import uuid

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from sparring.lm.batcher import Batcher, Job
from sparring.lm.local import LocalModel
from sparring.lm.protocol import ChatRequest

LOOPBACK = ("127.0.0.1", "::1", "localhost")
SEED_MAX = 2**63 - 1
TEMPERATURE_FLOOR = 1e-3
"""A request's ``temperature`` below this is greedy decoding (as 0): at such temperatures sampling is greedy anyway,
and a tiny one (1e-300, 5e-324) would overflow the logits it divides."""
"""Largest ``seed`` a request may give: seeds are 0..2**63-1, non-negative signed 64-bit integers (torch takes them)."""


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
    max_prompt_chars: int | None = None
    """Longest prompt in characters (the messages' text together), refused (400) before any tokenizing;
    None: the prompt token cap times the longest entry of the model's vocabulary (with a byte-level or
    SentencePiece vocabulary, a longer prompt cannot fit in that many tokens)."""
    request_timeout: float = 10.0
    """Seconds a client has to send a whole request, headers and body, from connecting (or from the first byte
    of a later request on the same connection); past it: 408 and the connection closed. Idle kept-alive
    connections are closed after uvicorn's ``timeout_keep_alive`` (5 s)."""

    def __post_init__(self):
        for name in ("max_request_bytes", "max_tokens", "default_max_tokens", "max_batch"):
            if getattr(self, name) < 1:
                raise ValueError(f"serve limits: {name} must be >= 1, got {getattr(self, name)}")
        for name in ("max_prompt_tokens", "max_prompt_chars"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"serve limits: {name} must be >= 1 or None, got {getattr(self, name)}")
        if not (math.isfinite(self.request_timeout) and self.request_timeout > 0):
            raise ValueError(
                f"serve limits: request_timeout must be a finite number of seconds > 0, got {self.request_timeout}"
            )


class ApiError(Exception):
    """A request the server refuses: HTTP ``status`` with ``message`` for the client."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.message, self.kind = status, message, kind


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)


def make_app(
    model: LocalModel, name: str | None = None, api_key: str | None = None, limits: ServeLimits = ServeLimits()
) -> FastAPI:
    """The FastAPI app serving ``model`` under the id ``name`` (default: the model's name, :attr:`LocalModel.name`:
    its folder's or file's, or the name it was given by, ``smollm2``).

    ``app.state.batcher`` is the :class:`~sparring.lm.batcher.Batcher` answering its requests.
    """
    check_identity(name, api_key)
    name = name or model.name
    prompt_cap = min(limits.max_prompt_tokens or model.context - 1, model.context - 1)
    char_cap = limits.max_prompt_chars or prompt_cap * _longest_token(model.tokenizer)
    created = int(time.time())
    app = FastAPI(title="sparring serve", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.batcher = batcher = Batcher(model, limits.max_batch)
    app.state.limits = limits
    valid = _valid_values(name, limits.max_tokens)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return _error(exc.status, exc.message, exc.kind)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException):
        return _error(
            exc.status_code,
            f"{exc.detail}: {request.method} {request.url.path}; this server has "
            "GET /v1/models and POST /v1/chat/completions",
        )

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):
        return _error(500, f"internal error ({type(exc).__name__}): {exc}", "server_error")

    def _check_key(request: Request) -> None:
        if api_key is None:
            return
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {api_key}".encode()):
            raise ApiError(
                401, "missing or wrong API key; send the header 'Authorization: Bearer <key>'", "authentication_error"
            )

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

    def _prepare(body: bytes) -> tuple[ChatRequest, list[int]]:
        """The request and its prompt's token ids (on a worker thread: parsing and tokenizing cost CPU)."""
        req = _parse(body, valid)
        if req.model != name:
            raise ApiError(404, f"model {req.model!r} not found; this server serves {name!r}", "not_found_error")
        messages = req.plain_messages()
        chars = sum(len(m["content"]) for m in messages)
        if chars > char_cap:
            raise ApiError(
                400,
                f"prompt is {chars} characters; this server takes at most {char_cap} characters ({prompt_cap} tokens)",
            )
        try:
            prompt = model.prompt_ids(messages)
        except Exception as exc:  # a template that refuses this conversation (e.g. roles out of order)
            raise ApiError(400, f"the model's chat template rejected the messages: {exc}") from None
        if len(prompt) > prompt_cap:
            raise ApiError(400, f"prompt is {len(prompt)} tokens; this server takes at most {prompt_cap}")
        return req, prompt

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request):
        _check_key(request)
        req, prompt = await run_in_threadpool(_prepare, await _read_body(request, limits.max_request_bytes))
        wanted = req.max_completion_tokens or req.max_tokens or limits.default_max_tokens
        new_tokens = min(wanted, limits.max_tokens, model.context - len(prompt))
        temperature = req.temperature if req.temperature >= TEMPERATURE_FLOOR else 0.0
        done = await run_in_threadpool(
            batcher.run, Job(prompt, new_tokens, temperature, req.top_p, req.seed, req.stop_list())
        )
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": name,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": done.text},
                    "finish_reason": done.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": done.prompt_tokens,
                "completion_tokens": done.completion_tokens,
                "total_tokens": done.prompt_tokens + done.completion_tokens,
            },
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
    try:
        async for chunk in request.stream():  # a chunked body has no Content-Length: count as it arrives
            body += chunk
            if len(body) > limit:
                raise ApiError(413, f"request body exceeds {limit} bytes")
    except ClientDisconnect:  # gone, or cut off by the request timeout: nobody reads this answer
        raise ApiError(400, "the client disconnected before sending the whole body") from None
    return bytes(body)


class _CheckedRequest(ChatRequest):
    """:class:`ChatRequest` with the ranges only the server needs (a seed torch can take)."""

    seed: int | None = Field(None, ge=0, le=SEED_MAX)


def _valid_values(name: str, max_tokens: int) -> dict[str, str]:
    """What each request field may be, for error messages (keys: field names; ``X[]``: an item of list X)."""
    tokens = f"an integer >= 1 (answers are capped at {max_tokens} tokens)"
    return {
        "model": f"a string, the served model's id {name!r}",
        "messages": "a list of at least one message {role, content}",
        "messages[]": "a message object {role, content}",
        "role": "'system', 'user' or 'assistant'",
        "content": "a string or a list of text parts {type: 'text', text: string}",
        "content[]": "a text part {type: 'text', text: string}",
        "type": "'text'",
        "text": "a string",
        "max_tokens": tokens,
        "max_completion_tokens": tokens,
        "temperature": "a number from 0 to 2",
        "top_p": "a number above 0 and at most 1",
        "n": "1",
        "stream": "false (streaming is not supported)",
        "stop": "a string or a list of at most 4 strings",
        "stop[]": "a string",
        "seed": f"an integer from 0 to {SEED_MAX} (2**63-1)",
    }


def _shown(value) -> str:
    """``value`` as JSON, cut to a few dozen characters, for an error message."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _problem(error: dict, valid: dict[str, str]) -> tuple[str, str]:
    """One pydantic error as (field path, message); union branches ('str', 'list[str]') are left out of the path."""
    parts = [p for p in error["loc"] if isinstance(p, int) or p in valid]
    path = ".".join(str(p) for p in parts) or "body"
    names = [p for p in parts if isinstance(p, str)]
    key = (names[-1] + ("[]" if parts and isinstance(parts[-1], int) else "")) if names else ""
    what = valid.get(key)
    if error["type"] == "value_error":  # the schema's own checks say what is wrong themselves
        return path, f"{path}: {error['msg'].removeprefix('Value error, ')}"
    if what is None:
        return path, f"{path}: {error['msg']}"
    if error["type"] == "missing":
        return path, f"{path} is required: {what}"
    return path, f"{path} must be {what}, got {_shown(error.get('input'))}"


def _parse(body: bytes, valid: dict[str, str]) -> ChatRequest:
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise ApiError(400, f"request body is not valid JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, "request body nests JSON too deeply") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"request body must be a JSON object, got {type(data).__name__}")
    try:
        return _CheckedRequest.model_validate(data, strict=True)  # strict: "5" is no number, 1.0 no integer
    except ValidationError as exc:
        problems: dict[str, tuple[int, str]] = {}  # one message per field: its deepest error, the first if tied
        for error in exc.errors():  # (a union gives one error per branch; the deepest branch got furthest)
            path, text = _problem(error, valid)
            field, depth = path.split(".")[0], path.count(".")
            if field not in problems or depth > problems[field][0]:
                problems[field] = (depth, text)
        raise ApiError(400, "invalid chat completion request: " + "; ".join(t for _, t in problems.values())) from None


def check_identity(name: str | None, api_key: str | None) -> None:
    """The served model id and API key, when given, are non-empty printable ASCII without spaces (a header
    carries the key; clients send the id): else a ValueError naming the flag and what is valid."""
    for flag, value in (("--name", name), ("--api-key", api_key)):
        if value is None:
            continue
        if not value or len(value) > 256 or not all("!" <= ch <= "~" for ch in value):
            shown = repr(value) if len(value) <= 40 else repr(value[:37]) + "..."
            raise ValueError(
                f"{flag} must be 1 to 256 printable ASCII characters without spaces, got {shown}"
                + ("; leave --api-key out to serve without one" if flag == "--api-key" else "")
            )


def check_threads(threads: int | None) -> None:
    """``threads`` (torch CPU threads) is None or 1 to 1024; else a ValueError naming ``--threads``."""
    if threads is not None and not (isinstance(threads, int) and 1 <= threads <= 1024):
        raise ValueError(f"--threads must be an integer in [1, 1024] (torch CPU threads), got {threads!r}")


def _longest_token(tokenizer) -> int:
    """Characters in the longest entry of ``tokenizer``'s vocabulary (at least 1)."""
    return max(1, max((len(t) for t in tokenizer.get_vocab()), default=1))


def bind(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on such sockets; without it every answer
    # written in two parts (headers, body) waits ~40 ms for the client's delayed ACK (Nagle)
    if not (isinstance(port, int) and 0 <= port <= 65535):
        raise ValueError(f"--port must be an integer in [0, 65535] (0: any free port), got {port!r}")
    try:
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError as exc:
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, UnicodeError, ValueError, OverflowError) as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {_bind_problem(exc)}") from None
    return sock


def _bind_problem(exc: BaseException) -> str:
    """Why a bind failed, in words (not errno text), with what to do."""
    number = getattr(exc, "errno", None)
    if number == errno.EADDRINUSE:
        return "the port is in use by another program; give another --port (0: any free port)"
    if number == errno.EACCES:
        return "this user may not listen on that port (ports below 1024 need privileges); give --port 1024 or above"
    if number == errno.EADDRNOTAVAIL:
        return "this machine has no such address; give --host 127.0.0.1, 0.0.0.0 or one of its own addresses"
    if isinstance(exc, socket.gaierror) or isinstance(exc, (UnicodeError, ValueError)):
        return "the host is not an address or name this machine can resolve; give e.g. --host 127.0.0.1"
    text = getattr(exc, "strerror", None) or " ".join(str(exc).split())
    return f"{text}; give another --host or --port"


def uvicorn_config(app: FastAPI, **options):
    """Uvicorn's config for ``app``, with the request timeout of its :class:`ServeLimits` (``app.state.limits``,
    the defaults for an app :func:`make_app` did not build)."""
    import uvicorn

    from sparring.lm.http_deadline import deadline_protocol

    limits = getattr(app.state, "limits", None) or ServeLimits()
    return uvicorn.Config(app, http=deadline_protocol(limits.request_timeout), **options)


class BackgroundServer:
    """Uvicorn serving ``app`` on a thread of this process (tests, and games that host their own brains).

    ``url`` is the base URL of the API (``http://HOST:PORT`` + ``path``, by default this server's ``/v1``);
    ``config(app, **options)`` builds uvicorn's config (default :func:`uvicorn_config` without lifespan events;
    the OpenEnv server passes its own). :meth:`stop` ends it.
    """

    def __init__(
        self,
        app: FastAPI,
        host: str = "127.0.0.1",
        port: int = 0,
        start_timeout: float = 30.0,
        path: str = "/v1",
        config=None,
    ):
        import uvicorn

        self._sock = bind(host, port)
        bound = self._sock.getsockname()
        self.url = f"http://{host if ':' not in host else f'[{host}]'}:{bound[1]}{path}"
        options = {"log_level": "warning"} if config else {"log_level": "warning", "lifespan": "off"}
        self.server = uvicorn.Server((config or uvicorn_config)(app, **options))
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


def serve(
    folder: str,
    host: str = "127.0.0.1",
    port: int = 8000,
    api_key: str | None = None,
    name: str | None = None,
    limits: ServeLimits = ServeLimits(),
    threads: int | None = None,
) -> None:
    """Load the model folder and serve it until interrupted (blocking); ``threads``: torch CPU threads.

    Every argument is checked before the model loads (a bad one is a ValueError naming its flag); once the
    server accepts connections it prints one line, ``serving FOLDER as model NAME on http://HOST:PORT/v1``.
    """
    check_identity(name, api_key)
    check_threads(threads)
    sock = bind(host, port)  # before the model loads: a bad address fails at once
    try:
        model = LocalModel(folder, threads)
        name = name or model.name
        app = make_app(model, name, api_key, limits)
        where = f"[{host}]" if ":" in host else host
        ready = (
            f"serving {model.folder} as model {name!r} on http://{where}:{sock.getsockname()[1]}/v1"
            f"{' (API key required)' if api_key else ''}"
        )
        ready_server(uvicorn_config(app, log_level="info"), ready).run(sockets=[sock])
    finally:
        sock.close()


def ready_server(config, line: str):
    """A uvicorn server for ``config`` that prints ``line`` once it has started (listening, the app up)."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print(line, flush=True)

    return Server(config)
