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
def typingctx(cuda):  # (the CUDA target registered with Numba, as any public entry point does)
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


# ---- CUDA-only extensions and a refresh outside a compile ----------------------------------
# Numba installs a template registered for one target only when the context's target is that
# target -- outside a compile, the thread's current target (the CPU) -- and the registry's loader
# never offers a skipped template again: every later kernel using it failed to type.

def _attribute_kernel():
    from numba.extending import overload_attribute

    @overload_attribute(types.Array, "cuda_only_attribute_t", target="cuda")
    def _attr(a):
        return lambda a: a.size * 3

    def kernel(out, a):
        out[0] = a.cuda_only_attribute_t

    return kernel


def _method_kernel():
    from numba.extending import overload_method

    @overload_method(types.Array, "cuda_only_method_t", target="cuda")
    def _method(a, k):
        return lambda a, k: a.size * k

    def kernel(out, a):
        out[0] = a.cuda_only_method_t(3)

    return kernel


def cuda_only_function_t(a):
    raise NotImplementedError


def _function_kernel():
    from numba.extending import overload

    @overload(cuda_only_function_t, target="cuda")
    def _function(a):
        return lambda a: a.size * 3

    def kernel(out, a):
        out[0] = cuda_only_function_t(a)

    return kernel


@pytest.mark.parametrize("make", [_attribute_kernel, _method_kernel, _function_kernel],
                         ids=["attribute", "method", "function"])
def test_cuda_only_extension_survives_a_refresh_outside_a_compile(typingctx, cuda, make):
    kernel = make()
    assert current_target() == "cpu"
    typingctx.refresh()  # outside a compile, on a thread whose target is the CPU
    assert current_target() == "cpu"
    if make is _attribute_kernel:  # and answered outside a compile as in one
        assert typingctx.resolve_getattr(types.float32[::1], "cuda_only_attribute_t") == types.intp
    ptx, _ = cuda.compile_ptx(kernel, (types.int64[::1], types.float32[::1]), cc=(8, 0))
    assert ".visible .entry" in ptx
