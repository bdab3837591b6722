"""A tiny model folder built once per test session, and a real uvicorn server serving it on loopback."""

import pytest

from sparring.lm.model import ModelSize, build_small_model

LINES = ["go to the farm", "eat 1 bread", "buy 1 wheat for 2 coins", "talk to Ben", "sleep", "wait"] * 10
TINY = ModelSize(hidden=32, layers=1, heads=2, intermediate=64, context=96)
KEY = "test-key"


@pytest.fixture(scope="session")
def tiny_folder(tmp_path_factory):
    """An untrained tiny Llama folder named ``tiny`` (a 300-token vocabulary, 96-token context)."""
    return build_small_model(LINES, str(tmp_path_factory.mktemp("lm") / "tiny"), TINY, vocab_size=300)


@pytest.fixture(scope="session")
def tiny_model(tiny_folder):
    """The tiny folder loaded as a LocalModel."""
    from sparring.lm.local import LocalModel

    return LocalModel(tiny_folder)


@pytest.fixture(scope="module")
def server(tiny_model):
    """Uvicorn on a free loopback port: API key ``KEY``, 4 KB bodies, 8-token answers, 64-token prompts."""
    from sparring.lm.server import BackgroundServer, ServeLimits, make_app

    limits = ServeLimits(max_request_bytes=4096, max_tokens=8, default_max_tokens=4, max_prompt_tokens=64)
    with BackgroundServer(make_app(tiny_model, api_key=KEY, limits=limits)) as running:
        yield running


@pytest.fixture(scope="session")
def town_model(tmp_path_factory):
    """A town model folder distilled for a few steps from the noisy planner (a 1-layer, 32-wide model)."""
    from sparring.lm.distill import DistillConfig, distill

    out = str(tmp_path_factory.mktemp("town") / "distilled")
    cfg = DistillConfig(
        episodes=2,
        held_out=0.5,
        steps=2,
        batch_size=4,
        vocab=400,
        hidden=32,
        layers=1,
        heads=2,
        intermediate=64,
        context=2048,
        threads=1,
    )
    report = distill(out, cfg, days=1)
    return out, report


@pytest.fixture(scope="session")
def duel_model(tmp_path_factory):
    """A duel model folder distilled for a few steps from the noisy robot (a 1-layer, 32-wide model)."""
    from sparring.lm.distill import DistillConfig, distill

    out = str(tmp_path_factory.mktemp("duel") / "distilled")
    cfg = DistillConfig(
        episodes=2, held_out=0.5, steps=2, batch_size=4, vocab=400, hidden=32, layers=1, heads=2, intermediate=64
    )
    distill(out, cfg, "duel", max_ticks=30)
    return out
