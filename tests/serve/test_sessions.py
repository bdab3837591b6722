"""Concurrent sessions are isolated: 64 at once each play what the same seed plays alone; the cap is enforced."""

import asyncio
import json
import time

import pytest
from openenv.core.generic_client import GenericEnvClient
from websockets.sync.client import connect

from sparring.serve.app import OpenEnvLimits, ServerThread, make_app

SESSIONS = 64
STEPS = 12


async def trace(url, seed):
    env = GenericEnvClient(base_url=url)
    try:
        result = await env.reset(seed=seed)
        out = [result.observation["text"]]
        for i in range(STEPS):
            if result.done:
                break
            result = await env.step({"line": (seed + i) % len(result.observation["lines"])})
            out.append((result.observation["text"], result.reward))
        return out
    finally:
        await env.close()


def test_64_concurrent_sessions_are_isolated(duel_url):
    async def main():
        return await asyncio.gather(*(trace(duel_url, seed % 8) for seed in range(SESSIONS)))

    together = asyncio.run(main())
    alone = [asyncio.run(trace(duel_url, seed)) for seed in range(8)]
    assert all(together[i] == alone[i % 8] for i in range(SESSIONS))
    assert len({str(t) for t in alone}) == 8


def test_sessions_beyond_the_cap_are_refused_and_the_server_goes_on():
    with ServerThread(make_app("duel", {}, OpenEnvLimits(max_sessions=2))) as server:
        first, second = GenericEnvClient(base_url=server.url).sync(), GenericEnvClient(base_url=server.url).sync()
        with first, second:
            first.reset(seed=1)
            second.reset(seed=1)
            with GenericEnvClient(base_url=server.url).sync() as third:
                with pytest.raises(Exception, match="CAPACITY_REACHED|capacity"):
                    third.reset(seed=1)
        with GenericEnvClient(base_url=server.url).sync() as fourth:  # the slots came back
            assert fourth.reset(seed=1).observation["tick"] == 0


def test_a_websocket_session_outlives_the_request_deadline():
    """The deadline bounds an HTTP request's arrival, not the life of the WebSocket it upgraded to."""
    with ServerThread(make_app("duel", {}, OpenEnvLimits(request_timeout=0.5))) as server:
        with connect(server.url.replace("http", "ws") + "/ws") as ws:
            ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
            assert json.loads(ws.recv(timeout=10))["type"] == "observation"
            time.sleep(1.5)
            ws.send(json.dumps({"type": "step", "data": {"line": 0}}))
            assert json.loads(ws.recv(timeout=10))["data"]["observation"]["tick"] == 1
