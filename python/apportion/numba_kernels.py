"""User kernels compiled with numba (docs/python.md, "User kernels").

A numba ``@cfunc(cpu_signature)`` is a C function with the library's CPU kernel signature,
``apo_status cpu(const apo_kernel_call *call, void *user)`` (docs/api.md, "User kernels"):
the runtime calls it for each tile from its worker threads without the GIL, at the speed of
compiled code. Inside it, the helpers below read the call::

    from numba import cfunc
    from apportion.numba_kernels import call_info, cpu_signature, input_row, output_row, param

    @cfunc(cpu_signature)
    def scale(call, user):
        rows, cols, row, begin, end, seed = call_info(call)
        x = input_row(call, 0)        # the row's input samples, all cols of them
        y = output_row(call, 0)       # the row's output
        k = param(call, 0)            # parameters in the order they were registered
        for t in range(begin, end):
            y[t] = k * x[t]
        return 0                      # APO_OK; any other status fails the call

    rt.register_kernel("scale", scale, params={"k": 2.0})

The function must write only ``[begin, end)`` of its row and read inputs from
``begin - halo`` on; it gets the determinism guarantees of every user kernel when its
outputs depend only on what it may read (docs/api.md, "Determinism").
"""

import numpy as np
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# struct apo_kernel_call of include/apportion.h, read as the twelve 8-byte words it is on
# the 64-bit platforms the library supports (numba's records are not used: their field
# access does not lower inside inlined helpers in numba 0.56, Debian 12's).
_ROWS, _COLS, _ROW, _BEGIN, _END, _INPUTS, _OUTPUTS, _N_INPUTS, _N_OUTPUTS, _PARAMS, _N_PARAMS, _SEED = range(12)
_WORDS = 12
# apo_status cpu(const apo_kernel_call *call, void *user)
cpu_signature = types.int32(types.CPointer(types.uint64), types.voidptr)

# A user rule (Runtime.register_rule, docs/scores.md "User rules"): apo_rule_fn,
# int rule(const double *inputs, const double *outputs, int prev, void *user); inputs[i] and
# outputs[k] are the kernel's at the bar, and it returns the position -1, 0 or 1.
rule_signature = types.int32(types.CPointer(types.float64), types.CPointer(types.float64), types.int32, types.voidptr)


@intrinsic
def _address_as_pointer(typingctx, address):
    """An integer address as a void pointer, for carray()."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


@njit(inline="always")
def _words(call):
    return carray(call, (_WORDS,))


@njit(inline="always")
def call_info(call):
    """(rows, cols, row, begin, end, seed) of the call, as int64 (seed as uint64)."""
    w = _words(call)
    return (np.int64(w[_ROWS]), np.int64(w[_COLS]), np.int64(w[_ROW]), np.int64(w[_BEGIN]),
            np.int64(w[_END]), w[_SEED])


@njit(inline="always")
def _row(call, table, i):
    w = _words(call)
    pointers = carray(_address_as_pointer(w[table]), (i + 1,), dtype=np.uint64)
    base = pointers[i] + w[_ROW] * w[_COLS] * np.uint64(8)
    return carray(_address_as_pointer(base), (np.int64(w[_COLS]),), dtype=np.float64)


@njit(inline="always")
def input_row(call, i):
    """Input ``i``'s samples of the call's row: ``cols`` float64 (read only from
    ``begin - halo`` to ``end - 1``)."""
    return _row(call, _INPUTS, i)


@njit(inline="always")
def output_row(call, i):
    """Output ``i``'s samples of the call's row (write only ``begin`` to ``end - 1``)."""
    return _row(call, _OUTPUTS, i)


@njit(inline="always")
def param(call, j):
    """Parameter ``j``'s value (the kernel's order, defaults filled in)."""
    w = _words(call)
    return carray(_address_as_pointer(w[_PARAMS]), (np.int64(w[_N_PARAMS]),), dtype=np.float64)[j]
