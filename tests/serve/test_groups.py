"""Exact restored groups: 8 sessions reset to one snapshot id start alike and, with the same actions, stay alike."""

import asyncio

from openenv.core.generic_client import GenericEnvClient

GROUP = 8
TURNS = 30


def view(result):
    """What a member sees: its prompt, structured observation, mask, rewards and done."""
    obs = result.observation
    return obs["text"], tuple(obs["obs"]), tuple(obs["mask"]), tuple(obs["rewards"]), result.done


async def member(url, sid, choose):
    env = GenericEnvClient(base_url=url)
    try:
        result = await env.reset(snapshot=sid)
        trace = [view(result)]
        for turn in range(TURNS):
            if result.done:
                break
            result = await env.step(choose(turn, result.observation))
            trace.append(view(result))
        return trace
    finally:
        await env.close()


def mid_episode_snapshot(url, reset, steps):
    with GenericEnvClient(base_url=url).sync() as env:
        env.reset(**reset)
        for _ in range(steps):
            env.step({"scripted": True})
        return env.state()["snapshot"]


def run_group(url, sid, chooses):
    async def all_members():
        return await asyncio.gather(*(member(url, sid, c) for c in chooses))

    return asyncio.run(all_members())


def first_line(turn, obs):
    return {"line": 0}


def last_line(turn, obs):
    return {"line": len(obs["lines"]) - 1}


def test_a_group_of_8_from_one_duel_snapshot(duel_url):
    sid = mid_episode_snapshot(duel_url, {"seed": 11}, 6)
    same = run_group(duel_url, sid, [lambda t, o: {"line": t % len(o["lines"])}] * GROUP)
    assert all(trace == same[0] for trace in same) and len(same[0]) > 5
    assert same[0][0][0].startswith("Tick 6 ")  # the restored state, mid-episode
    mixed = run_group(duel_url, sid, [first_line, last_line] * (GROUP // 2))
    assert all(trace[0] == same[0][0] for trace in mixed)  # identical first observations
    assert mixed[0] == mixed[2] and mixed[1] == mixed[3] and mixed[0] != mixed[1]


def test_a_group_of_8_from_one_town_snapshot(town_url):
    sid = mid_episode_snapshot(town_url, {"seed": 5}, 20)
    chooses = [first_line] * (GROUP // 2) + [last_line] * (GROUP // 2)
    traces = run_group(town_url, sid, chooses)
    assert all(t == traces[0] for t in traces[: GROUP // 2]) and all(t == traces[-1] for t in traces[GROUP // 2 :])
    assert traces[0][0] == traces[-1][0] and traces[0] != traces[-1]


def test_a_restored_state_is_the_state_it_names(duel_url):
    with GenericEnvClient(base_url=duel_url).sync() as env:
        env.reset(seed=3)
        for _ in range(4):
            env.step({"scripted": True})
        state = env.state()
        assert env.state()["snapshot"] == state["snapshot"]  # asked twice without a step: one snapshot
        ahead = [view(env.step({"line": 0})) for _ in range(5)]
        env.reset(snapshot=state["snapshot"])
        again = env.state()
        assert (again["tick"], again["seat"], again["done"]) == (state["tick"], state["seat"], False)
        assert [view(env.step({"line": 0})) for _ in range(5)] == ahead
