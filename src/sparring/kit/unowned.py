"""Borrowed array views without reference counting, a stack copy of a record, and atomics, for the kit's hot loops.

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

from llvmlite import ir
from numba import njit, types
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


def _check_int64(name: str, array) -> None:
    """Refuse (at typing) an array that the atomic intrinsic ``name`` cannot work on."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64 and array.layout == "C"):
        raise TypingError(f"{name}: needs a C-contiguous int64 array, got {array}")


def _element_pointer(context, builder, array, signature, args):
    """LLVM pointer to ``args[0][args[1]]`` (``array`` its Numba type), the element an atomic intrinsic works on."""
    ary = make_array(array)(context, builder, value=args[0])
    k = context.cast(builder, args[1], signature.args[1], types.intp)
    return cgutils.get_item_pointer(context, builder, array, ary, [k], wraparound=False)


@intrinsic
def fetch_add(typingctx, array, index, value):
    """``fetch_add(array, index, value)``: atomically add ``value`` to ``array[index]`` (an int64 array) and return
    the old value (in compiled code only): how the threads of a threaded step take pieces without the GIL."""
    _check_int64("fetch_add", array)

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, array, signature, args)
        return builder.atomic_rmw("add", ptr, context.cast(builder, args[2], signature.args[2], types.int64), "seq_cst")

    return types.int64(array, index, value), codegen


@intrinsic
def compare_and_swap(typingctx, array, index, expected, value):
    """``compare_and_swap(array, index, expected, value)``: atomically set ``array[index]`` (an int64 array) to
    ``value`` if it holds ``expected``; whether it did (in compiled code only). How the threads of a threaded step
    claim a piece of one call and never a piece of the next."""
    _check_int64("compare_and_swap", array)

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, array, signature, args)
        old = context.cast(builder, args[2], signature.args[2], types.int64)
        new = context.cast(builder, args[3], signature.args[3], types.int64)
        return builder.extract_value(builder.cmpxchg(ptr, old, new, "seq_cst", "seq_cst"), 1)

    return types.boolean(array, index, expected, value), codegen


@intrinsic
def load_acquire(typingctx, array, index):
    """``load_acquire(array, index)``: an atomic read of ``array[index]`` (an int64 array) that the compiler may
    neither hoist out of a loop nor reorder with later reads (in compiled code only)."""
    _check_int64("load_acquire", array)

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, array, signature, args)
        return builder.load_atomic(ptr, "acquire", 8)

    return types.int64(array, index), codegen


@njit(cache=True, nogil=True)
def spin_until(counts, index, target, spins):
    """Whether ``counts[index]`` (an int64 array other threads add to) reaches ``target`` within ``spins`` reads;
    the GIL is released meanwhile. A threaded step waits for its workers' last pieces this way: they take
    microseconds, and a sleep would take the OS timer's slack (about 50 us) instead. Plain reads, not atomic
    adds, so the waiting thread does not take the counter's cache line from the workers."""
    for _ in range(spins):
        if load_acquire(counts, index) >= target:
            return True
    return False


@intrinsic
def local_copy(typingctx, record):
    """``local_copy(record)``: a copy of ``record`` in the calling compiled function's own stack frame (in compiled
    code only).

    The kit's step reads the config through one: nothing else can point at the copy, so LLVM keeps the fields
    that kernels read in registers across the loop over envs, where through the caller's array every store to a
    record or a buffer might have changed them (squared at 1024 envs: about 5% of the step). Writes to the copy
    stay in it until :func:`keep_changes` copies them back.
    """
    if not isinstance(record, types.Record):
        raise TypingError(f"local_copy: needs a record, got {record}")

    def codegen(context, builder, signature, args):
        with builder.goto_entry_block():  # one slot per call site, whatever loop the call sits in
            slot = builder.alloca(context.get_data_type(record))
            slot.align = 16
        cgutils.raw_memcpy(builder, slot, args[0], cgutils.intp_t(record.size), 1)
        return slot

    return record(record), codegen


@intrinsic
def keep_changes(typingctx, record, copy):
    """``keep_changes(record, copy)``: copy the bytes of ``copy`` (a :func:`local_copy` of ``record``) back into
    ``record`` if they differ (in compiled code only). A kernel should never write the config, but one that does
    then still changes it for the next step, where ``sparring check``'s hidden-state check sees it; a config
    nobody wrote is never written, so threads stepping at once do not pass its cache line between them."""
    if not (isinstance(record, types.Record) and record == copy):
        raise TypingError(f"keep_changes: needs a record and its copy, got {record} and {copy}")

    def codegen(context, builder, signature, args):
        # word by word at constant offsets, not a call to memcmp: LLVM still sees every use of the copy, so it
        # keeps the copy's fields in registers (a memcmp call cost squared 4% of its step)
        byte, word = ir.IntType(8), ir.IntType(64)
        target, source = (builder.bitcast(arg, byte.as_pointer()) for arg in args)
        differs = cgutils.false_bit
        for offset, width in [(k, word) for k in range(0, record.size - 7, 8)] + [
            (k, byte) for k in range(record.size - record.size % 8, record.size)
        ]:
            at = [ir.Constant(ir.IntType(32), offset)]
            pair = [
                builder.bitcast(builder.gep(ptr, at, inbounds=True), width.as_pointer()) for ptr in (target, source)
            ]
            old, new = (builder.load(ptr, align=1) for ptr in pair)
            differs = builder.or_(differs, builder.icmp_unsigned("!=", old, new))
        with builder.if_then(differs, likely=False):
            cgutils.raw_memcpy(builder, args[0], args[1], cgutils.intp_t(record.size), 1)
        return context.get_dummy_value()

    return types.none(record, copy), codegen
