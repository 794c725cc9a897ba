"""print() in kernels through vprintf."""

import re
import textwrap

import pytest
from numba import complex64, cuda, float32, int32, uint64
from numba.core.errors import TypingError

from tests.support.typing_errors import line_of


def const_strings(ptx):
    """Decoded ``.const`` byte arrays of the PTX (format strings and True/False)."""
    out = []
    for match in re.finditer(r"\.const \.align \d+ \.b8 \S+\[\d+\] = \{([\d, ]+)\};", ptx):
        data = bytes(int(b) for b in match.group(1).split(","))
        out.append(data.rstrip(b"\0").decode())
    return out


def printer(a, b, c):
    i = cuda.threadIdx.x
    print("thread", i, "value", a[i], "u", b[0], "flag", c[0] > 0, "100%")
    print()
    print(a[0])


def test_print_formats_at_compile_time(ptx_for):
    for cc, ptx in ptx_for(printer, (float32[:], uint64[:], int32[:])).items():
        strings = const_strings(ptx)
        assert "thread %lld value %f u %llu flag %s 100%%\n" in strings, (cc, strings)
        assert "\n" in strings and "%f\n" in strings, cc
        assert "True" in strings and "False" in strings, cc
        assert ptx.count("vprintf,") == 3 or ptx.count("call.uni") >= 3, cc
        assert ".extern .func  (.param .b32 func_retval0) vprintf" in ptx, cc


def print_tuples(a):
    i = cuda.threadIdx.x
    print((1, 2.5), ((i, a[0]), i > 0), (i,), ())


def test_tuples_print_as_python_prints_them(ptx_for):
    for cc, ptx in ptx_for(print_tuples, (float32[:],)).items():
        strings = const_strings(ptx)
        assert "(%lld, %f) ((%lld, %f), %s) (%lld,) ()\n" in strings, (cc, strings)


def print_complex(z):
    print("z", z[0])  # MARK-PRINT


def test_unsupported_type_is_a_clear_error():
    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(print_complex, (complex64[:],), cc=(7, 5))
    message = str(info.value)
    assert "cannot print a value of type complex64" in message
    # raised while lowering; Numba names the statement's file and line as "file.py (N)"
    assert f"test_printing.py ({line_of(print_complex, 'MARK-PRINT')})" in message


@pytest.mark.gpu
def test_gpu_print_output(run_python):
    code = textwrap.dedent(
        """
        import numpy as np
        from numba import cuda

        @cuda.jit
        def k(x):
            i = cuda.threadIdx.x
            print("lane", i, "x", x[i], "neg", -i, "even", i % 2 == 0)

        k[1, 4](cuda.to_device(np.arange(4, dtype=np.float32) + 0.5))
        cuda.synchronize()
        """
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    lines = sorted(line for line in proc.stdout.splitlines() if line.startswith("lane"))
    assert lines == [
        "lane 0 x 0.500000 neg 0 even True",
        "lane 1 x 1.500000 neg -1 even False",
        "lane 2 x 2.500000 neg -2 even True",
        "lane 3 x 3.500000 neg -3 even False",
    ]
