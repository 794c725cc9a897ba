"""``fndesc.call_conv``: NVIDIA's numba-cuda keeps a calling convention on each function's
descriptor, and lowering code written for it (its copies of Numba's ``cpython`` lowering,
extensions modelled on them) raises through ``context.fndesc.call_conv.return_user_exc``."""

from numba import cuda, types
from numba.core.extending import intrinsic

CC = (9, 0)


def _checker(through_fndesc):
    @intrinsic(target="cuda")
    def check_positive(typingctx, x):
        def codegen(context, builder, sig, args):
            conv = context.fndesc.call_conv if through_fndesc else context.call_conv
            (value,) = args
            negative = builder.icmp_signed("<", value, value.type(0))
            with builder.if_then(negative, likely=False):
                conv.return_user_exc(builder, ValueError, ("negative value",))
            return value

        return x(x), codegen

    return check_positive


def _raised(through_fndesc):
    """What the kernel's code can raise (``library.exceptions`` of every library it links)."""
    check = _checker(through_fndesc)

    def kernel(out, x):
        out[0] = check(x)

    compiled = cuda.jit(debug=True, opt=False)(kernel).compile((types.int32[::1], types.int32))
    assert ".entry" in compiled.get_ptx(CC)
    return sorted((cls.__name__, args) for lib in compiled.library.all_libraries()
                  for cls, args, *_ in lib.exceptions.values())


def test_lowering_raises_through_fndesc_call_conv():
    assert _raised(through_fndesc=True) == _raised(through_fndesc=False)
    assert ("ValueError", ("negative value",)) in _raised(through_fndesc=True)


def test_compile_results_carry_the_cuda_call_conv():
    from numba.cuda.core.callconv import CUDACallConv  # the path NVIDIA's tests import

    def double(x):
        return 2 * x

    cres = cuda.jit(device=True)(double).compile_device((types.int32,))
    assert isinstance(cres.fndesc.call_conv, CUDACallConv)
    assert cres.fndesc.call_conv is cres.target_context.call_conv  # the lowering context's
