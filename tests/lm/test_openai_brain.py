"""OpenAIBrain against the real server, a server that answers garbage, a slow one, and none at all."""

import asyncio
import http.server
import json
import socket
import threading
import time

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse, PlainTextResponse

from sparring.lm import Observations, OpenAIBrain
from sparring.lm.server import BackgroundServer, bind
from tests.lm.conftest import KEY

SAFE = 0
SYSTEM = "act"  # short: the test server takes prompts of at most 64 tokens


def _batch(n: int, actions: int = 8) -> Observations:
    texts = [f"talk to {name}" for name in ("Ada", "Ben", "Cora", "Dan", "Eve", "Finn")[:n]]
    return Observations(np.arange(n), texts, np.zeros((n, 3), np.float32), np.ones((n, actions), bool), (actions,))


def _keep(seen):
    """A parser that records each answer and maps answer i to action i + 1."""

    def parse(text, batch, i):
        seen[i] = text
        return i + 1

    return parse


def test_end_to_end_with_the_server(server, tiny_model):
    seen = {}
    with OpenAIBrain(
        server.url,
        "tiny",
        _keep(seen),
        SAFE,
        api_key=KEY,
        system=SYSTEM,
        max_tokens=4,
        concurrency=3,
        temperature=1.0,
        seed=7,
    ) as brain:
        batch = _batch(4)
        assert brain.decide(batch).tolist() == [[1], [2], [3], [4]]
        expected = [tiny_model.chat([brain.messages(t)], 4, temperature=1.0, seed=7)[0] for t in batch.texts]
    assert [seen[i] for i in range(4)] == [c.text for c in expected] and all(seen.values())
    assert (brain.stats.parsed, brain.stats.failed, brain.stats.unparseable, brain.requests) == (4, 0, 0, 4)
    assert brain.stats.prompt_tokens == sum(c.prompt_tokens for c in expected)
    assert brain.stats.completion_tokens == sum(c.completion_tokens for c in expected)


def test_unparseable_and_disallowed_answers_take_the_safe_action(server):
    batch = _batch(3)
    batch.mask[1, 2] = False  # the answer of character 1 parses to action 2, which its mask forbids
    parse = lambda text, b, i: None if i == 0 else 2  # noqa: E731
    with OpenAIBrain(server.url, "tiny", parse, SAFE, api_key=KEY, system=SYSTEM, max_tokens=2) as brain:
        assert brain.decide(batch).tolist() == [[SAFE], [SAFE], [2]]
    assert (brain.stats.parsed, brain.stats.unparseable, brain.stats.fallbacks, brain.stats.turns) == (1, 2, 2, 3)
    assert "not allowed now" in brain.stats.last_error


def test_wrong_key_fails_without_retrying(server):
    with OpenAIBrain(server.url, "tiny", _keep({}), SAFE, api_key="wrong", retries=3, backoff=0) as brain:
        assert brain.decide(_batch(2)).tolist() == [[SAFE], [SAFE]]
    assert (brain.stats.failed, brain.requests) == (2, 2)
    assert brain.stats.last_error.startswith("HTTP 401")


@pytest.fixture(scope="module")
def odd_server():
    """A server that answers garbage (200, not JSON), wrong JSON, 503, or slowly; it tracks requests in flight."""
    app, state = FastAPI(), {"now": 0, "most": 0}
    lock = threading.Lock()

    @app.post("/{mode}/v1/chat/completions")
    async def reply(mode: str):
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        try:
            await asyncio.sleep(0.5 if mode == "slow" else 0.05)
            if mode == "garbage":
                return PlainTextResponse("<html>surprise</html>")
            if mode == "wrong":
                return {"choices": [{"message": {"content": 42}}]}
            if mode == "busy":
                return JSONResponse({"error": {"message": "overloaded"}}, status_code=503)
            return {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
        finally:
            with lock:
                state["now"] -= 1

    with BackgroundServer(app) as running:
        yield running.url.removesuffix("/v1"), state


@pytest.mark.parametrize("mode, reason", [("garbage", "not a chat completion"), ("wrong", "content is int")])
def test_garbage_answers_are_counted_failures(odd_server, mode, reason):
    base, _ = odd_server
    with OpenAIBrain(f"{base}/{mode}/v1", "m", _keep({}), SAFE, retries=2, backoff=0) as brain:
        assert brain.decide(_batch(3)).tolist() == [[SAFE]] * 3
    assert (brain.stats.failed, brain.stats.parsed, brain.requests) == (3, 0, 3)  # a 200 reply is not retried
    assert reason in brain.stats.last_error


def test_busy_server_is_retried_with_backoff_then_counted(odd_server):
    base, _ = odd_server
    with OpenAIBrain(f"{base}/busy/v1", "m", _keep({}), SAFE, retries=2, backoff=0.01) as brain:
        assert brain.decide(_batch(2)).tolist() == [[SAFE], [SAFE]]
    assert (brain.stats.failed, brain.requests) == (2, 2 * 3)
    assert brain.stats.last_error.startswith("HTTP 503")


class _Flaky(http.server.BaseHTTPRequestHandler):
    """Per conversation, attempt k gets ``PLAN[k - 1]``: the connection dropped (no reply at all), a 503, or the
    answer (also past the plan's end)."""

    PLAN = ("drop", 503, "answer")

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        key = body["messages"][-1]["content"]
        with self.server.lock:
            self.server.seen.setdefault(key, []).append(time.monotonic())
            attempt = len(self.server.seen[key])
        step = self.PLAN[attempt - 1] if attempt <= len(self.PLAN) else "answer"
        if step == "drop":
            self.close_connection = True  # no reply at all: the client sees the connection drop
            return
        if step == 503:
            reply, status = b'{"error": {"message": "overloaded"}}', 503
        else:
            reply, status = json.dumps({"choices": [{"message": {"content": f"ok {key}"}}]}).encode(), 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


class _DropsAgain(_Flaky):
    PLAN = ("drop", 503, "drop", "answer")


def _serve(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.lock, server.seen = threading.Lock(), {}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


@pytest.fixture
def flaky_server():
    server, url = _serve(_Flaky)
    yield url, server.seen
    server.shutdown()
    server.server_close()


def test_a_dropped_connection_and_a_503_are_retried_with_growing_waits(flaky_server):
    url, seen = flaky_server
    answers = {}
    with OpenAIBrain(url, "m", _keep(answers), SAFE, retries=2, backoff=0.2, concurrency=2) as brain:
        assert brain.decide(_batch(2)).tolist() == [[1], [2]]
    assert sorted(answers.values()) == ["ok talk to Ada", "ok talk to Ben"]
    assert (brain.stats.parsed, brain.stats.failed, brain.requests) == (2, 0, 6)
    for times in seen.values():
        first, second = times[1] - times[0], times[2] - times[1]
        assert 0.2 <= first < second and second >= 0.4  # backoff * 2**k before retry k


def test_one_retry_too_few_counts_the_turn_as_failed(flaky_server):
    url, seen = flaky_server
    with OpenAIBrain(url, "m", _keep({}), SAFE, retries=1, backoff=0) as brain:
        assert brain.decide(_batch(1)).tolist() == [[SAFE]]
    assert (brain.stats.failed, brain.requests) == (1, 2) and brain.stats.last_error.startswith("HTTP 503")


def test_timeouts_fail_and_concurrency_is_limited(odd_server):
    base, state = odd_server
    with OpenAIBrain(f"{base}/slow/v1", "m", _keep({}), SAFE, timeout=0.2, retries=0) as brain:
        assert brain.decide(_batch(1)).tolist() == [[SAFE]]
    assert brain.stats.failed == 1 and "Timeout" in brain.stats.last_error
    deadline = time.monotonic() + 5
    while state["now"] and time.monotonic() < deadline:  # the server still sleeps on the request given up on
        time.sleep(0.05)
    state["most"] = 0
    with OpenAIBrain(f"{base}/fine/v1", "m", _keep({}), SAFE, concurrency=2) as brain:
        assert brain.decide(_batch(6)).tolist() == [[1], [2], [3], [4], [5], [6]]
    assert state["most"] == 2


def test_server_down_is_retried_then_counted():
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with OpenAIBrain(f"http://127.0.0.1:{port}/v1", "m", _keep({}), SAFE, retries=1, backoff=0.01) as brain:
        assert brain.decide(_batch(3)).tolist() == [[SAFE]] * 3
    assert (brain.stats.failed, brain.stats.fallbacks, brain.requests) == (3, 3, 6)
    assert "ConnectError" in brain.stats.last_error


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="base_url 'localhost:8000' is not an http"):
        OpenAIBrain("localhost:8000", "m", _keep({}), SAFE)
    with pytest.raises(ValueError, match="IPv6 host needs both brackets"):
        OpenAIBrain("http://[::1:8000/v1", "m", _keep({}), SAFE)
    with pytest.raises(ValueError, match="concurrency >= 1"):
        OpenAIBrain("http://x/v1", "m", _keep({}), SAFE, concurrency=0)
    with pytest.raises(TypeError, match="parse must be callable"):
        OpenAIBrain("http://x/v1", "m", "not a function", SAFE)
    with (
        OpenAIBrain("http://x/v1", "m", _keep({}), [0, 1]) as brain,
        pytest.raises(ValueError, match=r"safe_action \[0, 1\] has 2 values; the env has 1 action heads"),
    ):
        brain.decide(_batch(1))


def test_an_endpoint_that_never_replies_fails_within_the_deadline():
    """Issue 39: `play town --brain openai:URL` with a URL that has no port waited for ever. Nothing listening
    (the port a URL without one means, 80, is closed here), and a listener that accepts and never answers: both
    raise EndpointUnreachable, one line naming the URL, within the deadline plus one timeout."""
    from sparring.lm.openai_brain import EndpointUnreachable

    closed = bind("127.0.0.1", 0)
    port = closed.getsockname()[1]
    closed.close()
    silent = bind("127.0.0.1", 0)
    silent.listen(16)  # connections complete in the backlog; nobody reads or answers them
    try:
        for url in (f"http://127.0.0.1:{port}/v1", f"http://127.0.0.1:{silent.getsockname()[1]}/v1"):
            start = time.monotonic()
            brain = OpenAIBrain(url, "m", _keep({}), SAFE, timeout=0.3, retries=50, backoff=0.05, unreachable_s=1.0)
            with brain, pytest.raises(EndpointUnreachable) as err:
                for _ in range(100):
                    brain.decide(_batch(2))
            took = time.monotonic() - start
            assert took < 1.0 + 0.3 + 1.5, took
            text = str(err.value)
            assert "\n" not in text and url in text and "deadline 1 s" in text and "with its port" in text
    finally:
        silent.close()


def test_a_url_without_a_port_fails_within_the_deadline():
    """openai:http://127.0.0.1/v1:m goes to port 80; where nothing answers there it fails within the deadline."""
    from sparring.lm.openai_brain import EndpointUnreachable

    try:
        with socket.create_connection(("127.0.0.1", 80), timeout=1):
            pytest.skip("something listens on 127.0.0.1:80 here")
    except OSError:
        pass
    start = time.monotonic()
    with OpenAIBrain("http://127.0.0.1/v1", "m", _keep({}), SAFE, backoff=0.05, unreachable_s=0.5) as brain:
        with pytest.raises(EndpointUnreachable, match="http://127.0.0.1/v1 gave no reply"):
            for _ in range(100):
                brain.decide(_batch(1))
    assert time.monotonic() - start < 5


def test_a_reply_resets_the_deadline():
    """A server that answers (even 503) is not unreachable: the drops at 0 s and about 0.3 s lie further apart
    than the deadline, but the 503 between them restarts it, so the turn is answered."""
    server, url = _serve(_DropsAgain)
    try:
        with OpenAIBrain(url, "m", _keep({}), SAFE, retries=3, backoff=0.1, unreachable_s=0.25) as brain:
            brain.decide(_batch(1))
    finally:
        server.shutdown()
        server.server_close()
    (times,) = server.seen.values()
    assert times[2] - times[0] >= 0.25  # without the reset the second drop would be past the deadline
    assert (brain.stats.parsed, brain.requests) == (1, 4)


def test_non_finite_settings_are_refused():
    for kw in ({"timeout": float("nan")}, {"unreachable_s": 0}, {"connect_timeout": float("inf")}):
        with pytest.raises(ValueError, match="need finite timeout > 0"):
            OpenAIBrain("http://127.0.0.1:1/v1", "m", _keep({}), SAFE, **kw)
