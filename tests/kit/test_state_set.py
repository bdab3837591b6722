"""State sets: records saved to one file and loaded back exactly; damage, another env or layout are named."""

import numpy as np
import pytest

from sparring.kit import BatchedEnv
from sparring.kit.files import DamagedFile
from sparring.kit.state_set import load_state_set, save_state_set
from tests.kit import toys


def test_a_state_set_round_trips_with_its_groups(tmp_path):
    env = BatchedEnv(toys.Walk, num_envs=5, seed=3)
    env.step(np.zeros((5, 1), np.int32))
    path = save_state_set(
        tmp_path / "s.npz",
        toys.Walk,
        env.snapshot(),
        {"speed": 2},
        groups=np.arange(5),
        group_key="envs",
        extra={"by": "test"},
    )
    loaded = load_state_set(path, toys.Walk)
    assert loaded.records.tobytes() == env.snapshot().tobytes() and loaded.groups.tolist() == [0, 1, 2, 3, 4]
    assert (loaded.env_config, loaded.group_key, loaded.extra) == ({"speed": 2}, "envs", {"by": "test"})
    with pytest.raises(ValueError, match="holds 'toy_walk' states, not 'toy_pair'"):
        load_state_set(path, toys.Pair)


def test_damage_is_named(tmp_path):
    path = save_state_set(tmp_path / "s.npz", toys.Walk, BatchedEnv(toys.Walk, num_envs=3).snapshot())
    data = bytearray(open(path, "rb").read())
    data[-300] ^= 0xFF
    (tmp_path / "bad.npz").write_bytes(bytes(data))
    with pytest.raises(DamagedFile, match="bad.npz"):
        load_state_set(tmp_path / "bad.npz", toys.Walk)
    (tmp_path / "cut.npz").write_bytes(bytes(data[:100]))
    with pytest.raises(DamagedFile, match="cut.npz: not a readable state set"):
        load_state_set(tmp_path / "cut.npz", toys.Walk)
    with pytest.raises(ValueError, match="not 'toy_walk' records"):
        save_state_set(tmp_path / "x.npz", toys.Walk, np.zeros(2, toys.Pair.record_dtype))
