"""Emergence in town: work entropy as the env counts it, division of labour against shuffled work, the trade
network between groups, prices over time and their trend, the plots."""

import numpy as np
import pytest

from sparring.envs.town.emergence import _division, _mutual_share, _trend, emergence, work_entropy
from sparring.envs.town.emergence_plots import write_emergence_plots
from sparring.evaluate.matchup import play_pair
from sparring.evaluate.crowd_judge import judge_crowd
from sparring.evaluate.matchup import Tallied
from sparring.kit import BatchedEnv, registry


@pytest.fixture(scope="module")
def played():
    env = BatchedEnv(registry.get("town"), num_envs=16, seed=4, autoreset=False, background=0, days=2)
    focal = np.zeros((16, 8), bool)
    focal[:, :4] = True
    tally = Tallied(env)
    data, envs = play_pair(env, ("scripted:planner", "scripted:planner:0.3"), focal, 32, tally, 0, False)
    chars = tally.arrays()
    return env, data, chars, focal[envs], emergence(chars, focal[envs], window=12)


def test_work_entropy_is_0_for_one_skill_1_for_all_alike_and_missing_without_work():
    h = work_entropy(np.array([[5, 0, 0], [2, 2, 2], [0, 0, 0], [1, 1, 0]]))
    assert h[0] == 0 and h[1] == pytest.approx(1) and np.isnan(h[2]) and h[3] == pytest.approx(np.log(2) / np.log(3))


def test_the_mean_work_entropy_of_a_town_is_the_env_s_own_metric(played):
    env, data, chars, _, _ = played
    h = work_entropy(chars["worked"])
    ours = np.where(np.isnan(h).all(1), 0.0, np.nanmean(np.where(np.isnan(h), np.nan, h), 1))
    metric = data[:, 3 + list(env.env_cls.metrics).index("spec_entropy")]
    assert np.allclose(ours, metric, atol=1e-5) and metric.max() > 0


def test_division_of_labour_is_1_for_one_skill_each_0_for_the_same_mix_and_none_without_a_choice():
    assert _mutual_share(np.array([[4, 0, 0], [0, 3, 0], [0, 0, 5]])) == pytest.approx(1)
    assert _mutual_share(np.array([[2, 1, 0], [4, 2, 0]])) == pytest.approx(0)
    assert _mutual_share(np.array([[3, 0, 0], [5, 0, 0]])) is None and _mutual_share(np.zeros((2, 3))) is None
    observed, shuffled = _division(np.array([[6, 0, 0], [0, 6, 0], [0, 0, 6]]), np.random.default_rng(0))
    assert observed == pytest.approx(1) and shuffled < 0.5  # the same acts dealt at random are far less divided


def test_the_report_s_parts_add_up(played):
    _, data, chars, focal, report = played
    assert report["towns"] == 32 and set(report["work"]) == {"focal", "background"}
    net = report["trade_network"]
    flows = sum(f["mean"] for f in net["between_groups"].values())
    assert flows == pytest.approx(net["per_town"]["mean"]) and np.sum(net["pairs"]) == len(chars["trade_log"])
    assert np.sum(net["roles_per_town"]) == pytest.approx(net["per_town"]["mean"])  # every trade, by its roles
    assert sum(net["characters_per_role"]) == pytest.approx(8) and net["roles"][0] == "focal rich"
    prices = report["prices"]
    for good in ("wheat", "bread", "wood"):
        g = prices[good]
        assert sum(w["n"] for w in g["windows"]) == sum(d["n"] for d in g["days"]) == g["trades"]
        assert all(w["start_tick"] % 12 == 0 and w["ci95"][0] <= w["mean"] <= w["ci95"][1] for w in g["windows"])
    assert prices["bread"]["trades"] > 50  # the planners trade bread: the checks above are not about nothing
    for a, c in enumerate(report["characters"]):
        group = "focal" if a < 4 else "background"  # here the first four characters are always focal
        assert set(c) == {"name", group} and c[group]["goal_rate"]["trials"] == 32
        assert c[group]["goal_rate"]["successes"] == int(chars["goal"][:, a].sum())
    dol = report["division_of_labour"]
    assert dol["towns"] <= 32 and 0 <= dol["shuffled"]["mean"] <= 1 and 0 <= dol["mean"]["mean"] <= 1


def test_the_trend_is_the_slope_in_coins_per_day():
    ticks = np.arange(1, 97)
    trend = _trend(ticks, 1.0 + ticks / 48 + 0.01 * np.sin(ticks))
    assert trend["per_day"] == pytest.approx(1.0, abs=0.01) and trend["ci95"][0] < 1.0 < trend["ci95"][1]
    assert _trend(ticks, np.full(96, 4.0)) == {"per_day": 0.0, "ci95": [0.0, 0.0]}
    assert _trend(ticks[:2], np.array([1.0, 2.0])) is None


def test_the_judge_s_report_carries_emergence_and_its_plots(tmp_path):
    brains = ["scripted:planner", "random"]
    config = {"background": 0, "days": 1}
    report = judge_crowd(registry.get("town"), config, brains, brains, 8, num_envs=8, emergence=True)
    assert all("emergence" in p for p in report["pairings"])
    written = write_emergence_plots(report, str(tmp_path / "em"))
    assert [p.rsplit("/", 1)[1] for p in written] == [
        "specialization.png",
        "work.png",
        "trade_network.png",
        "prices.png",
        "goal_rates.png",
    ]
    plain = judge_crowd(registry.get("town"), config, brains, brains, 8, num_envs=8)
    with pytest.raises(ValueError, match="made with emergence"):
        write_emergence_plots(plain, str(tmp_path / "none"))


def test_no_towns_or_a_bad_window_is_refused(played):
    _, _, chars, focal, _ = played
    with pytest.raises(ValueError, match="price window must be >= 1"):
        emergence(chars, focal, window=0)
    empty = {k: v[:0] for k, v in chars.items()}
    with pytest.raises(ValueError, match="at least one finished town"):
        emergence(empty, focal[:0])
