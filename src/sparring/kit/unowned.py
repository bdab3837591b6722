"""Borrowed array views without reference counting, for the kit's hot loops.

Every slice Numba takes of an argument array bumps the array's reference
count with an atomic add and drops it again; in a loop over thousands of envs
those atomics cost more than the env's own rules. A view built from the raw
data pointer has no owner, so its slices carry no count. Only valid while the
caller holds the original array, which the kit's batched calls always do.
"""

from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _as_pointer(typingctx, address):
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


@njit(cache=True, inline="always")
def unowned(array):
    """The same memory as ``array`` (C-contiguous), as a view with no owner."""
    return carray(_as_pointer(array.ctypes.data), array.shape, array.dtype)
