"""A text brain answered by any OpenAI-compatible chat endpoint (``POST {base_url}/chat/completions``).

Requests run on ``concurrency`` threads; a timeout, a connection error, HTTP 408,
409, 429 or 5xx is retried up to ``retries`` times, waiting ``backoff * 2**k`` seconds
before retry ``k`` (0, 1, ...); tenacity runs the attempts and the waits. Other 4xx
replies and 200 replies that are not a chat completion are not retried. Every turn
without a usable answer takes the safe action and is counted.

Network waits have deadlines: a connection must open within ``connect_timeout`` seconds (5),
and when no reply at all (no HTTP status) has come for ``unreachable_s`` seconds (30) of
attempts, counted from the first attempt or the last reply, the brain raises
:class:`EndpointUnreachable` (a ValueError, one line naming the URL) instead of taking the safe
action for ever: a URL without its port, or a host that drops packets, fails within
``unreachable_s`` plus one ``timeout``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import httpx
import tenacity

from sparring.kit.net import check_http_url
from sparring.lm.brains import TextFn
from sparring.lm.prompts import DEFAULT_SYSTEM
from sparring.lm.text_brain import ParseFn, TextBrain

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class EndpointUnreachable(ValueError):
    """No reply at all from the endpoint within the brain's deadline (``unreachable_s``)."""


class OpenAIBrain(TextBrain):
    """Chat completions from ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``) with ``model``.

    ``seed`` is sent with every request (servers that honour it, like ``sparring serve``, then
    sample each answer reproducibly).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        parse: ParseFn,
        safe_action: int | Sequence[int],
        api_key: str | None = None,
        system: str = DEFAULT_SYSTEM,
        timeout: float = 30.0,
        retries: int = 3,
        backoff: float = 0.5,
        concurrency: int = 4,
        max_tokens: int = 24,
        temperature: float = 0.0,
        seed: int | None = None,
        text: TextFn | None = None,
        connect_timeout: float = 5.0,
        unreachable_s: float = 30.0,
    ):
        super().__init__(parse, safe_action, system, text)
        check_http_url(base_url, "base_url")
        finite = all(math.isfinite(v) for v in (timeout, backoff, temperature, connect_timeout, unreachable_s))
        if (
            not finite
            or timeout <= 0
            or retries < 0
            or backoff < 0
            or concurrency < 1
            or max_tokens < 1
            or temperature < 0
            or connect_timeout <= 0
            or unreachable_s <= 0
        ):
            raise ValueError(
                f"need finite timeout > 0, retries >= 0, backoff >= 0, concurrency >= 1, max_tokens >= 1, "
                f"temperature >= 0, connect_timeout > 0, unreachable_s > 0; got {timeout}, {retries}, {backoff}, "
                f"{concurrency}, {max_tokens}, {temperature}, {connect_timeout}, {unreachable_s}"
            )
        self.name = f"openai:{base_url}:{model}"
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.retries, self.backoff, self.concurrency = model, retries, backoff, concurrency
        self.max_tokens, self.temperature, self.seed = max_tokens, temperature, seed
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.base_url, self.unreachable_s = base_url, float(unreachable_s)
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(timeout, connect_timeout)),
            headers=headers,
            limits=httpx.Limits(max_connections=concurrency),
        )
        self._silent_since: float | None = None  # when the attempts without any reply began
        self.requests = 0
        """HTTP attempts made (retries included)."""
        self._lock = threading.Lock()  # counters are updated from the request threads

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def __enter__(self) -> OpenAIBrain:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def answer(self, conversations: list[list[dict]]) -> list[str | None]:
        """The answers, asked ``concurrency`` at a time; None where no usable answer came."""
        if len(conversations) <= 1 or self.concurrency == 1:
            return [self._ask(c) for c in conversations]
        with ThreadPoolExecutor(min(self.concurrency, len(conversations))) as pool:
            return list(pool.map(self._ask, conversations))

    def _ask(self, messages: list[dict]) -> str | None:
        body = {
            "model": self.model,
            "messages": messages,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            **({} if self.seed is None else {"seed": self.seed}),
        }
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=tenacity.wait_exponential(multiplier=self.backoff),  # backoff * 2**k before retry k
            retry=tenacity.retry_if_exception_type(_TryAgain),
            retry_error_callback=lambda state: None,  # out of tries: no answer; last_error says why
        )
        return retrying(self._attempt, body)

    def _attempt(self, body: dict) -> str | None:
        """One POST: the answer, None for a reply not worth repeating, :class:`_TryAgain` for one that is."""
        with self._lock:
            self.requests += 1
        started = time.monotonic()
        try:
            reply = self._client.post(self.url, json=body)
        except httpx.HTTPError as exc:  # timeouts and connection errors: worth another try, within the deadline
            self.stats.last_error = f"{type(exc).__name__}: {exc}"
            self._no_reply(exc, started)
            raise _TryAgain from exc
        with self._lock:
            self._silent_since = None
        if reply.status_code != 200:
            self.stats.last_error = f"HTTP {reply.status_code}: {reply.text[:200]}"
            if reply.status_code in RETRY_STATUS:
                raise _TryAgain
            return None
        return self._content(reply)

    def _no_reply(self, exc: Exception, started: float) -> None:
        """Count an attempt (begun at ``started``) that got no reply; past ``unreachable_s`` of attempts without any
        reply, give up for good."""
        with self._lock:
            if self._silent_since is None:
                self._silent_since = started
            silent = time.monotonic() - self._silent_since
        if silent >= self.unreachable_s:
            why = " ".join(str(exc).split()) or type(exc).__name__
            raise EndpointUnreachable(
                f"openai endpoint {self.base_url} gave no reply for {silent:.0f} s (deadline {self.unreachable_s:g} s; "
                f"last: {type(exc).__name__}: {why[:80]}); check the URL, with its port "
                "(e.g. http://127.0.0.1:8000/v1), and that the server is up"
            ) from None

    def _content(self, reply: httpx.Response) -> str | None:
        try:
            data = reply.json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            self.stats.last_error = f"not a chat completion ({type(exc).__name__}): {reply.text[:200]!r}"
            return None
        if not isinstance(content, str):
            self.stats.last_error = f"message content is {type(content).__name__}, not text"
            return None
        usage = data.get("usage") if isinstance(data, dict) else None
        if isinstance(usage, dict):  # counts are the server's word; a missing or odd field counts as 0
            with self._lock:
                self.stats.prompt_tokens += _count(usage.get("prompt_tokens"))
                self.stats.completion_tokens += _count(usage.get("completion_tokens"))
        return content


class _TryAgain(Exception):
    """An attempt that failed in a way another attempt may not (timeout, connection error, 408/409/429/5xx)."""


def _count(value) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
