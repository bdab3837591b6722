"""PPO held near a frozen teacher: the KL term, its fade, --train.init and what a checkpoint keeps of the teacher."""

import copy
import os
import re

import pytest
import torch

from sparring.kit import BatchedEnv
from sparring.players.policy import Policy
from sparring.train.checkpoint import restore_trainer, save_checkpoint
from sparring.train.config import make_train_config
from sparring.train.imitate import imitate
from sparring.train.teacher import TeacherKL, check_teacher, masked_kl
from sparring.train.trainer import Trainer
from tests.train.test_imitate import CueTeacher  # registers toy_cue_teacher

TINY = {"num_envs": 32, "horizon": 16, "minibatch_size": 256, "hidden": 32, "threads": 1, "lr": 0.01}
BATCH = 32 * 16


def _batch(seed: int, rows: int = 64):
    """Observations of 4 bits and a mask of two heads (4 and 3 actions), every head with a legal action."""
    gen = torch.Generator().manual_seed(seed)
    obs = torch.randint(0, 2, (rows, 4), generator=gen, dtype=torch.uint8)
    mask = torch.rand((rows, 7), generator=gen) < 0.6
    mask[:, 0] = mask[:, 4] = True
    return obs, mask


def _policy(seed: int) -> Policy:
    torch.manual_seed(seed)
    policy = Policy(4, [4, 3], hidden=16, layers=1, onehot=1)
    with torch.no_grad():  # larger logits than the init's 0.01 gain, so the distributions differ
        policy.actor.weight.mul_(100)
    return policy


def test_the_kl_is_zero_against_itself_and_positive_against_another_policy():
    obs, mask = _batch(0)
    teacher, other = _policy(1), _policy(2)
    heads = teacher.heads
    with torch.no_grad():
        same = masked_kl(heads, teacher.logits(obs), teacher.logits(obs), mask)
        differ = masked_kl(heads, teacher.logits(obs), other.logits(obs), mask)
    assert torch.allclose(same, torch.zeros_like(same), atol=1e-6)
    assert bool((differ >= -1e-6).all()) and float(differ.mean()) > 0.01
    # the masked actions do not count: changing their logits changes nothing
    with torch.no_grad():
        shifted = other.logits(obs) + (~mask) * 50.0
        assert torch.allclose(masked_kl(heads, teacher.logits(obs), shifted, mask), differ, atol=1e-5)


def test_the_kl_gradient_moves_the_policy_towards_its_teacher():
    obs, mask = _batch(3)
    teacher, student = _policy(4), _policy(5)
    kl = TeacherKL(teacher, coef=1.0, until=0, start=0)
    # on the logits, the gradient of KL(teacher || policy) is p_policy - p_teacher on the legal actions of each head
    logits = student.logits(obs).detach().requires_grad_(True)
    kl.kl(obs, mask, logits).backward()
    p_own = torch.softmax(student.heads.grid(logits.detach(), mask), -1)
    p_teacher = torch.softmax(student.heads.grid(teacher.logits(obs).detach(), mask), -1)
    want = torch.zeros_like(logits)
    for h, (start, size) in enumerate(((0, 4), (4, 3))):
        want[:, start : start + size] = (p_own - p_teacher)[:, h, :size] / len(obs)
    assert torch.allclose(logits.grad, want, atol=1e-6)
    # descending it brings the student's distribution to the teacher's
    opt = torch.optim.Adam(student.parameters(), lr=0.02)
    before = float(kl.kl(obs, mask, student.logits(obs)).detach())
    for _ in range(200):
        opt.zero_grad()
        kl.kl(obs, mask, student.logits(obs)).backward()
        opt.step()
    after = float(kl.kl(obs, mask, student.logits(obs)).detach())
    assert after < 0.1 * before, (before, after)


def test_the_teacher_is_a_frozen_copy_and_its_weight_fades_linearly():
    policy = _policy(6)
    kl = TeacherKL(policy, coef=0.4, until=1000, start=500)
    with torch.no_grad():
        policy.actor.weight.add_(1.0)  # the policy moves on; the teacher does not
    assert not torch.equal(kl.teacher.actor.weight, policy.actor.weight)
    assert not any(p.requires_grad for p in kl.teacher.parameters())
    assert [kl.coef(s) for s in (500, 1000, 1500, 4000)] == pytest.approx([0.4, 0.2, 0.0, 0.0])
    assert TeacherKL(policy, 0.4, 0, 500).coef(10**9) == 0.4  # until 0: held for the whole run


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"kl_teacher": 0.1}, "needs a teacher"),
        ({"kl_teacher_until": 100}, "fades a KL penalty that is off"),
        ({"kl_teacher": 0.1, "imitate": "teacher", "imitate_steps": 10, "recurrence": "lstm"}, "needs an MLP"),
        ({"kl_teacher": 0.1, "init": "runs/x", "policies": "seat"}, "needs one shared policy"),
        ({"kl_teacher": -1}, "'kl_teacher' (--train.kl_teacher) is -1"),
    ],
)
def test_bad_teacher_settings_are_named(settings, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        check_teacher(make_train_config(None, {**TINY, "steps": 1000, **settings}))


def _cloned(settings: dict) -> Trainer:
    cfg = make_train_config(
        None, {**TINY, "steps": BATCH * 8, "imitate": "teacher", "imitate_steps": BATCH * 4, **settings}
    )
    trainer = Trainer("toy_cue_teacher", cfg)
    for _ in imitate(trainer):
        pass
    return trainer


def _kl_to(teacher: Policy, policy: Policy) -> float:
    """Mean KL(teacher || policy) over 1024 fresh states of the cue env."""
    env = BatchedEnv(CueTeacher, num_envs=1024, seed=7)
    obs, mask = torch.from_numpy(env.obs), torch.from_numpy(env.mask)
    with torch.no_grad():
        return float(masked_kl(policy.heads, teacher.logits(obs), policy.logits(obs), mask).mean())


def test_ppo_from_the_clone_is_held_near_it_by_the_penalty():
    free = _cloned({})
    clone = copy.deepcopy(free.policy)
    held = _cloned({"kl_teacher": 5.0})
    assert all(torch.equal(a, b) for a, b in zip(clone.parameters(), held.policy.parameters()))  # the same clone
    torch.manual_seed(1)  # the rollouts of both draw the same numbers
    logs = [held.iterate() for _ in range(4)]
    torch.manual_seed(1)
    for _ in range(4):
        free.iterate()
    assert held.teacher is not None and held.teacher.start == BATCH * 4
    assert all(torch.equal(a, b) for a, b in zip(clone.parameters(), held.teacher.teacher.parameters()))
    assert all("loss/kl_teacher" in m and m["train/kl_teacher_coef"] == 5.0 for m in logs)
    assert _kl_to(clone, held.policy) < 0.5 * _kl_to(clone, free.policy)


def test_a_faded_penalty_skips_the_teacher():
    trainer = _cloned({"kl_teacher": 1.0, "kl_teacher_until": BATCH})
    first, second = trainer.iterate(), trainer.iterate()
    assert first["train/kl_teacher_coef"] == 1.0 and "loss/kl_teacher" not in second


def test_init_starts_from_a_checkpoints_weights_and_a_resume_keeps_the_teacher(tmp_path):
    trainer = _cloned({"kl_teacher": 1.0})
    trainer.iterate()
    save_checkpoint(str(tmp_path / "a"), trainer)
    ckpt = str(tmp_path / "a" / "checkpoints")
    settings = {**TINY, "steps": BATCH * 2, "init": ckpt, "kl_teacher": 1.0}
    warm = Trainer("toy_cue_teacher", make_train_config(None, settings))
    assert warm.global_step == 0
    assert all(torch.equal(a, b) for a, b in zip(trainer.policy.parameters(), warm.policy.parameters()))
    # a resume of the run gets its teacher back, not the policy of the checkpoint
    resumed = Trainer("toy_cue_teacher", trainer.cfg, warm=False)
    restore_trainer(resumed, ckpt)
    assert resumed.teacher.start == trainer.teacher.start
    assert all(
        torch.equal(a, b) for a, b in zip(trainer.teacher.teacher.parameters(), resumed.teacher.teacher.parameters())
    )
    assert os.path.exists(os.path.join(ckpt, open(os.path.join(ckpt, "latest")).read(), "teacher.safetensors"))


def test_init_of_another_policy_shape_is_named(tmp_path):
    trainer = _cloned({})
    save_checkpoint(str(tmp_path / "a"), trainer)
    settings = {**TINY, "steps": BATCH, "init": str(tmp_path / "a" / "checkpoints"), "hidden": 16}
    with pytest.raises(ValueError, match=re.escape("'hidden': (32, 16)")):
        Trainer("toy_cue_teacher", make_train_config(None, settings))
