"""Bad input is a 4xx with one line (or, in a WebSocket session, an error frame naming it), never a 5xx, and the
server answers after; slow clients and oversize messages are cut off without harm to others."""

import json
import socket
import time

import httpx
import pytest
from openenv.core.generic_client import GenericEnvClient
from websockets.sync.client import connect

from sparring.serve.app import OpenEnvLimits, ServerThread, make_app


def post(url, path, body, raw=False):
    content = body if raw else json.dumps(body).encode()
    return httpx.post(url + path, content=content, headers={"content-type": "application/json"}, timeout=10)


def one_line_4xx(response, status=None):
    assert 400 <= response.status_code < 500, response.text
    assert status is None or response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail
    return detail


def snapshot_of(url, steps, seed=1):
    with GenericEnvClient(base_url=url).sync() as env:
        result = env.reset(seed=seed)
        for _ in range(steps):
            if result.done:
                break
            result = env.step({"scripted": True})
        return env.state()["snapshot"], result.done


BAD_HTTP = [
    ("/reset", b"{not json", 422, "malformed JSON"),
    ("/reset", b"[1, 2]", 422, None),
    ("/step", b"{not json", 422, "malformed JSON"),
    ("/reset", {"seed": "seven"}, 422, "seed"),
    ("/reset", {"seed": -1}, 422, "seed"),
    ("/reset", {"seat": "nobody"}, 400, "unknown seat"),
    ("/reset", {"seat": 9}, 400, "unknown seat"),
    ("/reset", {"colour": "red"}, 400, "unknown reset option"),
    ("/reset", {"snapshot": 12}, 422, "snapshot must be"),
    ("/reset", {"snapshot": "no such id!"}, 400, "not a snapshot id"),
    ("/reset", {"snapshot": "duel-AAAAAAAAAAAAAAAA"}, 404, "no snapshot"),
    ("/reset", {"snapshot": "town-AAAAAAAAAAAAAAAA"}, 400, "env 'town'"),
    ("/step", {"action": {}}, 422, "exactly one"),
    ("/step", {"action": {"line": 0, "text": "wait"}}, 422, "exactly one"),
    ("/step", {"action": {"line": "0"}}, 422, "line"),
    ("/step", {"action": {"line": -1}}, 422, "line"),
    ("/step", {"action": {"move": 1}}, 422, None),
    ("/step", {"action": {"text": "x" * 5000}}, 422, "text"),
    ("/step", {"action": {"line": 0}}, 409, "reset first"),
    ("/step", {"action": {"line": 0}, "snapshot": "duel-AAAAAAAAAAAAAAAA"}, 404, "no snapshot"),
    ("/step", {"action": {"line": 0}, "colour": 1}, 400, "unknown step option"),
    ("/reset", b"x" * 9000, 413, "exceeds"),
]


@pytest.mark.parametrize("path,body,status,words", BAD_HTTP)
def test_bad_http_requests_are_one_line_4xx(duel_url, path, body, status, words):
    response = post(duel_url, path, body, raw=isinstance(body, bytes))
    detail = one_line_4xx(response, status)
    assert words is None or words in detail


def test_bad_actions_and_finished_episodes_over_stateless_http(duel_url):
    sid, _ = snapshot_of(duel_url, 3)
    ok = post(duel_url, "/step", {"action": {"line": 0}, "snapshot": sid})
    assert ok.status_code == 200 and ok.json()["observation"]["snapshot"].startswith("duel-")
    assert "not legal" in one_line_4xx(post(duel_url, "/step", {"action": {"line": 500}, "snapshot": sid}), 400)
    assert "needs 5 values" in one_line_4xx(post(duel_url, "/step", {"action": {"action": [0]}, "snapshot": sid}))
    bad_value = post(duel_url, "/step", {"action": {"action": [9, 0, 0, 0, 0]}, "snapshot": sid})
    assert "not allowed" in one_line_4xx(bad_value, 400)
    unparsed = post(duel_url, "/step", {"action": {"text": "dance a jig"}, "snapshot": sid})
    assert "matches no legal line" in one_line_4xx(unparsed, 400)
    over, done = snapshot_of(duel_url, 400, seed=2)
    assert done
    assert "episode is over" in one_line_4xx(post(duel_url, "/step", {"action": {"line": 0}, "snapshot": over}), 409)
    assert httpx.get(duel_url + "/health").status_code == 200


def test_an_evicted_snapshot_is_410(duel_url):
    first, _ = snapshot_of(duel_url, 1)
    with GenericEnvClient(base_url=duel_url).sync() as env:
        env.reset(seed=9)
        for _ in range(17):  # the store keeps 16
            env.step({"line": 0})
            env.state()
    assert "evicted" in one_line_4xx(post(duel_url, "/reset", {"snapshot": first}), 410)


def test_errors_in_a_websocket_session_leave_it_usable(duel_url):
    with GenericEnvClient(base_url=duel_url).sync() as env:
        with pytest.raises(RuntimeError, match="409 Conflict: no episode yet"):
            env.step({"line": 0})
        env.reset(seed=1)
        for action, words in [({"line": 99}, "400 Bad Request: line 99"), ({"bogus": 1}, "Invalid message")]:
            with pytest.raises(RuntimeError, match=words):
                env.step(action)
        with pytest.raises(RuntimeError, match="unknown seat"):
            env.reset(seat="referee")
        with pytest.raises(RuntimeError, match="no snapshot"):
            env.reset(snapshot="duel-AAAAAAAAAAAAAAAA")
        assert env.step({"line": 0}).observation["tick"] == 1


def test_raw_websocket_junk_and_oversize_messages(duel_url):
    ws_url = duel_url.replace("http", "ws") + "/ws"
    with connect(ws_url) as ws:
        for junk in ["{oops", json.dumps({"type": "dance"}), json.dumps({"type": "reset", "data": 5})]:
            ws.send(junk)
            frame = json.loads(ws.recv(timeout=10))
            assert frame["type"] == "error" and "\n" not in frame["data"]["message"]
        ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "observation"
    with connect(ws_url, max_size=None) as ws:  # over the server's 8 KB: the server closes this connection
        ws.send(json.dumps({"type": "step", "data": {"text": "x" * 20000}}))
        with pytest.raises(Exception):
            ws.recv(timeout=10)
    assert httpx.get(duel_url + "/health").status_code == 200


def test_slow_clients_are_cut_off_and_others_served():
    limits = OpenEnvLimits(request_timeout=0.5)
    with ServerThread(make_app("duel", {}, limits)) as server:
        host, port = server.url.removeprefix("http://").split(":")
        slow = [socket.create_connection((host, int(port)), timeout=5) for _ in range(8)]
        for s in slow:
            s.sendall(b"POST /reset HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        assert httpx.get(server.url + "/health", timeout=5).status_code == 200
        time.sleep(1.0)
        for s in slow:
            answer = s.recv(4096)
            assert answer == b"" or b" 408 " in answer.split(b"\r\n")[0]
            s.close()
        assert post(server.url, "/reset", {"seed": 1}).status_code == 200
