"""Several policies in one world: the seat-to-policy mapping, each policy learning from its own rows, the warm start."""

import numpy as np
import pytest
import torch

from sparring.train.config import make_train_config
from sparring.train.imitate import imitate
from sparring.train.populations import seat_policies
from sparring.train.trainer import Trainer
from tests.train import toys  # noqa: F401  (registers the toy envs)

TINY = {"num_envs": 32, "horizon": 16, "minibatch_size": 256, "hidden": 32, "threads": 1}
SEATS = ("a", "b", "c", "d", "e", "f")


def tiny(**kw):
    return make_train_config(None, {**TINY, **kw})


def test_the_mapping_rules_give_each_trained_seat_its_policy():
    assert seat_policies("shared", [0, 1, 2, 3], SEATS, 6) is None
    assert seat_policies("seat", [0, 1, 2, 3], SEATS, 6).tolist() == [0, 1, 2, 3, -1, -1]
    assert seat_policies("groups:2", [0, 1, 2, 3], SEATS, 6).tolist() == [0, 0, 1, 1, -1, -1]
    assert seat_policies("groups:3", [0, 1, 2, 3, 4, 5], SEATS, 6).tolist() == [0, 0, 1, 1, 2, 2]
    assert seat_policies("1,0,0,1", [1, 2, 3, 4], SEATS, 6).tolist() == [-1, 1, 0, 0, 1, -1]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("groups:3", "the 4 trained seats \\['a', 'b', 'c', 'd'\\] do not split"),
        ("groups:x", "do not split into it; valid: shared, seat, groups:K"),
        ("0,1,2", "names 3 seats, the learner trains 4"),
        ("0,2,2,0", "policy numbers must be 0..P-1"),
        ("banana", "is not a policy mapping; valid: shared, seat"),
    ],
)
def test_a_bad_mapping_names_what_is_valid(spec, message):
    with pytest.raises(ValueError, match=message):
        seat_policies(spec, [0, 1, 2, 3], SEATS, 6)


def test_the_shared_policy_keeps_the_trainer_of_old():
    trainer = Trainer("toy_roles", tiny(steps=1))
    assert trainer.population is None and len(trainer.rollout.rows_np) == 32 * 4


def test_each_policy_learns_from_its_own_rows_with_its_own_optimizer():
    trainer = Trainer("toy_roles", tiny(policies="1,1,0,0", steps=1))
    pop = trainer.population
    assert [sorted(set((r.rows_np % 4).tolist())) for r in pop.rollouts] == [[2, 3], [0, 1]]
    assert sorted(np.concatenate([r.rows_np for r in pop.rollouts]).tolist()) == list(range(32 * 4))
    assert pop.policies[0] is trainer.policy and len({id(o) for o in pop.optimizers}) == 2
    before = [{k: v.clone() for k, v in p.state_dict().items()} for p in pop.policies]
    trainer.iterate()
    for policy, old in zip(pop.policies, before):
        assert any(not torch.equal(v, old[k]) for k, v in policy.state_dict().items())
    # the policies started from their own weights and stay apart
    assert not torch.equal(
        pop.policies[0].state_dict()["encoder.0.weight"], pop.policies[1].state_dict()["encoder.0.weight"]
    )


def test_a_policy_per_seat_learns_roles_a_shared_policy_cannot():
    """The seats see the same observation and seat k is paid for playing k: a shared policy is stuck near 1/4."""
    hits = {}
    for policies in ("shared", "seat"):
        trainer = Trainer("toy_roles", tiny(policies=policies, steps=32 * 16 * 4 * 60, lr=0.02))
        while not trainer.finished():
            metrics = trainer.iterate()
        hits[policies] = metrics["env/hits"]
    assert hits["seat"] > 0.8 and hits["shared"] < 0.4, hits


def test_a_warm_start_clones_policy_zero_and_every_policy_starts_from_it():
    trainer = Trainer("toy_roles", tiny(policies="seat", steps=10**6, imitate="right", imitate_steps=32 * 16 * 4 * 3))
    pop = trainer.population
    list(imitate(trainer))
    assert not torch.equal(
        pop.policies[0].state_dict()["encoder.0.weight"], pop.policies[1].state_dict()["encoder.0.weight"]
    )
    pop.broadcast(trainer.rollout)
    for policy in pop.policies[1:]:
        for (name, a), b in zip(pop.policies[0].state_dict().items(), policy.state_dict().values()):
            assert torch.equal(a, b), name
    for rollout in pop.rollouts:  # each carries on from the warm start's episode ends for its rows
        at = np.searchsorted(trainer.rollout.rows_np, rollout.rows_np)
        assert torch.equal(rollout.just_done, trainer.rollout.just_done[torch.from_numpy(at)])


def test_the_trainer_broadcasts_after_a_warm_start_only():
    trainer = Trainer("toy_roles", tiny(policies="seat", steps=10**6, imitate="right", imitate_steps=32 * 16 * 4))
    list(imitate(trainer))
    calls = []
    trainer.population.broadcast = calls.append
    trainer.iterate()
    trainer.iterate()
    assert calls == [trainer.rollout]
    fresh = Trainer("toy_roles", tiny(policies="seat", steps=10**6))
    fresh.population.broadcast = calls.append
    fresh.iterate()
    assert len(calls) == 1


def test_several_policies_refuse_restarts_they_do_not_support():
    with pytest.raises(ValueError, match="--train.policies 'seat' trains several policies"):
        Trainer("toy_roles", tiny(policies="seat", archive_fraction=0.5))
