"""OpenEnv servers of duel and town (one day) on free loopback ports, one per test module."""

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the [openenv] extra")

from sparring.serve.app import OpenEnvLimits, ServerThread, make_app  # noqa: E402

LIMITS = OpenEnvLimits(max_sessions=80, max_snapshots=16, max_request_bytes=8192, max_message_bytes=8192)


@pytest.fixture(scope="module")
def duel_url():
    """A duel server: 80 sessions, 16 snapshots, 8 KB bodies and messages."""
    with ServerThread(make_app("duel", {}, LIMITS)) as running:
        yield running.url


@pytest.fixture(scope="module")
def town_url():
    """A town server of one-day episodes."""
    with ServerThread(make_app("town", {"days": 1}, LIMITS)) as running:
        yield running.url
