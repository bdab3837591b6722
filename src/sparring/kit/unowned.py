"""Borrowed array views without reference counting, for the kit's hot loops.

Every slice Numba takes of an argument array bumps the array's reference
count with an atomic add and drops it again; in a loop over thousands of envs
those atomics cost more than the env's own rules. A view built from the raw
data pointer has no owner, so its slices carry no count. Only valid while the
caller holds the original array, which the kit's batched calls always do.

Both helpers are intrinsics, so the view is built in the caller's own code:
LLVM then sees that the view has no owner and drops the reference-count calls
on its slices altogether (through a compiled call it cannot, and each slice of
each env pays two calls).
"""

from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic
from numba.np.arrayobj import get_itemsize, make_array, populate_array


def _view_type(dtype, shape) -> types.Array:
    if isinstance(dtype, types.DType):
        item = dtype.dtype
    elif isinstance(dtype, types.NumberClass):
        item = dtype.instance_type
    else:
        raise TypingError(f"borrowed: dtype must be a NumPy dtype or scalar type, got {dtype}")
    ndim = len(shape) if isinstance(shape, types.BaseTuple) else 1
    return types.Array(item, ndim, "C")


def _build(context, builder, aryty, address, shapety, shape):
    """The LLVM value of a C-contiguous array of ``aryty`` at integer ``address``, with no owner."""
    ary = make_array(aryty)(context, builder)
    itemsize = cgutils.intp_t(get_itemsize(context, aryty))
    if isinstance(shapety, types.BaseTuple):
        dims = [context.cast(builder, v, t, types.intp) for v, t in zip(cgutils.unpack_tuple(builder, shape), shapety)]
    else:
        dims = [context.cast(builder, shape, shapety, types.intp)]
    strides, step = [], itemsize
    for dim in reversed(dims):
        strides.append(step)
        step = builder.mul(step, dim)
    data = builder.inttoptr(address, context.get_data_type(aryty.dtype).as_pointer())
    populate_array(ary, data=data, shape=dims, strides=strides[::-1], itemsize=itemsize, meminfo=None)
    return ary._getvalue()


@intrinsic
def borrowed(typingctx, address, shape, dtype):
    """``borrowed(address, shape, dtype)``: the array of ``dtype`` and ``shape`` at the raw ``address`` (an int),
    with no owner (in compiled code only).

    The kit's packed step gets its buffers this way from one header of addresses; the
    caller keeps the arrays the addresses came from alive for as long as the view is used.
    """
    if not isinstance(address, types.Integer):
        raise TypingError(f"borrowed: address must be an integer, got {address}")
    aryty = _view_type(dtype, shape)

    def codegen(context, builder, signature, args):
        address_value = context.cast(builder, args[0], signature.args[0], types.intp)
        return _build(context, builder, aryty, address_value, signature.args[1], args[1])

    return aryty(address, shape, dtype), codegen


@intrinsic
def unowned(typingctx, array):
    """``unowned(array)``: the same memory as the C-contiguous ``array``, as a view with no owner (in compiled
    code only)."""
    if not isinstance(array, types.Array) or array.layout != "C":
        raise TypingError(f"unowned: needs a C-contiguous array, got {array}")
    aryty = types.Array(array.dtype, array.ndim, "C")

    def codegen(context, builder, signature, args):
        source = make_array(array)(context, builder, value=args[0])
        address = builder.ptrtoint(source.data, cgutils.intp_t)
        shapety = types.UniTuple(types.intp, array.ndim)
        return _build(context, builder, aryty, address, shapety, source.shape)

    return aryty(array), codegen
