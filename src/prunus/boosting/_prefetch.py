"""A software prefetch of one element of a 3-d array, for the split-search kernels.

The searches touch the weighted class histogram of one feature at a time,
and with many features (hundreds of 20 KiB histograms) a feature's
histogram is no longer in cache when its next batch comes. Loads issued
ahead of use wait for the line and hold the core; a prefetch only asks
the memory system for it, so the work on the current feature goes on
while the next feature's lines arrive.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch3(typingctx, arr, i, j, k):
    """Ask for the cache line holding ``arr[i, j, k]`` (read, keep in all levels); no effect on values.

    ``arr`` is a 3-d array; the indices must be in range (not checked: a
    prefetch of any address is harmless, but the line would be useless).
    """
    if not (isinstance(arr, types.Array) and arr.ndim == 3):
        return None
    sig = types.void(arr, i, j, k)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        inds = [context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], signature.args[1:])]
        ptr = cgutils.get_item_pointer2(
            context,
            builder,
            data=ary.data,
            shape=cgutils.unpack_tuple(builder, ary.shape),
            strides=cgutils.unpack_tuple(builder, ary.strides),
            layout=aryty.layout,
            inds=inds,
            wraparound=False,
            boundscheck=False,
        )
        i32 = ir.IntType(32)
        # LLVM's intrinsic is named after its pointer type: opaque pointers (recent LLVM) or i8*.
        if getattr(ptr.type, "is_opaque", False):
            name, arg = "llvm.prefetch.p0", ptr
        else:
            name, arg = "llvm.prefetch.p0i8", builder.bitcast(ptr, ir.IntType(8).as_pointer())
        fnty = ir.FunctionType(ir.VoidType(), [arg.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        # (address, read = 0, locality 3 = keep in every cache level, data cache = 1)
        builder.call(fn, [arg, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
