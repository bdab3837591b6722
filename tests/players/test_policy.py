"""The actor-critic: a separate critic keeps the value's gradient out of the actor's encoder; logits scored."""

import pytest
import torch

from sparring.players.policy import Policy


def test_separate_critic_trains_its_own_encoder_only():
    torch.manual_seed(0)
    policy = Policy(6, [3, 2], hidden=16, layers=2, critic="separate")
    obs, mask = torch.randn(32, 6), torch.ones(32, 5, dtype=torch.bool)
    _, _, value, _ = policy.act(obs, mask)
    assert torch.allclose(value, policy.value(obs))
    policy.value(obs).pow(2).mean().backward()
    assert all(p.grad is None for p in [*policy.encoder.parameters(), *policy.actor.parameters()])
    assert all(p.grad is not None for p in [*policy.critic_encoder.parameters(), *policy.critic.parameters()])


def test_shared_critic_reads_the_actor_features():
    torch.manual_seed(0)
    policy = Policy(6, [3, 2], hidden=16, layers=2)
    policy.value(torch.randn(32, 6)).pow(2).mean().backward()
    assert policy.critic_encoder is None and all(p.grad is not None for p in policy.encoder.parameters())


def test_separate_critic_needs_an_mlp_policy():
    with pytest.raises(ValueError, match="critic 'separate' needs recurrence 'none'"):
        Policy(6, [3, 2], hidden=16, recurrence="lstm", critic="separate")
    with pytest.raises(ValueError, match=r"critic 'twin' is not one of \['shared', 'separate'\]"):
        Policy(6, [3, 2], hidden=16, critic="twin")


def test_onehot_planes_are_one_per_code_and_none_outside_one_to_high():
    for dtype, low in ((torch.uint8, 0), (torch.int8, -5), (torch.int16, -5)):
        policy = Policy(7, [3], hidden=8, onehot=3)
        obs = torch.randint(low, 9, (5, 10, 7)).to(dtype)  # values below 1 and above high get no plane
        want = torch.stack([(obs == code).float() for code in (1, 2, 3)], -1).flatten(-2)
        assert torch.equal(policy._inputs(obs), want)


def test_the_logits_are_those_the_training_pass_scores():
    torch.manual_seed(0)
    policy = Policy(6, [3, 2], hidden=16, layers=2)
    obs, mask = torch.randn(32, 6), torch.rand(32, 5) < 0.7
    mask[:, 0] = mask[:, 3] = True
    actions = torch.stack([torch.zeros(32, dtype=torch.long), torch.zeros(32, dtype=torch.long)], 1)
    logp, entropy, value, logits = policy.evaluate(obs, mask, actions, with_logits=True)
    assert torch.equal(logits, policy.logits(obs))
    grid = torch.log_softmax(policy.heads.grid(logits, mask), -1)
    assert torch.allclose(logp, grid[:, 0, 0] + grid[:, 1, 0], atol=1e-5)
    assert [t.shape for t in policy.evaluate(obs, mask, actions)] == [logp.shape, entropy.shape, value.shape]
    with pytest.raises(ValueError, match="needs an MLP policy"):
        Policy(6, [3, 2], hidden=16, recurrence="lstm").logits(obs)
