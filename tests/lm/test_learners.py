"""Several learning seats in one env: own turns, goals, returns and evaluation, in town and in duel."""

import numpy as np
import pytest

from sparring.lm.choice import LineScorer
from sparring.lm.grpo import _load
from sparring.lm.learners import evaluate_learners, intervals_overlap, learners_env, play_learners
from sparring.lm.specs import make_brain, turn


@pytest.fixture()
def scorer(town_model):
    model, tok = _load(town_model[0])
    return LineScorer(model, tok)


def test_one_learners_towns_leave_every_other_character_to_the_planner(scorer):
    many = learners_env(3, 7, [0], goal="gathering", days=1)
    assert many.config.background == 7 and (many.records["goal"][:, 0] == 2).all()
    out = play_learners([scorer], many, [0], 1.0, np.random.default_rng(2), turns=3)
    assert len(out.turns) == 1 and len(out.turns[0]) == out.decisions[0] == 9 and out.tokens > 0
    assert out.returns.shape == (3, 1)


def test_each_learner_plays_its_own_character_with_its_goal(scorer, town_model):
    other = LineScorer(*_load(town_model[0]))
    batch = learners_env(2, 3, [0, 2], goal="gathering", days=1)
    assert batch.config.background == batch.num_agents - 3 and (batch.records["goal"][:, [0, 2]] == 2).all()
    first = batch.snapshot()
    out = play_learners([scorer, other], batch, [0, 2], 1.0, np.random.default_rng(0), turns=2)
    assert out.success.shape == out.progress.shape == (2, 2)
    for j, c in enumerate([0, 2]):
        assert len(out.turns[j]) == out.decisions[j] == 4  # two towns, two ticks, its own turns
        own = [scorer.prompt_ids(turn(batch.env_cls, first[e], batch.config, c).text) for e in range(2)]
        assert [t.prompt for t in out.turns[j][:2]] == own  # the first tick's prompts are character c's
    with pytest.raises(ValueError, match="learners must be distinct seat indices"):
        learners_env(1, 0, [0, 0])


def test_evaluation_is_per_learner_and_players_evaluate_too(scorer):
    one = evaluate_learners([scorer], [0], 2, 40, 1.0, "gathering", num_envs=2, days=1)
    assert len(one) == 1 and one[0]["episodes"] == 2 and 0 <= one[0]["successes"] <= 2
    assert one[0]["decisions_per_s"] > 0 and one[0]["unfit_turns"] == 0
    teacher = make_brain("scripted:planner:0.3", learners_env(1, 0, [0], days=1))
    both = evaluate_learners([teacher, teacher], [0, 1], 4, 40, goal="gathering", num_envs=4, days=1)
    assert [r["character"] for r in both] == [0, 1] and all(r["episodes"] == 4 for r in both)
    assert intervals_overlap({"ci95": [0.1, 0.3]}, {"ci95": [0.2, 0.5]})
    assert not intervals_overlap({"ci95": [0.1, 0.2]}, {"ci95": [0.3, 0.5]})


def test_a_duel_learner_plays_against_the_envs_opponent_to_the_end(duel_model):
    duel = LineScorer(*_load(duel_model))
    batch = learners_env(2, 1, [0], "duel", max_ticks=20)
    assert batch.config.opponent == "robot"
    out = play_learners([duel], batch, [0], 1.0, np.random.default_rng(0))
    assert batch.done.all() and out.decisions[0] == len(out.turns[0]) > 0
    assert np.array_equal(out.returns[:, 0], batch.records["ep_return"][:, 0])
    assert out.success[:, 0].tolist() == (batch.records["metrics"][:, 0] > 0.5).tolist()  # the win metric
    with pytest.raises(ValueError, match=r"duel plays seat\(s\) \['opponent'\] itself"):
        learners_env(1, 0, [1], "duel")


def test_compact_learners_decide_only_where_a_walk_does_not_go_on(town_model):
    scorer = LineScorer(*_load(town_model[0]), prompt="compact")
    batch = learners_env(3, 7, [0], goal="gathering", days=1)
    out = play_learners([scorer], batch, [0], 1.0, np.random.default_rng(2), turns=16)
    assert out.kept[0] > 0 and len(out.turns[0]) == out.decisions[0]
    assert out.decisions[0] + out.kept[0] == 3 * 16  # every standing character's turn: decided or kept
    assert all(scorer.tokenizer.decode(t.prompt).count("Legal actions") == 0 for t in out.turns[0])
