"""Run Gymnasium's and PettingZoo's own checkers on the kit's adapters."""

from __future__ import annotations

import contextlib
import io
import warnings

from sparring.kit.check.report import Report
from sparring.kit.gym_adapter import GymEnv
from sparring.kit.pz_adapter import PettingZooEnv


def check_adapters(report: Report, cls, config: dict, cycles: int = 300) -> None:
    """``gymnasium.utils.env_checker.check_env``, ``pettingzoo.test.parallel_api_test``, and PettingZoo's AEC
    ``api_test`` through ``parallel_to_aec`` (which also checks that every observation lies in its space)."""
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, parallel_api_test
    from pettingzoo.utils.conversions import parallel_to_aec

    for name, run in (
        ("gymnasium adapter", lambda: check_env(GymEnv(cls, **config), skip_render_check=True)),
        ("pettingzoo adapter", lambda: parallel_api_test(PettingZooEnv(cls, **config), num_cycles=cycles)),
        ("pettingzoo AEC adapter", lambda: api_test(parallel_to_aec(PettingZooEnv(cls, **config)), num_cycles=cycles)),
    ):
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                run()
        except Exception as exc:  # any failure of a third-party checker is a finding, not a crash
            report.add(name, "fail", f"{type(exc).__name__}: {exc}")
        else:
            report.add(name, "pass", "passes the library's own checker")
