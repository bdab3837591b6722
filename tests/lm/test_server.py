"""The OpenAI-compatible server, over real HTTP on loopback: answers, limits and every kind of bad request."""

import json
import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.lm.conftest import KEY

AUTH = {"Authorization": f"Bearer {KEY}"}


def _chat(content="go to the farm", **extra):
    """A request sampling with a seed: the untrained tiny model's greedy answers are all special tokens (empty)."""
    return {"model": "tiny", "messages": [{"role": "user", "content": content}], "temperature": 1, "seed": 5, **extra}


def _local(model, content, max_tokens, seed=5, stop=None):
    return model.chat([[{"role": "user", "content": content}]], max_tokens, temperature=1, seed=seed, stop=stop)[0]


def _post(server, body=None, headers=AUTH, **kw):
    return httpx.post(f"{server.url}/chat/completions", json=body, headers=headers, timeout=30, **kw)


def _error(reply, status):
    assert reply.status_code == status, reply.text
    return reply.json()["error"]["message"]


def test_models_and_a_chat_completion_in_openai_shape(server, tiny_model):
    models = httpx.get(f"{server.url}/models", headers=AUTH).json()
    assert [m["id"] for m in models["data"]] == ["tiny"] and models["object"] == "list"
    reply = _post(server, _chat(max_tokens=3))
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert data["object"] == "chat.completion" and data["model"] == "tiny"
    choice = data["choices"][0]
    local = _local(tiny_model, "go to the farm", 3)
    assert choice["message"] == {"role": "assistant", "content": local.text} and local.text
    assert choice["finish_reason"] == local.finish_reason
    usage = data["usage"]
    assert usage["prompt_tokens"] == local.prompt_tokens and 1 <= usage["completion_tokens"] <= 3
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_concurrent_requests_each_get_their_own_answer(server, tiny_model):
    prompts = [f"talk to {name}" for name in ("Ada", "Ben", "Cora", "Dan", "Eve", "Finn", "Gus", "Hal")]
    with ThreadPoolExecutor(len(prompts)) as pool:
        replies = list(pool.map(lambda i: _post(server, _chat(prompts[i], max_tokens=4, seed=i)), range(len(prompts))))
    assert [r.status_code for r in replies] == [200] * len(prompts)
    expected = [_local(tiny_model, p, 4, seed=i).text for i, p in enumerate(prompts)]
    assert [r.json()["choices"][0]["message"]["content"] for r in replies] == expected
    assert len(set(expected)) > len(prompts) // 2  # distinct answers: a mix-up between requests would show


def test_text_parts_and_stop_sequences(server, tiny_model):
    whole = _local(tiny_model, "talk to Ben", 8).text
    assert len(whole) >= 2
    parts = [{"type": "text", "text": "talk to "}, {"type": "text", "text": "Ben"}]
    reply = _post(server, {**_chat(), "messages": [{"role": "user", "content": parts}], "max_tokens": 8}).json()
    assert reply["choices"][0]["message"]["content"] == whole
    cut = _post(server, _chat("talk to Ben", max_tokens=8, stop=[whole[1:]])).json()["choices"][0]
    assert cut == {"index": 0, "message": {"role": "assistant", "content": whole[:1]}, "finish_reason": "stop"}


def test_max_tokens_is_capped_not_refused(server):
    usage = _post(server, _chat(max_tokens=10_000)).json()["usage"]
    assert 1 <= usage["completion_tokens"] <= 8


def test_malformed_requests_get_4xx_with_a_message(server):
    assert "not valid JSON" in _error(
        _post(server, content=b'{"model": "tiny", "messages": [', headers={**AUTH, "Content-Type": "application/json"}),
        400,
    )
    assert "must be a JSON object" in _error(_post(server, [1, 2]), 400)
    assert "nests JSON too deeply" in _error(_post(server, content=b"[" * 4000), 400)
    assert "messages is required: a list of" in _error(_post(server, {"model": "tiny"}), 400)
    assert "messages must be a list of at least one message" in _error(
        _post(server, {"model": "tiny", "messages": []}), 400
    )
    assert "messages.0.role" in _error(
        _post(server, {"model": "tiny", "messages": [{"role": "robot", "content": "x"}]}), 400
    )
    assert "temperature" in _error(_post(server, _chat(temperature=7)), 400)
    assert "streaming is not supported" in _error(_post(server, _chat(stream=True)), 400)
    assert "max_tokens" in _error(_post(server, _chat(max_tokens=0)), 400)
    assert "this server has GET /v1/models" in _error(httpx.get(f"{server.url}/chat/completions", headers=AUTH), 405)
    assert "Not Found" in _error(httpx.get(f"{server.url}/nothing", headers=AUTH), 404)


def test_oversize_body_and_prompt(server):
    assert "at most 4096" in _error(_post(server, _chat("wait " * 1000)), 413)
    chunked = (part for part in [b'{"model": "tiny", "messages": [{"role": "user", "content": "', b"x" * 5000, b'"}]}'])
    assert "exceeds 4096 bytes" in _error(_post(server, content=chunked), 413)
    assert "this server takes at most 64" in _error(_post(server, _chat("farm " * 100)), 400)


def test_wrong_or_missing_key_and_unknown_model(server):
    assert "API key" in _error(_post(server, _chat(), headers={"Authorization": "Bearer nope"}), 401)
    assert "API key" in _error(_post(server, _chat(), headers={}), 401)
    assert "API key" in _error(httpx.get(f"{server.url}/models"), 401)
    assert "model 'gpt-9' not found; this server serves 'tiny'" in _error(
        _post(server, {**_chat(), "model": "gpt-9"}), 404
    )
    assert _error(httpx.get(f"{server.url}/models/gpt-9", headers=AUTH), 404)
    # after every bad request above, the server still answers
    assert _post(server, _chat(max_tokens=1)).status_code == 200


SEED = "seed must be an integer from 0 to 9223372036854775807 (2**63-1), got "
TOKENS = "must be an integer >= 1 (answers are capped at 8 tokens), got "
TEMPERATURE = "temperature must be a number from 0 to 2, got "
TOP_P = "top_p must be a number above 0 and at most 1, got "
CONTENT = "messages.0.content must be a string or a list of text parts {type: 'text', text: string}, got "


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("seed", 2**70, SEED + "1180591620717411303424"),
        ("seed", 2**63, SEED + "9223372036854775808"),
        ("seed", -1, SEED + "-1"),
        ("seed", 5.5, SEED + "5.5"),
        ("seed", 5.0, SEED + "5.0"),
        ("seed", "5", SEED + '"5"'),
        ("seed", True, SEED + "true"),
        ("max_tokens", -3, "max_tokens " + TOKENS + "-3"),
        ("max_tokens", "8", "max_tokens " + TOKENS + '"8"'),
        ("max_tokens", 2.0, "max_tokens " + TOKENS + "2.0"),
        ("max_completion_tokens", 0, "max_completion_tokens " + TOKENS + "0"),
        ("temperature", float("nan"), TEMPERATURE + "NaN"),
        ("temperature", float("inf"), TEMPERATURE + "Infinity"),
        ("temperature", -0.1, TEMPERATURE + "-0.1"),
        ("temperature", 2.5, TEMPERATURE + "2.5"),
        ("temperature", "0.5", TEMPERATURE + '"0.5"'),
        ("temperature", None, TEMPERATURE + "null"),
        ("top_p", 0, TOP_P + "0"),
        ("top_p", 1.5, TOP_P + "1.5"),
        ("top_p", float("nan"), TOP_P + "NaN"),
        ("n", 2, "n: this server returns one choice per request; n must be 1, got 2"),
        ("n", "1", 'n must be 1, got "1"'),
        ("stream", "false", 'stream must be false (streaming is not supported), got "false"'),
        ("stop", 5, "stop must be a string or a list of at most 4 strings, got 5"),
        ("stop", ["a"] * 5, "stop: at most 4 stop sequences, got 5"),
        ("stop", ["a", 1], "stop.1 must be a string, got 1"),
        ("model", 5, "model must be a string, the served model's id 'tiny', got 5"),
        ("messages", "hi", 'messages must be a list of at least one message {role, content}, got "hi"'),
        ("messages", [5], "messages.0 must be a message object {role, content}, got 5"),
        ("messages", [{"role": "user", "content": 5}], CONTENT + "5"),
        (
            "messages",
            [{"role": "user", "content": [{"type": "image", "text": "x"}]}],
            "messages.0.content.0.type must be 'text', got \"image\"",
        ),
        (
            "messages",
            [{"role": "user"}],
            "messages.0.content is required: a string or a list of text parts {type: 'text', text: string}",
        ),
    ],
)
def test_each_bad_field_gets_one_400_naming_it_and_what_is_valid(server, field, value, message):
    body = json.dumps({**_chat(max_tokens=2), field: value}).encode()  # NaN and Infinity as Python's json writes them
    reply = _post(server, content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert _error(reply, 400) == f"invalid chat completion request: {message}"


def test_fields_at_the_edges_of_their_ranges_are_served(server):
    for extra in (
        {"seed": 0},
        {"seed": 2**63 - 1},
        {"temperature": 0, "seed": None},
        {"temperature": 2},
        {"top_p": 1e-9},
        {"max_tokens": 10**30},
        {"max_completion_tokens": 1},
        {"n": 1, "stream": False},
    ):
        reply = _post(server, _chat(**extra))
        assert reply.status_code == 200, (extra, reply.text)


@pytest.fixture(scope="module")
def roomy(tiny_model):
    """Servers with the default 1 MiB bodies and a 1.5 s request timeout: prompts refused by their length in
    characters before tokenizing ("chars"), or tokenized and refused by their length in tokens ("tokens")."""
    from sparring.lm.server import BackgroundServer, ServeLimits, make_app

    common = dict(max_tokens=8, default_max_tokens=4, request_timeout=1.5)
    with (
        BackgroundServer(make_app(tiny_model, limits=ServeLimits(**common))) as chars,
        BackgroundServer(make_app(tiny_model, limits=ServeLimits(max_prompt_chars=2_000_000, **common))) as tokens,
    ):
        yield {"chars": chars, "tokens": tokens}


def _latencies(url, n):
    """Seconds taken by each of ``n`` valid requests, one after another on one connection."""
    out = []
    with httpx.Client(timeout=30) as client:
        for i in range(n):
            start = time.perf_counter()
            reply = client.post(f"{url}/chat/completions", json=_chat(max_tokens=4, seed=i))
            out.append(time.perf_counter() - start)
            assert reply.status_code == 200, reply.text
    return out


@pytest.mark.parametrize("refused_by", ["chars", "tokens"])
def test_valid_requests_stay_fast_while_two_clients_send_megabyte_prompts(roomy, refused_by):
    url = roomy[refused_by].url
    big = json.dumps({"model": "tiny", "messages": [{"role": "user", "content": "farm " * 200_000}]}).encode()
    assert len(big) < 1 << 20
    stop, answers = threading.Event(), []

    def flood():
        with httpx.Client(timeout=60) as client:
            while not stop.is_set():
                answers.append(
                    client.post(f"{url}/chat/completions", content=big, headers={"Content-Type": "application/json"})
                )

    _latencies(url, 3)  # warm up
    unloaded = statistics.median(_latencies(url, 15))
    floods = [threading.Thread(target=flood) for _ in range(2)]
    for t in floods:
        t.start()
    time.sleep(0.3)  # both floods under way
    try:
        loaded = statistics.median(_latencies(url, 15))
    finally:
        stop.set()
        for t in floods:
            t.join()
    print(
        f"\nvalid-request p50 ({refused_by}): {unloaded * 1000:.1f} ms unloaded, {loaded * 1000:.1f} ms while two "
        f"clients sent {len(answers)} prompts of 1e6 characters"
    )
    assert len(answers) >= 2
    says = (
        "this server takes at most 1235 characters (95 tokens)"
        if refused_by == "chars"
        else "tokens; this server takes at most 95"
    )
    assert all(says in _error(a, 400) for a in answers)
    assert loaded < 3 * unloaded + 0.3, (unloaded, loaded)  # before the fix: 0.08 s -> 1.5 s here


def _read_all(sock, timeout):
    """Everything ``sock`` receives until the server closes it (or ``timeout`` seconds), and when it closed."""
    sock.settimeout(timeout)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        return data, None
    return data, time.monotonic()


def _read_answer(sock):
    """One whole HTTP answer (headers and a Content-Length body) from ``sock``, leaving the connection open."""
    sock.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += sock.recv(65536)
    return head, body


def test_half_sent_requests_are_cut_off_by_the_timeout_while_others_are_served(roomy):
    from urllib.parse import urlsplit

    running = roomy["chars"]
    where = urlsplit(running.url)
    address = (where.hostname, where.port)
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    stalled = {
        "body": head + b"Content-Length: 1000\r\n\r\n" + b'{"model": ',  # 10 bytes of 1000
        "headers": head,
        "nothing": b"",
        "next request": b"GET /v1/mod",
    }
    socks = {what: socket.create_connection(address) for what in stalled}
    try:
        # "next request": a kept-alive connection, one whole request answered, then half of the next one
        socks["next request"].sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _read_answer(socks["next request"])[0].startswith(b"HTTP/1.1 200")
        start = time.monotonic()
        for what, data in stalled.items():
            socks[what].sendall(data)
        served = _latencies(running.url, 5)  # the stalled clients hold no one up
        assert max(served) < 1.0, served
        closed = {what: _read_all(sock, 5) for what, sock in socks.items()}
    finally:
        for sock in socks.values():
            sock.close()
    for what, (data, when) in closed.items():
        assert when is not None, f"{what}: still open after {time.monotonic() - start:.1f} s"
        assert 1.4 <= when - start <= 3.0, (what, when - start)
        assert data.startswith(b"HTTP/1.1 408 ") and b"within 1.5 s; connection closed" in data, (what, data)
    print(f"\nhalf-sent requests closed after {', '.join(f'{w}: {c[1] - start:.2f} s' for w, c in closed.items())}")
    deadline = time.monotonic() + 2  # their connection slots are freed
    while running.server.server_state.connections and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running.server.server_state.connections
    assert _latencies(running.url, 1)


@pytest.mark.parametrize("host", ["256.1.1.1"])
def test_bind_names_a_bad_address(host):
    from sparring.lm.server import bind

    with pytest.raises(ValueError, match=f"cannot listen on {host}:0"):
        bind(host, 0)


@pytest.mark.parametrize("temperature", [1e-300, 5e-324, 1e-45, 1e-4])
def test_a_tiny_temperature_is_greedy_not_a_500(server, tiny_model, temperature):
    """Issue 39: temperature 1e-300 answered 500 ("probability tensor contains either inf, nan or element < 0");
    below TEMPERATURE_FLOOR it is greedy decoding, as 0 is."""
    greedy = _post(server, _chat(temperature=0, seed=None, max_tokens=4))
    reply = _post(server, _chat(temperature=temperature, max_tokens=4))
    assert reply.status_code == 200, reply.text
    assert reply.json()["choices"][0]["message"] == greedy.json()["choices"][0]["message"]


@pytest.mark.parametrize(
    "name, key, flag",
    [("", None, "--name"), (None, "", "--api-key"), ("a b", None, "--name"), (None, "k\u00e9y", "--api-key")],
)
def test_an_empty_or_odd_name_or_key_is_refused_by_name(tiny_model, name, key, flag):
    """Issue 39: `serve` with an empty --api-key or model name never said whether it was up."""
    from sparring.lm.server import make_app, serve

    with pytest.raises(ValueError, match=f"^{flag} must be 1 to 256 printable ASCII characters"):
        make_app(tiny_model, name=name, api_key=key)
    with pytest.raises(ValueError, match=f"^{flag} must be"):
        serve("no-such-folder", port=0, name=name, api_key=key)  # refused before the model loads


@pytest.mark.parametrize("host", ["192.0.2.1", "::2", "no-such-host.invalid", "\u2603"])
def test_an_address_this_machine_does_not_have_is_one_line_in_words(host):
    """Issue 39: `serve --host` an address this machine does not have printed errno text."""
    from sparring.lm.server import bind

    with pytest.raises(ValueError) as err:
        bind(host, 0)
    text = str(err.value)
    assert text.startswith(f"cannot listen on {host}:0: ") and "Errno" not in text and "\n" not in text
    assert "--host" in text


def test_bind_refuses_a_port_out_of_range():
    from sparring.lm.server import bind

    for port in (-1, 65536, 2**80):
        with pytest.raises(ValueError, match=r"--port must be an integer in \[0, 65535\]"):
            bind("127.0.0.1", port)


def test_serve_prints_its_address_once_it_listens(tiny_folder, tmp_path):
    """Issue 39: `serve` prints the address it listens on when it is ready (not before): the line comes, then the
    address answers at once."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.Popen(
        [sys.executable, "-m", "sparring", "serve", "--model", tiny_folder, "--port", "0", "--threads", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=root,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith(f"serving {tiny_folder} as model 'tiny' on http://127.0.0.1:"), line
        url = line.split(" on ", 1)[1].split()[0]
        reply = httpx.get(f"{url}/models", timeout=5)
        assert reply.status_code == 200 and reply.json()["data"][0]["id"] == "tiny"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
