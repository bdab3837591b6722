"""Brain specs for any env with a text face: a seat's turn, bad specs, and the line-choosing model."""

import numpy as np
import pytest

import sparring
from sparring.lm.brains import Observations
from sparring.lm.specs import ChoiceBrain, make_brain, turn
from sparring.players.noisy import NoisyPlayer


@pytest.fixture(scope="module")
def town():
    return sparring.make("town", num_envs=2, seed=3, days=1)


def test_turn_lists_every_legal_action_as_a_line(town):
    t = turn(town.env_cls, town.records[1], town.config, 2)
    assert [a for (a,) in t.actions] == np.flatnonzero(town.mask[1 * 8 + 2]).tolist()
    assert t.text.endswith("\n".join(t.lines)) and t.lines[0] == "0: wait"
    assert t.index_of(np.array([t.actions[2][0]])) == 2


def test_turn_of_a_multi_head_env_lists_allowed_full_actions():
    duel = sparring.make("duel", num_envs=1, seed=0)
    t = turn(duel.env_cls, duel.records[0], duel.config, 0)
    assert t.lines[0] == "0: wait" and t.actions[0] == (0, 0, 0, 0, 0)
    assert all(len(a) == 5 for a in t.actions) and "Legal actions:" in t.text
    batch = Observations.from_env(duel, [0])
    assert all(batch.allows(0, np.array(a)) for a in t.actions)


def test_a_noisy_scripted_spec_is_the_players_noisy_player(town):
    brain = make_brain("scripted:planner:0.3", town)
    assert isinstance(brain, NoisyPlayer) and brain.name == "scripted:planner:0.3"
    assert make_brain("scripted", town).name == "scripted:planner"


@pytest.mark.parametrize(
    "spec, error",
    [
        ("robot", "unknown player 'robot'.*or a text brain: openai:URL:MODEL, local:DIR, local:FILE.gguf or smollm2"),
        ("scripted:planner:2", "probability in"),
        ("openai:nohost", "openai:URL:MODEL"),
        ("local:/no/such/dir", "does not exist"),
        ("scripted:genius", "no scripted policy 'genius'"),
    ],
)
def test_bad_brain_specs_say_what_is_valid(town, spec, error):
    with pytest.raises(ValueError, match=error):
        make_brain(spec, town)


def test_text_brains_need_a_text_face():
    squared = sparring.make("squared", num_envs=1)
    with pytest.raises(ValueError, match="env 'squared' has no text face: declare `text = ...`"):
        make_brain("openai:http://127.0.0.1:9/v1:m", squared)


def test_choice_brain_plays_legal_actions(town, town_model):
    brain = make_brain(f"local:{town_model[0]}", town)
    assert isinstance(brain, ChoiceBrain)
    batch = Observations.from_env(town, np.arange(town.rows))
    acts = brain.act(town, np.arange(town.rows))
    assert all(batch.allows(i, a) for i, a in enumerate(acts))
    assert brain.stats.turns == town.rows and brain.stats.parsed == town.rows


def test_a_compact_turn_is_the_brief_answered_by_the_lines_words(town):
    from sparring.envs.town.text import TownText

    full = turn(town.env_cls, town.records[1], town.config, 2)
    compact = turn(town.env_cls, town.records[1], town.config, 2, "compact")
    assert compact.text == TownText.brief(town.records[1], town.config, 2) and "Legal actions" not in compact.text
    assert compact.actions == full.actions and compact.lines[0] == "wait" and full.lines[0] == "0: wait"
    with pytest.raises(ValueError, match=r"prompt must be one of \('full', 'compact'\), got 'short'"):
        turn(town.env_cls, town.records[1], town.config, 2, "short")


def test_a_compact_choice_brain_lets_walks_go_on_undecided(town_model):
    from sparring.envs.town.text import TownText

    town = sparring.make("town", num_envs=2, seed=5, days=1, autoreset=False)
    compact = make_brain(f"local:{town_model[0]}", town, prompt="compact")
    full = make_brain(f"local:{town_model[0]}", town)
    assert compact.scorer.prompt == "compact" and full.scorer.prompt == "full"  # the distilled model records full
    rows, previous = np.arange(town.rows), None
    for _ in range(12):
        goes_on = np.zeros(town.rows, bool)
        if previous is not None:
            goes_on = np.array(
                [TownText.continues(town.records[r // 8], town.config, r % 8, previous[r]) for r in rows]
            )
        before = compact.stats.kept
        acts = compact.act(town, rows)
        assert all(Observations.from_env(town, rows).allows(i, a) for i, a in enumerate(acts))
        assert compact.stats.kept - before == goes_on.sum()
        assert previous is None or (acts[goes_on] == previous[goes_on]).all()
        full.act(town, rows)
        town.step(acts)
        previous = acts.copy()
    assert compact.stats.kept > 0 and full.stats.kept == 0
    assert compact.stats.turns == full.stats.turns == compact.stats.kept + compact.stats.parsed


def test_the_clis_auto_dtype_plays_a_pretrained_model_fast_and_a_trained_one_as_trained(
    town, tiny_folder, town_model, monkeypatch
):
    import torch

    from sparring.lm import play_defaults

    monkeypatch.setattr(play_defaults, "bf16_units", lambda: "avx512_bf16")
    pretrained = make_brain(f"local:{tiny_folder}", town, dtype="auto")
    assert pretrained.local.model.dtype == torch.bfloat16 and pretrained.scorer.prompt == "full"
    trained = make_brain(f"local:{town_model[0]}", town, dtype="auto")
    assert trained.local.model.dtype == torch.float32 and trained.scorer.prompt == trained.local.prompt
    library = make_brain(f"local:{tiny_folder}", town)  # a library call keeps float32 and the full prompt
    assert library.local.model.dtype == torch.float32 and library.scorer.prompt == "full"
