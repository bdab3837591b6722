"""Fuzzing the plain HTTP kind of session: random and hostile requests (resets with odd options, steps from stale,
evicted, unknown or garbage snapshot ids, bad actions, bodies that are not JSON) are each answered 2xx or a 4xx
with a one-line ``detail``, never a 5xx, while an honest client among them always plays its episode to the end."""

import random

import pytest

from tests.serve.plain import call

REQUESTS = 240
HONEST_EVERY = 4  # under the test server's 16 snapshots, so the honest client's id is never evicted

JUNK_IDS = [
    None,
    12,
    "",
    "duel-",
    "duel-AAAAAAAAAAAAAAAA",
    "town-AAAAAAAAAAAAAAAA",
    "DUEL-AAAAAAAAAAAAAAAA",
    "duel-" + "A" * 70,
    "duel-../../etc/passwd",
    "duel-AAAA\nAAAAAAAA",
    "\x00",
    ["duel-AAAAAAAAAAAAAAAA"],
    {"id": 1},
]
JUNK_BODIES = [b"{not json", b"[1, 2]", b"null", b"", b"\xff\xfe", b'{"action": ', b"9" * 5000, b'"text"']


def some_action(rng):
    """An action: half the time a good one, else one bad in value or malformed."""
    if rng.random() < 0.5:
        return rng.choice([{"line": 0}, {"line": rng.randrange(3)}, {"scripted": True}])
    return rng.choice(
        [
            {"line": rng.randrange(0, 40)},
            {"line": rng.choice([-1, 10**7, "0", 1.5, True, None])},
            {"text": rng.choice(["attack", "step east", "", "dance a jig", "x" * 5000, "\x00\n"])},
            {"action": [rng.randrange(-2, 12) for _ in range(rng.choice([0, 1, 5, 6, 70]))]},
            {"action": "0 0 0 0 0"},
            {"scripted": rng.choice([True, False, "yes"])},
            {},
            {"line": 0, "scripted": True},
            {"move": 1},
            [],
            "line 0",
        ]
    )


def some_id(rng, ids):
    """A snapshot id: half the time one of the newest named (live), else any ever named (finished, evicted) or junk."""
    if ids and rng.random() < 0.5:
        return rng.choice(ids[-4:])
    return rng.choice(ids + JUNK_IDS)


def hostile(rng, ids):
    """One random request: (path, JSON body or None, raw bytes or None)."""
    kind = rng.randrange(6)
    if kind == 0:
        options = {
            "seed": rng.choice([1, 2**62, -1, 2**63, "7", 1.5, None]),
            "seat": rng.choice([0, 1, 2, "player", "opponent", "referee", -1, None]),
            "goal": rng.choice(["any", 3, None]),
            "episode_id": rng.choice(["e1", "x" * 300, 5]),
            "colour": "red",
        }
        return "/reset", {k: v for k, v in options.items() if rng.random() < 0.4 and v is not None}, None
    if kind == 1:
        return "/reset", {"snapshot": some_id(rng, ids)}, None
    if kind in (2, 3):
        body = {"action": some_action(rng)}
        if rng.random() < 0.9:
            body["snapshot"] = some_id(rng, ids)
        if rng.random() < 0.1:
            body[rng.choice(["timeout_s", "colour"])] = rng.choice([1.0, "soon", -5])
        return "/step", body, None
    if kind == 4:
        return rng.choice(["/reset", "/step"]), None, rng.choice(JUNK_BODIES)
    return rng.choice(["/state", "/health", "/schema", "/metadata"]), None, None


def answered_well(status, answer):
    """2xx, or a 4xx whose body is one line of ``detail``; the snapshot id a 2xx names, if any."""
    assert 200 <= status < 300 or 400 <= status < 500, (status, answer)
    if status >= 400:
        detail = answer.get("detail") if isinstance(answer, dict) else None
        assert isinstance(detail, str) and detail and "\n" not in detail, (status, answer)
        return None
    return (answer.get("observation") or {}).get("snapshot") if isinstance(answer, dict) else None


@pytest.mark.parametrize("seed", range(4))
def test_random_and_hostile_requests_never_5xx_and_an_honest_episode_ends(duel_url, seed):
    rng = random.Random(seed)
    ids = []  # every id a 2xx named: live, later finished, later evicted (the store keeps 16)
    status, honest = call(duel_url, "/reset", {"seed": seed})
    assert status == 200
    honest_steps = 0
    for i in range(REQUESTS):
        if i % HONEST_EVERY == 0 and not honest["done"]:
            obs = honest["observation"]
            status, honest = call(duel_url, "/step", {"action": {"scripted": True}, "snapshot": obs["snapshot"]})
            assert status == 200, honest
            honest_steps += 1
            ids.append(honest["observation"]["snapshot"])
        path, body, raw = hostile(rng, ids)
        if body is None and raw is None and path in ("/reset", "/step"):
            raw = b"{}"
        status, answer = call(duel_url, path, body, raw)
        named = answered_well(status, answer)
        if named:
            ids.append(named)
    while not honest["done"]:  # what is left of the honest episode plays to the end
        status, honest = call(
            duel_url, "/step", {"action": {"scripted": True}, "snapshot": honest["observation"]["snapshot"]}
        )
        assert status == 200, honest
        honest_steps += 1
    assert honest_steps > 0 and "The episode is over." in honest["observation"]["text"]
    assert answered_well(*call(duel_url, "/health")) is None
