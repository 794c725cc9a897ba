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


def test_subroutines_compile_through_the_cuda_pipeline():
    # An @intrinsic compiling a device function as a subroutine (NVIDIA's test_compiler does
    # this), whose lowering in turn raises through fndesc.call_conv.
    from numba.cuda.core.callconv import CUDACallConv

    check = _checker(through_fndesc=True)
    seen = []

    @cuda.jit(device=True)
    def inner(x):
        return check(x) + 1

    @intrinsic(target="cuda")
    def call_inner(typingctx, x):
        sig = types.int32(types.int32)

        def codegen(context, builder, sig_, args):
            cres = context.compile_subroutine(builder, inner, sig, caching=False)
            seen.append(cres.fndesc)
            return context.call_internal(builder, cres.fndesc, sig, args)

        return sig, codegen

    def kernel(out, x):
        out[0] = call_inner(x)

    ptx, _ = cuda.compile_ptx(kernel, (types.int32[::1], types.int32), cc=CC)
    assert ".entry" in ptx and "add.s32" in ptx
    (fndesc,) = seen
    assert isinstance(fndesc.call_conv, CUDACallConv)
