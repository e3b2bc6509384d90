"""Software prefetch of the split searches' histogram rows (LLVM's ``llvm.prefetch``).

With many features the per-feature histograms of a ``Workspace`` (features x
bins x classes float64) are far larger than a core's cache, and every batch
of a search opens a row that was evicted since its feature's last batch. The
searches know which feature comes next (the next slot of a pass over all
features; the runner-up of the lower-bound-first rule) and request its lines
while they work on the current one.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .._compiled import njit


@intrinsic
def prefetch3(typingctx, arr, i, j, k):
    """Ask the CPU to load the cache line of ``arr[i, j, k]`` (no bounds check; never faults)."""
    sig = types.void(arr, i, j, k)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        inds = [context.cast(builder, a, t, types.intp) for a, t in zip(args[1:], signature.args[1:])]
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
        if getattr(ptr.type, "is_opaque", False):
            name, arg = "llvm.prefetch.p0", ptr
        else:
            name, arg = "llvm.prefetch.p0i8", builder.bitcast(ptr, ir.IntType(8).as_pointer())
        fnty = ir.FunctionType(ir.VoidType(), [arg.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        # read, highest locality (keep in all levels), data cache
        builder.call(fn, [arg, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


# Histograms of at least this many cells (512 KiB of float64) do not stay in a core's cache between two
# batches of one feature: the searches then request the next feature's lines ahead (``prefetch_row``).
PREFETCH_MIN_CELLS = 1 << 16


@njit(cache=True, inline="always")
def prefetching(node, ws):
    """Whether the node's histograms are too large to stay cached, so that prefetching them pays."""
    hist = ws.hist
    return node.feats.shape[0] * hist.shape[1] * hist.shape[2] >= PREFETCH_MIN_CELLS


@njit(cache=True, inline="always")
def prefetch_row(node, ws, s, whole):
    """Request feature slot ``s``'s histogram lines (its seen bins, or all its bins if ``whole``) from memory.

    Issued for the feature that comes next while the current one is
    assessed and rescanned, so that its lines arrive in the meantime
    instead of stalling the search (``_split._open_row``, ``_split._warm_row``
    and the batch after them) on misses. A prefetch changes no value: only when data arrives.
    """
    hist, brange = ws.hist, ws.brange
    C = hist.shape[2]
    lo = brange[s, 0]
    hi = brange[s, 1]
    if whole or hi < 0:
        lo = 0
        hi = node.nbins[s] - 1
    lo = max(lo, 0)
    hi = min(hi, hist.shape[1] - 1)
    # one request per 64-byte line: every 8th float64 of the row's span, and its last one
    for k in range(lo * C, (hi + 1) * C, 8):
        prefetch3(hist, s, k // C, k % C)  # type: ignore[call-arg]  # numba passes typingctx
    if hi >= lo:
        prefetch3(hist, s, hi, C - 1)  # type: ignore[call-arg]
