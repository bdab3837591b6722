"""The docs' example scripts run as the pages show them, on a tiny budget (docs/examples/*.py)."""

import importlib.util
import runpy

from tests.docs.blocks import PAGES


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_example_{name}", PAGES / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_maskable_ppo_trains_through_the_gymnasium_id_and_counts_wins_from_is_success():
    example = _load("maskable_ppo")
    model = example.train(steps=512)  # one rollout of 8 envs x 64 steps
    assert model.num_timesteps == 512
    won = example.wins(model, episodes=3)
    assert isinstance(won, int) and 0 <= won <= 3


def test_adapters_example_runs_its_regions():
    done = runpy.run_path(str(PAGES / "examples" / "adapters.py"))
    assert done["env"].observation_space.shape == (49,)  # size=7 reached the env
    vec, finished = done["vec"], done["finished"]
    assert vec.num_envs == 16 and len(finished) >= 16  # 8 games x 2 learner seats
    assert {phase for _, _, phase in finished} <= set(vec.batch.env_cls.phases)
    town = done["town"]
    assert len(town.possible_agents) == 8 and town.agents == []
