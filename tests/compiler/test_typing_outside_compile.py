"""The CUDA typing context asked outside a compile (libraries typing ahead of compiling, Numba's
and NVIDIA's ``test_function_resolution``) answers as a compile does: Numba orders a function's
templates by the target of the compile in progress, else by the thread's current target (the
CPU), which would put Numba's generic float templates before the float16 ones."""

import operator

import pytest
from numba.core import types, typing
from numba.core.target_extension import current_target

fp16 = types.float16

BINARY = (operator.add, operator.iadd, operator.sub, operator.isub, operator.mul, operator.imul)


@pytest.fixture
def typingctx():
    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.typing_context
    ctx.refresh()
    return ctx


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.__name__)
def test_float16_binary_operators_outside_a_compile(typingctx, op):
    assert current_target() == "cpu"
    fnty = typingctx.resolve_value_type(op)
    assert typingctx.resolve_function_type(fnty, (fp16, fp16), {}) == typing.signature(
        fp16, fp16, fp16)
    assert current_target() == "cpu"  # the thread's target is left as it was


@pytest.mark.parametrize("op", (operator.neg, abs), ids=lambda op: op.__name__)
def test_float16_unary_operators_outside_a_compile(typingctx, op):
    fnty = typingctx.resolve_value_type(op)
    assert typingctx.resolve_function_type(fnty, (fp16,), {}) == typing.signature(fp16, fp16)


def test_answer_outside_a_compile_is_the_compiles(typingctx, cuda):
    # the same signature a kernel's own typing picks, and the kernel computes in half
    fnty = typingctx.resolve_value_type(operator.add)
    outside = typingctx.resolve_function_type(fnty, (fp16, fp16), {})
    seen = []
    from numba_cuda.compiler.typing_context import CUDATypingContext

    original = CUDATypingContext.resolve_function_type

    def recording(self, func, args, kws):
        sig = original(self, func, args, kws)
        if func == fnty and tuple(args) == (fp16, fp16):
            seen.append(sig)
        return sig

    def kernel(a, b):
        a[0] = b[0] + b[1]

    mp = pytest.MonkeyPatch()
    mp.setattr(CUDATypingContext, "resolve_function_type", recording)
    try:
        ptx, _ = cuda.compile_ptx(kernel, (fp16[::1], fp16[::1]), cc=(8, 0))
    finally:
        mp.undo()
    assert seen and all(sig == outside for sig in seen)
    assert "add.f16" in ptx
