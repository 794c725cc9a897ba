"""NumPy ufuncs in kernels (numba_cuda.lang.numpy_ufuncs) and cmath's inverse functions
(numba_cuda.lang.cmath_inverse): every loop compiles with libNVVM and ptxas, typing follows
NumPy's loop selection, outputs go in explicit arrays, allocation is refused clearly."""

import cmath
import itertools
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import complex64, complex128, cuda, float32, float64, int32, int64, types

from tests.support.ptx_helpers import assemble
from tests.support.typing_errors import expect_typing_error

#: What Numba's built-in numba.cuda (0.68) compiles on float64 scalars and arrays, measured with
#: NUMBA_CUDA_REDIRECT=0: ours must compile all of them (NVIDIA's numba-cuda has the CPU table).
BUILTIN_TARGET_UFUNCS = (
    "arccos arccosh arcsin arcsinh arctan arctan2 arctanh cos cosh deg2rad degrees equal fmax "
    "fmin greater greater_equal hypot less less_equal log log10 log2 logical_and logical_not "
    "logical_or logical_xor maximum minimum not_equal rad2deg radians sin sinh tan tanh".split())

EVERY_LOOP = textwrap.dedent(r"""
    import sys
    import numpy as np
    from numba import cuda
    from numba.np import ufunc_db as cpu_db
    from numba.np.numpy_support import from_dtype
    from numba_cuda.lang.numpy_ufuncs import ufunc_db
    from tests.support.ptx_helpers import run_ptxas

    cc = tuple(int(x) for x in sys.argv[1:3])
    db = ufunc_db()
    # every ufunc of Numba's CPU table is here, with every loop but datetime/long double ones
    for ufunc in cpu_db.get_ufuncs():
        kept = [l for l in cpu_db.get_ufunc_info(ufunc) if not set(l) & set("mMgGO")]
        assert sorted(db.get(ufunc, {})) == sorted(kept), (ufunc, sorted(db.get(ufunc, {})), kept)
    count = 0
    for ufunc, loops in db.items():
        params, body, sig = [], [], []
        for k, loop in enumerate(loops):
            ins, outs = loop.split("->")
            ia = [f"a{k}_{j}" for j in range(len(ins))]
            oa = [f"o{k}_{j}" for j in range(len(outs))]
            params += ia + oa
            sig += [from_dtype(np.dtype(c))[:] for c in ins + outs]
            call = f"np.{ufunc.__name__}({', '.join(a + '[0]' for a in ia)})"
            if len(oa) == 1:
                body.append(f"    {oa[0]}[0] = {call}")
            else:
                body.append(f"    r{k} = {call}")
                body += [f"    {o}[0] = r{k}[{j}]" for j, o in enumerate(oa)]
            count += 1
        g = {"np": np}
        exec(f"def k({', '.join(params)}):\n" + "\n".join(body) + "\n", g)
        ptx, _ = cuda.compile_ptx(g["k"], tuple(sig), cc=cc)
        proc = run_ptxas(ptx, cc)
        assert proc.returncode == 0, (ufunc, proc.stderr)
        assert ".extern .func" not in ptx, ufunc
    print("LOOPS", count, "UFUNCS", len(db))
""")


def test_every_loop_compiles_and_assembles():
    """All ufuncs of Numba's CPU table, every loop, in one kernel per ufunc, at the lowest cc
    both toolkits accept; in a fresh interpreter (a bad intrinsic can take libNVVM down)."""
    proc = subprocess.run([sys.executable, "-c", EVERY_LOOP, "7", "5"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    loops, ufuncs = proc.stdout.split()[1::2]
    # the table is Numba's (checked loop by loop in the script); its size depends on the NumPy
    # and Numba versions (699 loops at the declared floors, 728 with NumPy 2.4)
    assert int(ufuncs) >= 80 and int(loops) >= 600, proc.stdout


def test_superset_of_the_builtin_target():
    from numba_cuda.lang.numpy_ufuncs import supported_ufuncs

    assert set(BUILTIN_TARGET_UFUNCS) <= set(supported_ufuncs())
    assert {"sqrt", "isnan", "exp", "power", "add", "bitwise_xor", "ldexp", "spacing", "divmod"} <= set(
        supported_ufuncs())


def _ir(fn, sig):
    kernel = cuda.jit(sig)(fn)
    return kernel.inspect_llvm(kernel.signatures[0]).replace('"', "")


@pytest.mark.parametrize("name, base", [("sin", "sin"), ("sqrt", "sqrt"), ("arctan2", "atan2"),
                                        ("floor", "floor"), ("power", "pow"), ("exp2", "exp2"),
                                        ("log1p", "log1p"), ("spacing", "nextafter"),
                                        ("ldexp", "ldexp")])
@pytest.mark.parametrize("t, suffix", [(float32, "f"), (float64, "")])
def test_real_loops_call_libdevice_at_the_arguments_precision(name, base, t, suffix):
    ufunc = getattr(np, name)
    if name == "ldexp":
        def k(out, x):
            out[0] = np.ldexp(x[0], 3)
    elif ufunc.nin == 2:
        def k(out, x):
            out[0] = ufunc(x[0], x[1])
    else:
        def k(out, x):
            out[0] = ufunc(x[0])
    llvm_ir = _ir(k, (t[:], t[:]))
    assert f"@__nv_{base}{suffix}(" in llvm_ir
    assert "llvm.exp" not in llvm_ir and "llvm.sin" not in llvm_ir and "@numba_" not in llvm_ir


def test_scalar_typing_follows_numpys_loops():
    def k(out_f, out_b, out_i, x32, i32):
        out_f[0] = np.sqrt(i32[0])         # int32 -> the 'd->d' loop
        out_b[0] = np.isnan(x32[0])        # bool
        out_i[0] = np.add(i32[0], i32[1])  # 'ii->i', NumPy's choice
        q, r = np.divmod(i32[0], i32[1])   # two outputs: a tuple
        out_i[1] = q + r

    from numba_cuda.compiler import compile_ptx

    _, resty = compile_ptx(lambda x: np.sqrt(x), (int32,), device=True, cc=(7, 5))
    assert resty == float64
    _, resty = compile_ptx(lambda x: np.sqrt(x), (float32,), device=True, cc=(7, 5))
    assert resty == float32
    _, resty = compile_ptx(lambda x: np.isnan(x), (float32,), device=True, cc=(7, 5))
    assert resty == types.boolean
    _, resty = compile_ptx(lambda a, b: np.add(a, b), (int32, int32), device=True, cc=(7, 5))
    assert resty == int32
    _, resty = compile_ptx(lambda a, b: np.divmod(a, b), (int64, int64), device=True, cc=(7, 5))
    assert resty == types.UniTuple(int64, 2)
    assemble(cuda.compile_ptx(k, (float64[:], types.boolean[:], int32[:], float32[:], int32[:]),
                              cc=(7, 5))[0], (7, 5))


@pytest.mark.parametrize("sig", [
    (float32[:], float32[:]),
    (float64[:, :], float64[:, :]),
    (float32[:, ::1], float32[:, ::1]),
    (types.Array(float64, 2, "A"), types.Array(float64, 2, "A")),
])
def test_array_with_explicit_output(sig):
    def positional(x, out):
        np.sin(x, out)

    def keyword(x, out):
        np.hypot(x, x, out=out)

    for fn in (positional, keyword):
        ptx, _ = cuda.compile_ptx(fn, sig, cc=(7, 5))
        assemble(ptx, (7, 5))


def test_allocating_forms_are_refused_with_the_fix():
    def k(x, out):
        y = np.sin(x)  # MARK-ALLOC
        out[0] = y[0]

    expect_typing_error(k, (float32[:], float32[:]), "MARK-ALLOC",
                        "np.sin(array(float32, 1d, A)) would allocate a new array",
                        "which needs the device NRT (NUMBA_CUDA_ENABLE_NRT=1): pass the output "
                        "array, np.sin(x, out)")


def test_keyword_refusals():
    def where(x, out):
        np.sin(x, out=out, where=True)  # MARK-WHERE

    expect_typing_error(where, (float32[:], float32[:]), "MARK-WHERE",
                        "np.sin() in a kernel takes its inputs and out= only, not where=")

    def both(x, out):
        np.sin(x, out, out=out)  # MARK-BOTH

    expect_typing_error(both, (float32[:], float32[:]), "MARK-BOTH",
                        "output is given both positionally and as out=")


def test_ufuncs_family_is_installed_on_first_use_only():
    code = textwrap.dedent("""
        import sys
        import numpy as np
        from numba import cuda, float32
        def plain(a):
            a[0] += 1
        cuda.compile_ptx(plain, (float32[:],), cc=(7, 5))
        print("before", "numba_cuda.lang.numpy_ufuncs" in sys.modules)
        def uses(a):
            a[0] = np.sin(a[0])
        cuda.compile_ptx(uses, (float32[:],), cc=(7, 5))
        print("after", "numba_cuda.lang.numpy_ufuncs" in sys.modules)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["before", "False", "after", "True"]


# ---- our own element functions, checked as the Python they are compiled from ----------------


def _close(a, b):
    if cmath.isnan(a) or cmath.isnan(b):
        return cmath.isnan(a) == cmath.isnan(b) or (math.isnan(a.real) and math.isnan(b.real))
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


VALUES = [complex(x, y) for x, y in itertools.product((0.0, -0.0, 1.0, -2.5, 0.5, 3.0), (0.0, 1.5, -0.75))]


def test_complex_power_is_numpys():
    from numba_cuda.lang.numpy_ufuncs import _cpow

    exponents = VALUES + [complex(n, 0) for n in (2, 3, -1, -4, 7, 100, 101)]
    with np.errstate(all="ignore"):
        for z, w in itertools.product(VALUES, exponents):
            expected = complex(np.power(np.complex128(z), np.complex128(w)))
            got = _cpow(z, w)
            if z == 0 and w != 0:
                # NumPy: 0 ** w is 0 for real w > 0, NaN otherwise (it returns nan+nanj)
                assert (got == 0) == (w.imag == 0 and w.real > 0), (z, w, got)
                continue
            assert _close(got, expected), (z, w, got, expected)


def test_acosh_is_cmaths():
    from numba_cuda.lang.cmath_inverse import _acosh

    for z in VALUES + [complex(1e308, 1e308), complex(-1e308, 2.0), complex(0.5, -1e-300)]:
        assert _close(_acosh(z), cmath.acosh(z)), z


@pytest.mark.parametrize("name", ["asin", "acos", "atan", "asinh", "acosh", "atanh"])
@pytest.mark.parametrize("t", [complex64, complex128])
def test_cmath_inverse_functions_compile(name, t):
    fn = getattr(cmath, name)
    ptx, resty = cuda.compile_ptx(lambda z: fn(z), (t,), device=True, cc=(7, 5))
    assert resty == t
    assemble(ptx, (7, 5))


def test_the_docs_example_compiles():
    def ufuncs(x, y, out, whole):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = np.hypot(x[i], y[i]) + np.sqrt(np.float32(i))
        if i == 0:
            np.arctan2(y, x, whole)

    ptx, _ = cuda.compile_ptx(ufuncs, (float32[:],) * 4, cc=(7, 5))
    assemble(ptx, (7, 5))
