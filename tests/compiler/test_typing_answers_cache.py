"""The CUDA typing context remembers template answers (call signatures, attribute types) and
forgets them whenever a refresh installs something new."""

import types as pytypes

import pytest
from numba import float32, float64, int64, void
from numba.core import types
from numba.core.errors import TypingError
from numba.extending import overload

CC = (8, 0)


def _kernel_calling(fn):
    def kernel(out, x):
        out[0] = fn(x)

    return kernel


def test_same_question_is_answered_from_the_cache(cuda):
    import operator

    from numba_cuda.compiler.target import cuda_target

    def kernel(out, a, b):
        out[0] = a + b

    cuda.compile_ptx(kernel, void(int64[::1], int64, int64), cc=CC)  # contexts set up
    ctx = cuda_target.typing_context
    fnty = ctx.resolve_value_type(operator.add)
    assert type(fnty) is types.Function
    first = ctx.resolve_function_type(fnty, (types.int64, types.int64), {})
    assert first is not None and first.return_type == types.int64
    assert (fnty, (types.int64, types.int64), ()) in ctx._call_signatures
    calls = []
    original = types.Function.get_call_type

    def spy(self, context, args, kws):
        calls.append(self)
        return original(self, context, args, kws)

    types.Function.get_call_type = spy
    try:
        again = ctx.resolve_function_type(fnty, (types.int64, types.int64), {})
    finally:
        types.Function.get_call_type = original
    assert again is first
    assert calls == []


def test_casts_builtins_and_intrinsics_are_cached_too(cuda):
    from numba_cuda.compiler.target import cuda_target

    def kernel(out, a, n):
        for i in range(n):
            out[i] = float(len(a)) + types_cast(a[i])

    cuda.compile_ptx(kernel, void(float64[::1], int64[::1], int64), cc=CC)
    cuda.compile_ptx(kernel, void(float64[::1], int64[::1], int64), cc=CC)  # after set-up
    kinds = {type(key[0]).__name__ for key in cuda_target.typing_context._call_signatures}
    assert {"Function", "NumberClass", "str", "builtin_function_or_method"} <= kinds
    assert not kinds & {"Dispatcher", "BoundFunction"}


types_cast = float64


def test_overload_registered_later_is_seen(cuda):
    def later(x):
        pass

    @overload(later, target="cuda")
    def later_int(x):
        if isinstance(x, types.Integer):
            return lambda x: x + 1

    cuda.compile_ptx(_kernel_calling(later), void(int64[::1], int64), cc=CC)
    with pytest.raises(TypingError):
        cuda.compile_ptx(_kernel_calling(later), void(float64[::1], float64), cc=CC)

    # A new overload of ``later`` for floats must be found although ``later`` was already
    # answered (for int64) and failed (for float64).
    @overload(later, target="cuda")
    def later_float(x):
        if isinstance(x, types.Float):
            return lambda x: x * 2.0

    ptx, _ = cuda.compile_ptx(_kernel_calling(later), void(float64[::1], float64), cc=CC)
    assert "mul.f64" in ptx or "add.f64" in ptx


def test_module_constants_are_typed_from_their_current_value(cuda):
    settings = pytypes.ModuleType("kernel_settings")
    settings.SCALE = 3

    def kernel(out):
        out[0] = settings.SCALE

    ptx_int, _ = cuda.compile_ptx(kernel, void(float32[::1]), cc=CC)
    settings.SCALE = 2.5

    def kernel2(out):
        out[0] = settings.SCALE

    ptx_float, _ = cuda.compile_ptx(kernel2, void(float32[::1]), cc=CC)
    # the float32 bit patterns stored: 3.0 = 0x40400000, 2.5 = 0x40200000
    assert str(0x40400000) in ptx_int and str(0x40200000) not in ptx_int
    assert str(0x40200000) in ptx_float


def test_attribute_answers_are_cached_for_types_only(cuda):
    from numba_cuda.compiler.target import cuda_target

    def kernel(out):
        out[0] = out.size

    cuda.compile_ptx(kernel, void(int64[::1]), cc=CC)
    cuda.compile_ptx(_kernel_calling(abs), void(int64[::1], int64), cc=CC)  # after set-up

    def kernel2(out):
        out[0] = out.size + cuda.threadIdx.x

    cuda.compile_ptx(kernel2, void(int64[::1]), cc=CC)
    ctx = cuda_target.typing_context
    assert any(attr == "size" for (_typ, attr) in ctx._attribute_types)
    assert not any(isinstance(typ, types.Module) for (typ, _attr) in ctx._attribute_types)


def test_overload_choices_are_remembered_and_errors_are_not(cuda):
    from numba.core.typing import signature

    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.typing_context
    cases = [signature(types.float64, types.float64, types.float64),
             signature(types.int64, types.int64, types.int64)]
    args = (types.int32, types.int32)
    first = ctx.resolve_overload("k", cases, args, {})
    assert first == cases[1]
    rated = []
    original = type(ctx)._rate_arguments

    def spy(self, *a, **k):
        rated.append(a)
        return original(self, *a, **k)

    type(ctx)._rate_arguments = spy
    try:
        assert ctx.resolve_overload("k", cases, args, {}) is first
        assert rated == []
        tied = [signature(types.int32, types.int32), signature(types.int16, types.int16)]
        for _ in range(2):
            with pytest.raises(TypeError, match="Ambiguous overloading"):
                ctx.resolve_overload("k", tied, (types.int64,), {}, allow_ambiguous=False)
        assert rated, "a failed choice must be rated again, not remembered"
    finally:
        type(ctx)._rate_arguments = original


def test_value_types_of_builtins_and_stubs_are_remembered_and_equal_numbas(cuda):
    """``resolve_value_type`` of builtin functions (``len``, ``operator.add`` ...) and
    kernel-language stubs is remembered per object (Numba's typeof() fails on each with a
    ValueError before the global lookup answers) and is what Numba's lookup gives."""
    import math
    import operator

    from numba.core.typing.context import BaseContext

    from numba_cuda.compiler import typing_context
    from numba_cuda.compiler.target import cuda_target

    def kernel(out, a, b):
        out[0] = a + b

    cuda.compile_ptx(kernel, void(int64[::1], int64, int64), cc=CC)  # contexts set up
    ctx = cuda_target.typing_context
    values = [len, operator.add, operator.getitem, abs, min, cuda.grid, cuda.syncthreads,
              cuda.atomic.add, cuda.threadIdx]
    # typing a stub of a deferred family (syncthreads, atomic.add) installs the family, and
    # Numba's own lookup may import a trigger module (cffi, installed at the next lookup): each
    # install is a refresh that forgets what was remembered.  Let that happen before checking.
    for value in values:
        ctx.resolve_value_type(value)
        BaseContext.resolve_value_type(ctx, value)
    ctx.resolve_value_type(len)
    for value in values:
        assert typing_context._value_type_is_fixed(value), value
        assert ctx.resolve_value_type(value) == BaseContext.resolve_value_type(ctx, value)
        assert value in ctx._value_types
    # not remembered: values whose type can change or is not fixed by the registries
    for value in (math, 3, cuda.jit(device=True)(lambda x: x)):
        assert not typing_context._value_type_is_fixed(value)
    # answered from the table: Numba's typeof() is not asked again
    import numba.core.typing.context as numba_typing_context

    original = numba_typing_context.typeof
    asked = []

    def spy(val, purpose):
        asked.append(val)
        return original(val, purpose)

    numba_typing_context.typeof = spy
    try:
        again = [ctx.resolve_value_type(value) for value in values]
    finally:
        numba_typing_context.typeof = original
    assert asked == []
    assert again == [ctx._value_types[value] for value in values]


def test_value_types_are_forgotten_when_a_refresh_installs_something(cuda):
    from numba_cuda.compiler.target import cuda_target

    def kernel(out, a):
        out[0] = len(a)

    cuda.compile_ptx(kernel, void(int64[::1], int64[::1]), cc=CC)
    ctx = cuda_target.typing_context
    ctx.resolve_value_type(len)
    assert len in ctx._value_types

    def new_function(x):
        return x

    @overload(new_function, target="cuda")
    def _ol(x):
        return lambda x: x

    ctx.refresh()
    assert len not in ctx._value_types
