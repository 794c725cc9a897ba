"""Numba's internal jit options (``register_jitable(_nrt=False)`` helpers, ``@overload``
templates) are accepted by ``cuda.jit``; building strings in a kernel (``str(x)``, f-strings,
``repr``, ``format``, string methods and operators) is one ``TypingError`` naming the line."""

import pytest
from numba import cuda, int32
from numba.core.errors import TypingError
from numba.extending import register_jitable

from tests.support.typing_errors import expect_typing_error


@register_jitable(_nrt=False)
def _helper(x):
    return x + 1


def uses_helper(a):
    a[0] = _helper(a[0])


def test_register_jitable_with_nrt_false_compiles():
    ptx, _ = cuda.compile_ptx(uses_helper, (int32[::1],))
    assert "add.s32" in ptx


def test_every_numba_internal_option_is_accepted():
    from numba.core.options import DefaultOptions

    from numba_cuda.dispatch.api import _JIT_OPTIONS
    from numba_cuda.compiler.target import NUMBA_INTERNAL_OPTIONS

    names = {n for n in vars(DefaultOptions) if not n.startswith("__")}
    assert names <= set(NUMBA_INTERNAL_OPTIONS) | set(_JIT_OPTIONS), names - set(NUMBA_INTERNAL_OPTIONS)
    kernel = cuda.jit(**{n: False for n in NUMBA_INTERNAL_OPTIONS})(uses_helper)
    kernel.compile((int32[::1],))


def test_forceinline_is_inline_always():
    kernel = cuda.jit(device=True, forceinline=True)(lambda x: x)
    assert kernel.options.inline is True


def test_unknown_options_are_still_refused():
    with pytest.raises(TypeError, match="unknown @cuda.jit options: _nrtt"):
        cuda.jit(_nrtt=False)(uses_helper)


def with_str(a, x):
    s = str(x)  # MARK-STR
    a[0] = len(s)


def with_fstring(a, x):
    a[1] = 0
    s = f"value {x}"  # MARK-FSTRING
    a[0] = len(s)


def with_repr(a, x):
    a[0] = len(repr(x))  # MARK-REPR


def with_format(a, x):
    a[0] = len(format(x, "d"))  # MARK-FORMAT


def with_method(a, x):
    a[0] = len("{}-{}".format(x, x))  # MARK-METHOD


def with_percent(a, x):
    a[0] = len("%d" % x)  # MARK-PERCENT


@pytest.mark.parametrize("fn, marker, words", [
    (with_str, "MARK-STR", ("str()", "builds a string")),
    (with_fstring, "MARK-FSTRING", ("f-string", "builds a string")),
    (with_repr, "MARK-REPR", ("repr()",)),
    (with_format, "MARK-FORMAT", ("format()",)),
    (with_method, "MARK-METHOD", ("str.format()",)),
    (with_percent, "MARK-PERCENT", ("'%' on a string",)),
])
def test_building_a_string_is_a_typing_error_naming_the_line(fn, marker, words):
    message = expect_typing_error(fn, (int32[::1], int32), marker, *words, "print()")
    assert "NRT" not in message and "_nrt" not in message
    assert len(message) < 1500, message  # one error, not Numba's nested candidate listing


def test_string_literals_still_print_and_compare():
    def k(a):
        s = "abc"
        print("hello", a[0], s)
        if s == "abc":
            a[0] = 1

    ptx, _ = cuda.compile_ptx(k, (int32[::1],))
    assert "vprintf" in ptx


def test_the_dispatcher_reports_it_too():
    kernel = cuda.jit((int32[::1], int32))
    with pytest.raises(TypingError, match="builds a string"):
        kernel(with_str)
