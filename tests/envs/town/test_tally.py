"""Per-character trades and gifts of a town: they add up to the env's own count of trades per town, and a gift
counts only when one was carried out."""

import numpy as np
import pytest

from sparring.envs.town.world import GIVE, KIND
from sparring.evaluate.matchup import play_pair
from sparring.envs.town.tally import TownTally, _first_per_env
from sparring.evaluate.matchup import Tallied
from sparring.kit import BatchedEnv, registry


class _Chosen(TownTally):
    """Also counts the gifts chosen (legal when chosen), to compare with those carried out."""

    chosen = 0

    def observe(self):
        self.chosen += int(((KIND[self.env.records["last"]] == GIVE) & self.active[:, None]).sum())
        super().observe()


@pytest.fixture(scope="module")
def played():
    env = BatchedEnv(registry.get("town"), num_envs=16, seed=3, autoreset=False, background=0, days=2)
    first = np.zeros((16, 8), bool)
    first[:, :4] = True
    tally = Tallied(env)
    tally.tally = _Chosen(env)  # the judge's tracker, running the counting town tally
    data, envs = play_pair(env, ("scripted:planner:0.3", "random"), first, 24, tally, 0, False)
    return env, tally, data, envs


def test_every_town_s_trades_are_twice_the_env_count(played):
    env, tally, data, envs = played
    chars = tally.arrays()
    trades = data[:, 3 + list(env.env_cls.metrics).index("trades")]
    assert len(chars["trades"]) == len(data) == len(envs) == 24
    assert trades.sum() > 20  # the noisy planners trade: the check below is not about zeros
    assert np.array_equal(chars["trades"].sum(1), 2 * trades)


def test_gifts_count_those_carried_out_among_those_chosen(played):
    _, tally, _, _ = played
    gifts = int(tally.arrays()["gifts"].sum())
    # random characters choose gives that fail at their turn (the other walked away first), never the reverse
    assert 0.5 * tally.tally.chosen < gifts <= tally.tally.chosen


def test_finished_episodes_keep_each_character_s_goal_and_standing(played):
    env, tally, _, envs = played
    chars = tally.arrays()
    assert set(np.unique(chars["goal"])) <= {0, 1} and set(np.unique(chars["alive"])) <= {0, 1}
    assert chars["alive"][:, 4:].sum() == 0  # random characters faint within two days
    assert np.bincount(envs, minlength=env.num_envs).tolist() == [2] * 8 + [1] * 8  # 24 episodes over 16 envs


def test_each_env_takes_its_count_of_highest_priority_candidates():
    env = np.array([0, 0, 0, 1, 1, 2])
    priority = np.array([1, 3, 2, 0, 2, 1])
    taken = _first_per_env(env, priority, np.array([2, 1, 0]))
    assert taken.tolist() == [False, True, True, False, True, False]


def test_each_trade_is_logged_with_its_price_and_the_pairs_add_up(played):
    env, tally, data, _ = played
    chars = tally.arrays()
    names = list(env.env_cls.metrics)
    log, towns = chars["trade_log"], len(data)
    assert np.array_equal(np.bincount(log[:, 0], minlength=towns), data[:, 3 + names.index("trades")])
    coins = np.bincount(log[:, 0], weights=log[:, 5], minlength=towns)
    assert np.array_equal(coins, data[:, 3 + names.index("trade_coins")])  # the prices the env counted
    assert ((log[:, 1] >= 1) & (log[:, 1] <= 2 * 48)).all() and (log[:, 2] != log[:, 3]).all()
    pairs = chars["trade_pairs"]
    assert np.array_equal(pairs.sum(2) + pairs.sum(1), chars["trades"])  # as seller plus as buyer
    assert chars["trades"].sum() == 2 * data[:, 3 + names.index("trades")].sum()  # a buyer and a seller each
    assert np.array_equal(chars["gift_pairs"].sum(2), chars["gifts"])
    talk = chars["talk_pairs"]
    assert talk.sum() > 0 and np.trace(talk, axis1=1, axis2=2).sum() == 0  # nobody talks to itself
    assert chars["worked"].shape == (towns, 8, 3) and set(np.unique(chars["goal_kind"])) <= {0, 1, 2}


def test_the_replay_s_events_are_those_the_tally_counts(tmp_path):
    """sparring.envs.town.render.events (the viewer's arrows) and the tally infer the same trades, gifts and talk."""
    from sparring.envs.town.render import events
    from sparring.evaluate.episodes import play_episodes
    from sparring.players import make_player
    from sparring.record import Recorder, Recording

    env = BatchedEnv(registry.get("town"), num_envs=4, seed=5, autoreset=False, background=0, days=1)
    tally, path = Tallied(env), str(tmp_path / "t.parquet")
    recorder = Recorder(env, path, policy="noisy")
    play_episodes(env, [(make_player("scripted:planner:0.3", env, 1), np.arange(env.rows))], 8, tally, recorder)
    recorder.close()
    chars, rec = tally.arrays(), Recording(path)
    kinds = {"trade": "trade_pairs", "gift": "gift_pairs", "talk": "talk_pairs"}
    found = 0
    for k in rec.episode_ids():
        states = rec.episode(k).states
        counted = {name: np.zeros((8, 8), np.int64) for name in kinds.values()}
        for before, after in zip(states[:-1], states[1:]):
            for kind, a, b, _ in events(before, after):
                counted[kinds[kind]][a, b] += 1
        for name, matrix in counted.items():
            assert np.array_equal(matrix, chars[name][k]), (k, name)
            found += matrix.sum()
    assert found > 50
