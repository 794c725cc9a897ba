"""Lowering implementations handed out by the CUDA target context."""

import operator

import pytest
from numba.core import types, typing


class FakeContext:
    def __init__(self):
        self.linked = []

    def add_linking_libs(self, libs):
        self.linked.extend(libs)


def test_loc_is_passed_only_to_implementations_that_take_it():
    from numba_cuda.compiler.implementations import BoundImplementation

    seen = {}

    def with_loc(context, builder, sig, args, loc=None):
        seen["with"] = loc
        return "w"

    def without_loc(context, builder, sig, args):
        seen["without"] = True
        return "wo"

    ctx = FakeContext()
    sig = typing.signature(types.int64, types.int64)
    assert BoundImplementation(with_loc, ctx, sig)("b", ("x",), loc="L") == "w"
    assert seen["with"] == "L"
    assert BoundImplementation(without_loc, ctx, sig)("b", ("x",), loc="L") == "wo"
    assert seen["without"]


def test_libs_reach_the_context_and_attributes_are_forwarded():
    from numba_cuda.compiler.implementations import BoundImplementation

    def imp(context, builder, sig, args):
        return None

    imp.libs = ("libfoo",)
    imp.marker = 42
    ctx = FakeContext()
    bound = BoundImplementation(imp, ctx, typing.signature(types.none))
    bound("b", ())
    assert ctx.linked == ["libfoo"]
    assert bound.marker == 42
    assert bound.libs == ("libfoo",)
    with pytest.raises(AttributeError):
        bound.missing_attribute


def test_takes_loc_is_remembered_and_copes_with_unhashable_callables():
    from numba_cuda.compiler import implementations

    def imp(context, builder, sig, args, loc=None):
        pass

    assert implementations.takes_loc(imp) is True
    assert implementations._TAKES_LOC[imp] is True

    class Unhashable:
        __hash__ = None

        def __call__(self, context, builder, sig, args):
            pass

    assert implementations.takes_loc(Unhashable()) is False


def test_context_hands_out_bound_implementations_and_keeps_numbas_misses(cuda):
    from numba_cuda.compiler.implementations import BoundImplementation
    from numba_cuda.compiler.target import cuda_target

    ctx = cuda_target.target_context
    ctx.refresh()
    fnty = ctx.typing_context.resolve_value_type(operator.add)
    sig = ctx.typing_context.resolve_function_type(fnty, (types.int64, types.int64), {})
    impl = ctx.get_function(fnty, sig)
    assert isinstance(impl, BoundImplementation)
    # a key nobody registered: Numba's own path (refresh, retry) gives its own error
    with pytest.raises(NotImplementedError, match="No definition for lowering"):
        ctx.get_function("not-a-registered-function", typing.signature(types.int64, types.int64))
