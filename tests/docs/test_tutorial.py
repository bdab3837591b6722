"""The tutorial's env at each step, loaded from the files the tutorial page includes, passes the checker."""

import pytest

from sparring.kit import BatchedEnv
from sparring.kit.check import check
from tests.docs.commands import load_step


@pytest.mark.parametrize("k", [1, 2, 3])
def test_each_step_passes_the_checker(k):
    cls = load_step(k)
    report = check(cls, steps=300, audit_episodes=100)
    warnings = [f.check for f in report.findings if f.status == "warn"]
    assert report.ok, report.text()
    # step 1 has no scripted policy yet, and the tutorial shows the checker saying so
    assert warnings == (["reward audit"] if k == 1 else []), report.text()


def test_the_final_step_draws_describes_and_keeps_its_invariants():
    env = BatchedEnv(load_step(3), num_envs=1, seed=0)
    env.reset()
    for _ in range(12):  # into the second ball
        env.step(env.scripted_actions("predict"))
    s, cfg = env.records[0], env.config
    board = env.render_ansi().splitlines()
    assert len(board) == cfg.height + 1 and board[cfg.height - 1].count("=") == 1 and "o" in "".join(board)
    assert "balls left" in env.describe() and env.env_cls.invariants(s, cfg) == []
    assert [shape["type"] for shape in env.env_cls.draw(s, cfg)] == ["rect", "circle", "rect", "text"]
    assert len(env.env_cls.cell(s, cfg)) == 4 and float(s["ep_return"][0]) == 1.0  # predict caught ball one
