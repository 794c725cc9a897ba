"""Recursive device functions, typed as Numba types them: self recursion with an explicit
signature (compiled while the decorator runs) or an inferable one, mutual recursion, recursion
through another specialisation, and the two errors Numba gives (runaway recursion, a return type
that does not converge).  PTX is assembled by ptxas; the simulator and the GPU run them."""

import re

import numpy as np
import pytest
from numba.core.errors import TypingError

from tests.support.ptx_helpers import assemble

CCS = ((7, 5), (9, 0))


def _functions_defined(ptx):
    """Names of the functions the PTX defines (a body follows), declarations excluded."""
    return set(re.findall(r"^\.(?:visible |weak )?\.func\s+(?:\([^)]*\)\s*)?(\w+)\([^;{]*\)\s*\{",
                          ptx, re.M | re.S))


def _assembled(cuda, kernel, sig):
    out = {}
    for cc in CCS:
        ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc)
        assemble(ptx, cc)
        out[cc] = ptx
    return out


def make_cases(cuda):
    """The recursive device functions, compiled with ``cuda`` (the real target or the simulator)."""

    @cuda.jit("int64(int64)", device=True)
    def fib_explicit(n):  # compiled while @cuda.jit runs: the name is not bound yet
        if n < 2:
            return n
        return fib_explicit(n - 1) + fib_explicit(n - 2)

    @cuda.jit(device=True)
    def fib_inferred(n):
        if n < 2:
            return n
        return fib_inferred(n - 1) + fib_inferred(n - 2)

    @cuda.jit(device=True)
    def is_even(n):
        if n == 0:
            return True
        return is_odd(n - 1)

    @cuda.jit(device=True)
    def is_odd(n):
        if n == 0:
            return False
        return is_even(n - 1)

    @cuda.jit(device=True)
    def type_change(x, y):  # (int64, float64) calls the (float64, float64) specialisation
        if x > 1 and y > 0:
            return x + type_change(x - y, y)
        return y

    @cuda.jit(device=True)
    def countdown_or_none(x):
        if x > 5:
            return x - 1
        return None

    @cuda.jit(device=True)
    def optional_chain(x):
        out = countdown_or_none(x)
        if out is None:
            return out
        if out < 8:
            return out
        return x * optional_chain(out)

    def kernel(ints, flags, floats, n, y):
        ints[0] = fib_explicit(n[0])
        ints[1] = fib_inferred(n[0])
        flags[0] = is_even(n[0])
        flags[1] = is_odd(n[0])
        floats[0] = type_change(n[0], y[0])
        res = optional_chain(n[0])
        if res is None:
            res = 999
        ints[2] = res

    return kernel


SIG = "void(int64[:], boolean[:], float64[:], int64[:], float64[:])"


def _python_results(n, y):
    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)

    def type_change(x, yy):
        return x + type_change(x - yy, yy) if x > 1 and yy > 0 else yy

    def chain(x):
        out = x - 1 if x > 5 else None
        if out is None or out < 8:
            return out
        return x * chain(out)

    res = chain(n)
    return [fib(n), fib(n), 999 if res is None else res], [n % 2 == 0, n % 2 == 1], type_change(n, y)


def test_every_kind_compiles_and_assembles():
    from numba import cuda

    for cc, ptx in _assembled(cuda, make_cases(cuda), SIG).items():
        defined = _functions_defined(ptx)
        for name in ("fib_explicit", "fib_inferred", "is_even", "is_odd", "type_change",
                     "optional_chain"):
            assert any(name in d for d in defined), (cc, name, defined)
        # (int64, float64) calls the recursive (float64, float64) specialisation (which NVVM
        # cannot inline into the kernel, unlike the first)
        assert any("type_change" in d and d.endswith("Edd") for d in defined), defined


def test_self_recursive_call_is_a_call_to_itself():
    from numba import cuda

    @cuda.jit(device=True)
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)

    def k(a):
        a[0] = fact(a[1])

    ptx = _assembled(cuda, k, "void(int64[::1])")[(7, 5)]
    (name,) = [d for d in _functions_defined(ptx) if "fact" in d]
    body = ptx[ptx.index(f"{name}("):]
    assert re.search(rf"call(?:\.uni)?\s*(?:\([^)]*\),\s*)?{name},", body), body[:2000]


@pytest.mark.parametrize("first", ["even", "odd"])
def test_mutual_recursion_links_whichever_function_a_kernel_calls(first):
    """Each of the pair, called alone from a new kernel, brings the other one's definition."""
    from numba import cuda

    @cuda.jit(device=True)
    def ping(n):
        return 0 if n == 0 else pong(n - 1) + 1

    @cuda.jit(device=True)
    def pong(n):
        return 0 if n == 0 else ping(n - 1) + 2

    def via_ping(a):
        a[0] = ping(a[1])

    def via_pong(a):
        a[0] = pong(a[1])

    order = (via_ping, via_pong) if first == "even" else (via_pong, via_ping)
    for kernel in order:
        ptx = _assembled(cuda, kernel, "void(int64[::1])")[(7, 5)]
        defined = _functions_defined(ptx)
        assert any("ping" in d for d in defined) and any("pong" in d for d in defined), defined


def test_runaway_recursion_is_numbas_typing_error():
    from numba import cuda

    @cuda.jit(device=True)
    def runaway(x):
        return runaway(x)

    def k():
        runaway(1)

    with pytest.raises(TypingError, match="cannot type infer runaway recursion"):
        cuda.compile_ptx(k, "void()", cc=(7, 5))


def test_return_type_that_does_not_converge_is_numbas_typing_error():
    from numba import cuda

    @cuda.jit(device=True)
    def nest(n):
        if n <= 0:
            return None
        return (n, nest(n - 1))

    def k():
        nest(100)

    with pytest.raises(TypingError, match="Return type of recursive function does not converge"):
        cuda.compile_ptx(k, "void()", cc=(7, 5))


def _run(cuda, to_device, n, y):
    ints, flags, floats = np.zeros(3, np.int64), np.zeros(2, np.bool_), np.zeros(1, np.float64)
    outs = [to_device(a) for a in (ints, flags, floats)]
    cuda.jit(make_cases(cuda))[1, 1](*outs, to_device(np.array([n], np.int64)),
                                    to_device(np.array([y], np.float64)))
    return [o if isinstance(o, np.ndarray) else o.copy_to_host() for o in outs]


@pytest.mark.parametrize("n, y", [(10, 0.125), (13, 1.5), (3, 2.0)])
def test_simulator_runs_them(n, y):
    from numba_cuda.simulator import api as sim

    ints, flags, floats = _run(sim, lambda a: a, n, y)
    want_ints, want_flags, want_float = _python_results(n, y)
    assert ints.tolist() == want_ints
    assert flags.tolist() == want_flags
    assert floats[0] == want_float


@pytest.mark.gpu
@pytest.mark.parametrize("n, y", [(10, 0.125), (13, 1.5), (3, 2.0)])
def test_gpu_runs_them(n, y):
    from numba import cuda

    ints, flags, floats = _run(cuda, cuda.to_device, n, y)
    want_ints, want_flags, want_float = _python_results(n, y)
    assert ints.tolist() == want_ints
    assert flags.tolist() == want_flags
    assert floats[0] == want_float
