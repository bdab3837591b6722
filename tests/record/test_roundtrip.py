"""Record, load, restore random ticks, replay the recorded actions: byte-identical states and rewards."""

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import sparring
from sparring.kit import BatchedEnv
from sparring.record import Recorder, Recording, load
from tests.record.conftest import record


def replay_matches(rec: Recording, ticks_per_episode: int, rng) -> int:
    """Restore random recorded ticks, replay the actions to the end; return how many steps were compared."""
    live = rec.make_env(num_envs=1, autoreset=False)
    a, compared = rec.meta.num_agents, 0
    for k in rec.episode_ids():
        ep = rec.episode(k)
        for t in rng.choice(ep.length, size=min(ticks_per_episode, ep.length), replace=False):
            live.restore([0], ep.states[t : t + 1])
            assert np.array_equal(live.obs, ep.obs[t]) and np.array_equal(live.mask, ep.mask[t])
            for u in range(t, ep.length):
                live.step(ep.actions[u])
                assert live.records.tobytes() == ep.states[u + 1 : u + 2].tobytes(), (k, t, u)
                assert live.rewards.tobytes() == ep.rewards[u].tobytes(), (k, t, u)
                assert np.array_equal(live.terminals, ep.terminals[u]) and np.array_equal(
                    live.truncations, ep.truncations[u]
                )
                compared += 1
            assert live.done[0], f"episode {k} did not end where the recording ends"
            assert list(live.records[0]["ep_return"]) == list(ep.states[-1]["ep_return"][:a])
    return compared


@pytest.mark.parametrize(
    "env_name, config, num_envs",
    [
        ("squared", {"size": 7}, 4),  # one agent, text columns, draw()
        ("toy_walk", {}, 3),  # two phases, truncations, a mask that changes
        ("toy_pair_vs_idle", {}, 2),  # two agents, one seat played by the env
    ],
)
def test_round_trip_is_byte_identical(tmp_path, env_name, config, num_envs):
    path = record(tmp_path / "r.parquet", env_name, 12, num_envs=num_envs, seed=11, config=config, group_rows=50)
    rec = Recording(path, env=env_name)
    assert rec.episode_ids() == list(range(12))
    assert replay_matches(rec, 3, np.random.default_rng(0)) > 12


def test_rows_hold_one_agent_per_tick_with_a_final_row(squared_file):
    table = load(squared_file)
    ep = table.filter(pc.equal(table["episode"], 2)).to_pylist()
    assert [r["tick"] for r in ep] == list(range(len(ep)))
    assert [r["final"] for r in ep] == [False] * (len(ep) - 1) + [True]
    last_move, final = ep[-2], ep[-1]
    assert last_move["terminal"] or last_move["truncated"]
    assert final["action"] is None and final["reward"] is None and final["terminal"] is None
    assert {r["episode_return"] for r in ep} == {sum(r["reward"] for r in ep[:-1])}
    assert {r["episode_length"] for r in ep} == {final["tick"]}
    assert {r["metric_success"] for r in ep} == {1.0 if last_move["reward"] == 1.0 else 0.0}
    assert ep[0]["obs_text"].startswith("You are at row 3, column 3 of a 7x7 grid")
    assert ep[0]["action_text"] == f"move={ep[0]['action'][0]}"
    assert {r["env"] for r in ep} == {"squared"} and {r["phase"] for r in ep} == {"play"}


def test_the_file_is_plain_parquet_with_one_row_group_per_segment(squared_file):
    meta = pq.ParquetFile(squared_file).metadata
    assert meta.num_row_groups >= 2  # group_rows=64 split the eight episodes
    assert meta.metadata[b"sparring.env"] == b'"squared"' and meta.metadata[b"sparring.schema_version"] == b"1"
    assert pq.read_table(squared_file, columns=["episode", "reward"]).num_rows == load(squared_file).num_rows


def test_manual_resets_without_autoreset_are_recorded_too(tmp_path):
    env = BatchedEnv(sparring.kit.get("toy_walk"), num_envs=2, seed=4, autoreset=False)
    finals = []
    with Recorder(env, str(tmp_path / "m.parquet")) as rec:
        for _ in range(60):
            rec.step(env.scripted_actions("to_goal"))
            finals += [env.records[i : i + 1].tobytes() for i in np.flatnonzero(env.done)]
            env.seed += 1  # a fresh episode per reset, as evaluation does
            env.reset_envs(np.flatnonzero(env.done))
    recording = Recording(str(tmp_path / "m.parquet"))
    episodes = [recording.episode(k) for k in recording.episode_ids()]
    assert len(episodes) == len(finals) > 4
    assert sorted(ep.states[-1:].tobytes() for ep in episodes) == sorted(finals)
    assert all(ep.ticks[0] == 0 and ep.rewards[-1, 0] == 1.0 for ep in episodes)
    assert replay_matches(recording, 2, np.random.default_rng(1)) > 0


def test_logp_and_value_are_stored_when_given(tmp_path):
    env = sparring.make("toy_walk", num_envs=2, seed=1)
    with Recorder(env, str(tmp_path / "lv.parquet")) as rec:
        while rec.episodes < 2:
            rec.step(env.scripted_actions("to_goal"), logp=np.full(2, -0.5), value=np.arange(2.0))
    ep = Recording(str(tmp_path / "lv.parquet")).episode(0)
    assert (ep.logp == -0.5).all() and set(ep.value.ravel()) <= {0.0, 1.0}
    with pytest.raises(ValueError, match=r"logp must have one value per agent row \(2\)"):
        with Recorder(env, str(tmp_path / "bad.parquet")) as rec:
            rec.step(env.scripted_actions("to_goal"), logp=np.zeros(3))


def test_incomplete_episodes_are_dropped_and_max_episodes_is_kept(tmp_path):
    env = sparring.make("squared", num_envs=3, seed=2)
    with Recorder(env, str(tmp_path / "c.parquet"), max_episodes=2) as rec:
        for _ in range(40):
            rec.step(env.scripted_actions("greedy"))
    assert rec.full and rec.episodes == 2
    assert Recording(str(tmp_path / "c.parquet")).episode_ids() == [0, 1]
    with Recorder(env, str(tmp_path / "none.parquet")) as rec:
        rec.step(env.scripted_actions("greedy"))
    assert load(str(tmp_path / "none.parquet")).num_rows == 0
