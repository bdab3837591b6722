"""OpenEnv's own client (the PyPI package's GenericEnvClient) and sparring's typed client play whole episodes."""

from openenv.core.generic_client import GenericEnvClient

from sparring.serve.client import SparringEnvClient
from sparring.serve.openenv_env import SparringAction

MAX_STEPS = 2000


def play(url, reset, choose):
    """One episode with OpenEnv's GenericEnvClient: (steps, last result)."""
    with GenericEnvClient(base_url=url).sync() as env:
        result = env.reset(**reset)
        steps = 0
        while not result.done:
            obs = result.observation
            assert obs["acting"] and obs["lines"] and obs["text"].endswith(obs["lines"][-1])
            result = env.step(choose(steps, obs))
            steps += 1
            assert steps < MAX_STEPS
        return steps, result


def test_generic_client_plays_a_whole_duel(duel_url):
    steps, last = play(duel_url, {"seed": 4}, lambda i, obs: {"scripted": True} if i % 2 else {"line": 0})
    obs = last.observation
    assert steps > 0 and last.done and obs["tick"] >= steps
    assert set(obs["metadata"]["metrics"]) >= {"win", "damage_dealt"} and "success" in obs["metadata"]
    assert len(obs["returns"]) == 2 and len(obs["mask"]) == 21 and obs["lines"] == [] and not obs["acting"]


def test_generic_client_plays_a_whole_town_day(town_url):
    steps, last = play(town_url, {"seed": 1, "seat": "seat0"}, lambda i, obs: {"scripted": True})
    assert last.done and steps > 10
    assert len(last.observation["returns"]) == 8 and "goal_rate" in last.observation["metadata"]["metrics"]


def test_free_text_answers_and_the_typed_client(town_url):
    with SparringEnvClient(base_url=town_url).sync() as env:
        first = env.reset(seed=2)
        assert first.observation.seat_name and "Legal actions:" in first.observation.text
        words = first.observation.lines[1].split(": ", 1)[1]
        result = env.step(SparringAction(text=f"I will {words}"))
        assert result.observation.parsed in ("contained", "exact") and result.observation.tick >= 1
        state = env.state()
        assert state.env == "town" and state.tick == result.observation.tick and state.snapshot.startswith("town-")


def test_the_command_prints_its_address_once_listening():
    import re
    import subprocess
    import sys

    import httpx

    cmd = [sys.executable, "-m", "sparring", "openenv", "duel", "--port", "0", "--env.max_ticks", "60"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        found = re.fullmatch(
            r"serving duel \(OpenEnv\) on (http://127\.0\.0\.1:\d+) \(WebSocket sessions at /ws\)\n", line
        )
        assert found, line
        assert httpx.get(found.group(1) + "/health", timeout=10).status_code == 200
        with GenericEnvClient(base_url=found.group(1)).sync() as env:
            assert env.reset(seed=1).observation["text"].startswith("Tick 0 of 60.")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
