"""A whole episode over plain HTTP with the standard library's client only: ``/reset`` names a snapshot, each
``/step`` takes the last one and names the next; the episode it plays is the one a WebSocket session plays."""

from openenv.core.generic_client import GenericEnvClient

from tests.serve.plain import call

MAX_STEPS = 2000


def choose(obs, i):
    """A line of the legal ones, varied by the step's index."""
    return {"line": i % len(obs["lines"])}


def play_over_http(url, seed):
    """One episode over plain HTTP: the list of (text, reward, done) answers, the last done."""
    status, answer = call(url, "/reset", {"seed": seed})
    assert status == 200 and answer["observation"]["snapshot"].startswith("duel-"), answer
    seen = [(answer["observation"]["text"], answer["reward"], answer["done"])]
    for i in range(MAX_STEPS):
        if answer["done"]:
            return seen
        obs = answer["observation"]
        status, answer = call(url, "/step", {"action": choose(obs, i), "snapshot": obs["snapshot"]})
        assert status == 200, answer
        seen.append((answer["observation"]["text"], answer["reward"], answer["done"]))
    raise AssertionError(f"no end within {MAX_STEPS} steps")


def play_over_websocket(url, seed):
    with GenericEnvClient(base_url=url).sync() as env:
        result = env.reset(seed=seed)
        seen = [(result.observation["text"], result.reward, result.done)]
        i = 0
        while not result.done:
            result = env.step(choose(result.observation, i))
            seen.append((result.observation["text"], result.reward, result.done))
            i += 1
        return seen


def test_a_whole_duel_over_plain_http_is_the_episode_a_session_plays(duel_url):
    over_http = play_over_http(duel_url, seed=4)
    assert len(over_http) > 2 and over_http[-1][2] and "The episode is over." in over_http[-1][0]
    assert over_http == play_over_websocket(duel_url, seed=4)


def test_a_reset_over_plain_http_names_a_state_a_session_can_restore(duel_url):
    status, answer = call(duel_url, "/reset", {"seed": 7})
    assert status == 200
    with GenericEnvClient(base_url=duel_url).sync() as env:
        restored = env.reset(snapshot=answer["observation"]["snapshot"])
        assert restored.observation["text"] == answer["observation"]["text"]
        assert restored.observation["snapshot"] is None  # a session names its state through state()
