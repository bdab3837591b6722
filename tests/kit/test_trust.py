"""The trust boundary for states: planted values are refused naming the field, valid states never are.

The bulk runs in process on ``validate_states`` (no kernel sees a planted state here); the seeded
fuzz that restores and steps states runs in a subprocess (``tests.kit.trust_fuzz``), where a crash
would be a negative exit code instead of the end of the test run. The commands that load files are
tested in ``tests/test_trust_files.py``.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

from sparring.kit import BatchedEnv, Env, registry
from sparring.kit.check.play import allowed_actions
from sparring.kit.trust import BadState, field_bounds, unbounded_fields, validate_states
from tests.kit import toys
from tests.kit.trust_fuzz import reached_states

ENVS = ("squared", "duel", "serpent", "gauntlet", "town")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def reached():
    """Per env: (class, config, a few states reached in random play)."""
    out = {}
    for name in ENVS:
        cls = registry.get(name)
        env = BatchedEnv(cls, num_envs=1)
        out[name] = cls, env.config, reached_states(cls, 0, steps=40, num_envs=4)[:6]
    return out


def refused(cls, config, records, *words):
    """validate_states refuses ``records`` with one line holding every one of ``words``."""
    with pytest.raises(BadState) as info:
        validate_states(cls, config, records, "runs/x/records.npy")
    message = str(info.value)
    assert "\n" not in message and len(message) <= 400, message
    for word in ("runs/x/records.npy", *words):
        assert word in message, (word, message)
    return info.value


@pytest.mark.parametrize("name", ENVS)
def test_every_integer_field_of_a_builtin_env_has_bounds(name):
    assert unbounded_fields(registry.get(name)) == []


def _planted_values(kind: str, dtype_base: np.dtype, low: float, high: float) -> list:
    """The bad values planted into a field: -1, just outside each bound, huge, 1e8; NaN and infinity for floats."""
    values = [-1, low - 1, high + 1, 2**31 - 1, 1e8]
    if kind == "f":
        values += [np.nan, np.inf, -np.inf]
    else:
        info = np.iinfo(dtype_base)
        values = [min(max(v, info.min), info.max) for v in values if np.isfinite(v)]
    return sorted({v for v in values if not (low <= v <= high)}, key=str)


@pytest.mark.parametrize("name", ENVS)
def test_each_planted_value_is_refused_naming_the_record_and_field(name, reached):
    cls, config, states = reached[name]
    validate_states(cls, config, states, "ok")
    cases = 0
    for field, (low, high) in field_bounds(cls, config).items():
        base = cls.record_dtype.fields[field][0].base
        for k in sorted({0, low.size - 1}):
            lo, hi = float(low.reshape(-1)[k]), float(high.reshape(-1)[k])
            for value in _planted_values(base.kind, base, lo, hi):
                bad = states.copy()
                flat = bad[field][3].reshape(-1).copy()
                flat[k] = value
                bad[field][3] = flat.reshape(bad[field][3].shape)
                refused(cls, config, bad, "record 3", f"field {field}", f"{name} state")
                cases += 1
    assert cases >= 10


@pytest.mark.parametrize("name", ENVS)
def test_kit_fields_padding_and_floats_are_checked(name, reached):
    cls, config, states = reached[name]
    plants = [
        ("rng", 0, "rng is 0"),
        ("tick", -1, "tick is -1"),
        ("phase", -1, "phase is -1"),
        ("phase", len(cls.phases), f"valid: 0..{len(cls.phases) - 1}"),
        ("ep_return", np.nan, "ep_return"),
        ("metrics", np.inf, "metrics[0] is inf"),
    ]
    plants += [(pad, 7, "padding bytes are always 0") for pad in cls.record_dtype.names if pad.startswith("_pad")]
    floats = [f for f in cls.state if cls.record_dtype.fields[f][0].base.kind == "f"]
    plants += [(f, np.nan, f"field {f}") for f in floats]
    for field, value, words in plants:
        bad = states.copy()
        target = bad[field][2:3]
        if target.ndim > 1:
            target = target.reshape(1, -1)
            target[0, 0] = value
            bad[field][2] = target.reshape(bad[field][2].shape)
        else:
            bad[field][2] = value
        refused(cls, config, bad, "record 2", words)


def test_in_range_values_that_break_an_invariant_are_refused(reached):
    cls, config, states = reached["duel"]
    bad = states.copy()
    bad["row"][1] = [3, 3]
    bad["col"][1] = [4, 4]
    refused(cls, config, bad, "record 1", "breaks its invariants", "both fighters on one tile")
    cls, config, states = reached["town"]
    bad = states.copy()
    bad["out_to"][0, 0], bad["inbox"][0, 1] = 1, -1  # an offer to 1, whose inbox does not hold it
    refused(cls, config, bad, "record 0", "breaks its invariants", "offers to 1")


def test_ranges_follow_the_config_the_states_will_run_under():
    cls = registry.get("squared")
    records = BatchedEnv(cls, num_envs=2, size=11).snapshot()
    records["target"][0] = 110
    validate_states(cls, {"size": 11}, records, "ok")
    refused(cls, {"size": 5}, records, "record 0", "field target is 110", "valid: 0..24")


def test_another_layout_is_refused():
    records = BatchedEnv(registry.get("squared"), num_envs=2).snapshot()
    refused(registry.get("duel"), None, records, "another layout", "'duel'")


def test_where_names_the_episode_and_tick():
    cls = registry.get("squared")
    records = BatchedEnv(cls, num_envs=3).snapshot()
    records["row"][2] = 10**8
    with pytest.raises(
        BadState,
        match=r"rec.parquet: episode 7 tick 12: squared state field row is 100000000; "
        r"valid: -1..11",
    ):
        validate_states(cls, None, records, "rec.parquet", lambda i: f"episode 7 tick {10 + i}")


def test_restore_and_the_reset_pool_check_records_when_asked():
    env = BatchedEnv(registry.get("squared"), num_envs=2)
    bad = env.snapshot()
    bad["target"][1] = -5
    with pytest.raises(BadState, match="records given to restore: record 1: squared state field target is -5"):
        env.restore(None, bad, validate=True)
    with pytest.raises(BadState, match="set_reset_pool: record 1"):
        env.set_reset_pool(bad, 0.5, validate=True)
    env.restore(None, env.snapshot(), validate=True)


def test_a_declaration_naming_an_unknown_field_or_no_pair_fails_where_it_is_made():
    with pytest.raises(ValueError, match=r"unknown fields \['nope'\]"):
        type("BadBounds", (toys.Walk,), {"name": "bad_bounds", "bounds": {"nope": (0, 1)}})
    with pytest.raises(ValueError, match=r"not pairs \['pos'\]"):
        type("BadPair", (toys.Walk,), {"name": "bad_pair", "bounds": {"pos": 3}})
    walk = type("Bounded", (toys.Walk,), {"name": "bounded", "bounds": {"pos": (0, toys.LENGTH)}})
    assert issubclass(walk, Env) and unbounded_fields(walk) == ["goal"]


@pytest.mark.parametrize("name", ENVS)
def test_states_reached_in_play_are_never_refused(name):
    """Random play and every scripted policy, final states included (no auto-reset), under the default config
    and a deeper one: every state passes, invariants checked every 25 steps and at every end."""
    cls = registry.get(name)
    configs = (
        [{}, {"start_wave": 26, "start_spread": 4}]
        if name == "gauntlet"
        else [{}, {"background": 5}]
        if name == "town"
        else [{}, {"opponent": "learner"}]
        if name == "duel"
        else [{}]
    )
    for config in configs:
        for policy in ("random", *cls.scripted):
            env = BatchedEnv(cls, num_envs=8, seed=1, autoreset=False, **config)
            rng = np.random.default_rng(1)
            for t in range(400):
                validate_states(cls, env.config, env.records, f"{name} {policy}", invariants=t % 25 == 0)
                acts = (
                    env.scripted_actions(policy)
                    if policy != "random"
                    else allowed_actions(env.mask, env.heads.sizes, rng.random((env.rows, len(env.heads.sizes))))
                )
                env.step(acts)
                if env.done.any():
                    ended = np.flatnonzero(env.done)
                    validate_states(cls, env.config, env.records[ended], f"{name} {policy} end")
                    env.reset_envs(ended)


@pytest.mark.parametrize("name", ENVS)
def test_fuzzed_in_bound_states_run_without_a_crash(name):
    """Random values within the declared bounds (invariants not required) never take a kernel outside its arrays.

    With SPARRING_FUZZ_BOUNDSCHECK=1 the kernels are compiled with Numba's bounds checks (a separate cache,
    minutes of compiling): any index outside an array is then an IndexError, not a silent read.
    """
    env = dict(os.environ)
    if os.environ.get("SPARRING_FUZZ_BOUNDSCHECK") == "1":
        env.update(NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=os.path.join(ROOT, ".cache", "numba-boundscheck"))
    done = subprocess.run(
        [sys.executable, "-m", "tests.kit.trust_fuzz", name, "160", "2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "160 states with random in-bounds values" in done.stdout
