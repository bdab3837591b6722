"""The OpenAI-compatible server, over real HTTP on loopback: answers, limits and every kind of bad request."""

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
    assert "not valid JSON" in _error(_post(server, content=b'{"model": "tiny", "messages": [', headers={
        **AUTH, "Content-Type": "application/json"}), 400)
    assert "must be a JSON object" in _error(_post(server, [1, 2]), 400)
    assert "nests JSON too deeply" in _error(_post(server, content=b"[" * 4000), 400)
    assert "messages: Field required" in _error(_post(server, {"model": "tiny"}), 400)
    assert "messages: List should have at least 1 item" in _error(_post(server, {"model": "tiny", "messages": []}), 400)
    assert "messages.0.role" in _error(_post(server, {"model": "tiny", "messages": [{"role": "robot",
                                                                                      "content": "x"}]}), 400)
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
    assert "model 'gpt-9' not found; this server serves 'tiny'" in _error(_post(server, {**_chat(), "model": "gpt-9"}),
                                                                          404)
    assert _error(httpx.get(f"{server.url}/models/gpt-9", headers=AUTH), 404)
    # after every bad request above, the server still answers
    assert _post(server, _chat(max_tokens=1)).status_code == 200


@pytest.mark.parametrize("host", ["256.1.1.1"])
def test_bind_names_a_bad_address(host):
    from sparring.lm.server import bind

    with pytest.raises(ValueError, match=f"cannot listen on {host}:0"):
        bind(host, 0)
