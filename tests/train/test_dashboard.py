"""What `sparring train` shows: steps against the budget, return, length, env metrics, losses; the rest in a table."""

import io

from sparring.kit.progress import Progress
from sparring.train.dashboard import show


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def iteration(step: int, **extra) -> dict:
    return {
        "train/step": step,
        "train/iteration": step // 64,
        "train/sps": 1234.5,
        "train/elapsed_s": 1.0,
        "train/lr": 3e-4,
        "loss/policy": -0.02,
        "loss/value": 0.5,
        "loss/entropy": 1.2,
        "perf/rollout_s": 0.1,
        **extra,
    }


def test_a_line_holds_steps_rate_budget_return_env_metrics_and_losses_in_a_stable_order():
    clock, out = Clock(), io.StringIO()
    with Progress("train duel", stream=out, clock=clock, every_s=5, quiet_s=0) as progress:
        progress.start(1280, unit="step")
        clock.now += 1
        show(progress, iteration(64), 0.05)  # no episode ended yet: losses only
        clock.now += 4
        metrics = {"env/episodes": 3, "env/episode_return": 0.5, "env/episode_length": 80.0, "env/win": 0.25}
        show(progress, iteration(640, **metrics, **{"env/phase/opening": 2.0}), 0.5)
    line = out.getvalue().splitlines()[0]
    assert line.startswith("train duel: 50% 640/1,280 steps, 128 steps/s, 0:05 elapsed, ETA 0:05 | ")
    assert line.endswith("| return=0.5 length=80 win=0.25 policy_loss=-0.02 value_loss=0.5")
    assert progress.table == {"train/lr": 3e-4, "loss/entropy": 1.2, "perf/rollout_s": 0.1}


def test_figures_of_earlier_iterations_stay_until_new_ones_come():
    progress = Progress("train squared", mode="off", clock=Clock())
    progress.start(None)
    show(progress, iteration(64, **{"env/episode_return": 1.0, "env/success": 1.0}), 0.1)
    show(progress, iteration(128), 0.2)  # no episode ended in this one
    assert progress.figures == {"return": 1.0, "success": 1.0, "policy_loss": -0.02, "value_loss": 0.5}
    assert progress.done == 128 and progress.fraction == 0.2
