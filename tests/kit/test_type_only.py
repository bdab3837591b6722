"""Typing a function compiles the functions it calls (inlined kernels are inlined, as in a compile) and not
the function itself."""

from numba import njit, types

from sparring.kit.type_only import type_only


@njit
def _called(x):
    return x + 1


@njit(inline="always")
def _inlined(x):
    return _called(x) * 2


@njit
def _typed(x):
    return _inlined(x) - 1


def test_the_called_functions_compile_and_the_typed_one_does_not():
    type_only(_typed, (types.int64,))
    assert list(_called.overloads) == [(types.int64,)]
    assert not _inlined.overloads  # inlined into _typed, as its compile would
    assert not _typed.overloads
    assert _typed(3) == 7  # and it still compiles as usual
