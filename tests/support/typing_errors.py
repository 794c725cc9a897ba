"""Checking that a typing error names the source line of the offending call.

Kernels mark the line with a comment (``# MARK-XYZ``); ``line_of`` finds its line number and
``expect_typing_error`` compiles the kernel, requires a ``TypingError`` and checks its message.
Import as ``from tests.support.typing_errors import ...`` (pytest runs from the repository root).
"""

import inspect

import pytest


def line_of(fn, marker):
    """The source line number of the first line of ``fn`` containing ``marker``."""
    lines, first = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if marker in text:
            return first + offset
    raise AssertionError(marker)


def expect_typing_error(fn, sig, marker, *words, cc=(7, 5)):
    """Compile ``fn`` to PTX; it must raise ``TypingError`` whose message contains every one of
    ``words`` and ``line N`` for the line marked ``marker``.  Returns the message."""
    from numba import cuda
    from numba.core.errors import TypingError

    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(fn, sig, cc=cc)
    message = str(info.value)
    for w in words:
        assert w in message
    assert f"line {line_of(fn, marker)}" in message
    return message
