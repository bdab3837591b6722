"""Declaration checks: mistakes in an env class are reported when the class is defined."""

import numpy as np
import pytest
from numba.core import types

from sparring.kit import Env, Heads, Obs, helper, kernel
from sparring.kit.spec import build_config_dtype
from tests.kit import toys


def test_record_holds_kit_fields_env_fields_return_and_metrics():
    names = toys.Walk.record_dtype.names
    assert names[:3] == ("rng", "tick", "phase")
    assert {"pos", "goal", "ep_return", "metrics"} <= set(names)
    assert toys.Walk.record_dtype["rng"] == np.uint64
    assert toys.Walk.record_dtype["ep_return"].shape == (1,)


def test_heads_offsets_and_total():
    heads = Heads(move=5, attack=3, pray=4)
    assert heads.total == 12
    assert heads.offsets.tolist() == [0, 5, 8]
    with pytest.raises(ValueError, match="positive int"):
        Heads(move=0)
    with pytest.raises(ValueError, match="at least one head"):
        Heads()


def test_obs_rejects_empty():
    with pytest.raises(ValueError, match="positive"):
        Obs(0)


def _declare(**overrides):
    body = dict(
        name="bad_env",
        obs=Obs(2),
        actions=Heads(move=2),
        state={"x": "i4"},
        reset=toys.walk_reset,
        step=toys.walk_step,
        observe=toys.walk_observe,
    )
    body.update(overrides)
    return type("Bad", (Env,), body)


@kernel
def _plus_one(x):
    return x + 1


@helper
def _twice_plus_one(x):
    return 2 * _plus_one(x) - 1


def test_helpers_run_from_python_and_carry_no_cfunc_wrapper():
    assert _twice_plus_one(3) == 7  # through the CPython wrapper, with the kernel inlined
    (compiled,) = _twice_plus_one.overloads.values()
    address = compiled.library.get_pointer_to_function
    assert address(compiled.fndesc.llvm_cpython_wrapper_name) != 0
    assert address(compiled.fndesc.llvm_cfunc_wrapper_name) == 0  # not built: saves compile time


@helper
def _scaled(x, k):
    return x * k


@helper
def _scaled_by_constants(x):
    return _scaled(x, 2) + _scaled(x, 3)


def test_a_helper_called_with_constants_compiles_one_version_for_their_type():
    # compiled code passes a constant as its literal value; a helper takes it as its type, so one version
    _scaled.get_call_template((types.literal(2), types.literal(3)), {})
    _scaled.get_call_template((types.int64, types.literal(7)), {})
    assert _scaled.signatures == [(types.int64, types.int64)]
    assert _scaled_by_constants(4) == 20


def test_kernels_must_be_compiled():
    with pytest.raises(TypeError, match="`step` must be a kernel"):
        _declare(step=lambda s, cfg, act, rew, term, trunc: None)


def test_reserved_state_fields_are_refused():
    with pytest.raises(ValueError, match=r"reserved by the kit"):
        _declare(state={"tick": "i4"})


def test_actions_must_be_heads():
    with pytest.raises(TypeError, match="Heads"):
        _declare(actions=(5,))


def test_best_scripted_must_exist():
    @kernel
    def pol(s, cfg, agent, act):
        act[0] = 0

    with pytest.raises(ValueError, match="best_scripted 'nope'"):
        _declare(scripted={"pol": pol}, best_scripted="nope")


def test_config_types_are_limited_to_numbers_bools_and_choices():
    import dataclasses

    @dataclasses.dataclass
    class Cfg:
        label: list = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="config field 'label'"):
        build_config_dtype(Cfg)


def test_records_have_no_hidden_padding():
    for cls in (toys.Walk, toys.Pair):
        dtype = cls.record_dtype
        assert dtype.itemsize == sum(dtype.fields[n][0].itemsize for n in dtype.names)
        assert dtype.itemsize % 8 == 0
    assert any(n.startswith("_pad") for n in toys.Pair.record_dtype.names)  # u1 arrays before an i4


def test_private_state_names_are_refused():
    with pytest.raises(ValueError, match="start with '_'"):
        _declare(state={"_x": "i4"})
