"""Operands that are names holding Python ints and floats, for the inline fast paths of
``numba_cuda.simulator.inline_ops`` (``test_compiled_typing.test_inline_fast_paths...``)."""

import numpy as np


def cases(a, b, f, g):
    x = a + 0          # a Python int (int64) from here on
    y = b + 0
    h = f + 0.0        # a Python float
    k = g + 0.0
    r0 = x + 1
    r1 = x - 1
    r2 = x * 3
    r3 = x + y
    r4 = x - y
    r5 = x < y
    r6 = x == 9223372036854775807
    r7 = h + 1.5
    r8 = h / 2.0
    r9 = h * k
    r10 = h < k
    r11 = 7 - x
    r12 = x * -2
    x += 5
    h -= 0.25
    r13 = x
    r14 = h
    r15 = np.int64(1) if y > 0 else 2.5
    return (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15)
