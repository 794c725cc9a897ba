"""NumPy reductions in kernels (numba_cuda.lang.numpy_reductions): they compile (libNVVM and
ptxas) for every dtype family, dimension count and layout, are typed as NumPy types them, and
compute what NumPy computes (checked by running each implementation as the Python it is
compiled from, on NumPy arrays)."""

import warnings

import numpy as np
import pytest
from numba import cuda, types

from numba_cuda.lang.numpy_reductions import FUNCTIONS, METHODS, TYPERS
from tests.support.ptx_helpers import assemble

REAL = ("float32", "float64", "int32", "int8", "uint16", "bool")
ORDERED_ONLY = {"max", "amax", "min", "amin", "argmax", "argmin", "nanmax", "nanmin", "nanargmax",
                "nanargmin", "ptp"}
NUMPY_NAME = {"amax": "max", "amin": "min"}
NOT_FOR_BOOL = {"ptp"}  # NumPy refuses to subtract booleans


def _arrays(dtype):
    rng = np.random.default_rng(7)
    if dtype == "bool":
        base = rng.integers(0, 2, (4, 6)).astype(bool)
    elif np.dtype(dtype).kind == "f":
        base = rng.normal(size=(4, 6)).astype(dtype)
    elif np.dtype(dtype).kind == "c":
        base = (rng.normal(size=(4, 6)) + 1j * rng.normal(size=(4, 6))).astype(dtype)
    else:
        base = rng.integers(0, 50, (4, 6)).astype(dtype)
    yield base
    yield base[:, ::2]             # not contiguous
    yield np.asfortranarray(base)  # F order: reduced in C order all the same
    yield base[1]                  # 1-D
    if np.dtype(dtype).kind in "fc":
        with_nan = base.copy()
        with_nan[1, 2] = np.nan
        with_nan[3, 0] = np.nan
        yield with_nan


def _numpy(name, a):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(np, NUMPY_NAME.get(name, name))(a)


def _same(got, expected, name):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (name, got.dtype, expected.dtype)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=2e-6 if expected.dtype.itemsize <= 8 else 1e-12,
                                   equal_nan=True, err_msg=name)
    else:
        assert got == expected, (name, got, expected)


@pytest.mark.parametrize("dtype", REAL + ("complex64", "complex128"))
@pytest.mark.parametrize("name", FUNCTIONS)
def test_computes_what_numpy_computes(name, dtype):
    if dtype.startswith("complex") and name in ORDERED_ONLY:
        assert TYPERS[name](types.Array(getattr(types, dtype), 1, "C")) is None  # refused
        return
    if dtype == "bool" and name in NOT_FOR_BOOL:
        assert TYPERS[name](types.Array(types.boolean, 1, "C")) is None
        with pytest.raises(TypeError):
            _numpy(name, np.ones(2, bool))
        return
    if name.startswith("nanarg") and dtype == "bool":
        return
    for a in _arrays(dtype):
        if name.startswith("nanarg") and np.isnan(a).all():
            continue
        from numba.np.numpy_support import from_dtype

        impl = TYPERS[name](types.Array(from_dtype(a.dtype), a.ndim, "A"))
        assert impl is not None, name
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = impl(a)
        _same(got, _numpy(name, a), name)


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_empty_arrays_raise_numpys_error(name):
    impl = TYPERS[name](types.Array(types.float32, 1, "C"))
    with pytest.raises(ValueError) as ours:
        impl(np.zeros(0, np.float32))
    with pytest.raises(ValueError) as numpys:
        getattr(np, name)(np.zeros(0, np.float32))
    assert str(ours.value) == str(numpys.value)


def test_all_nan_nanargmax_raises_as_numpy():
    impl = TYPERS["nanargmax"](types.Array(types.float64, 1, "C"))
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        impl(np.full(3, np.nan))
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        np.nanargmax(np.full(3, np.nan))


@pytest.mark.parametrize("dtype, layout, ndim", [("float32", "A", 2), ("int32", "C", 1),
                                                  ("float64", "F", 3), ("bool", "C", 2),
                                                  ("complex64", "C", 1)])
def test_every_reduction_compiles_and_assembles(dtype, layout, ndim):
    arr = types.Array(getattr(types, dtype if dtype != "bool" else "boolean"), ndim, layout)
    names = [n for n in FUNCTIONS if not (dtype.startswith("complex") and n in ORDERED_ONLY)
             and not (dtype == "bool" and n in NOT_FOR_BOOL)]
    methods = [m for m in METHODS if not (dtype.startswith("complex") and m in ORDERED_ONLY)]
    body = [f"    out[{i}] = np.{n}(x)" for i, n in enumerate(names)]
    body += [f"    out[{len(names) + i}] = x.{m}()" for i, m in enumerate(methods)]
    g = {"np": np}
    exec("def k(x, out):\n" + "\n".join(body) + "\n", g)
    outty = types.Array(types.complex128 if dtype.startswith("complex") else types.float64, 1, "C")
    ptx, _ = cuda.compile_ptx(g["k"], (arr, outty), cc=(7, 5))
    assemble(ptx, (7, 5))


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "float32", "float64", "bool", "complex64"])
def test_result_types_are_numpys(dtype):
    from numba.np.numpy_support import as_dtype, from_dtype

    nbty = from_dtype(np.dtype(dtype))
    for name in ("sum", "prod", "mean", "var", "std", "argmax", "count_nonzero", "max"):
        if dtype == "complex64" and name in ORDERED_ONLY:
            continue
        src = f"def f(x):\n    return np.{name}(x)\n"
        g = {"np": np}
        exec(src, g)
        _, resty = cuda.compile_ptx(g["f"], (types.Array(nbty, 1, "C"),), device=True, cc=(7, 5))
        expected = np.asarray(_numpy(name, np.ones(2, dtype=dtype))).dtype
        if name == "count_nonzero":
            expected = np.dtype(np.intp)  # NumPy gives a Python int
        assert as_dtype(resty) == expected, (name, dtype, resty, expected)


def test_axis_and_out_forms_are_not_taken():
    def k(x, out):
        out[0] = x.sum(axis=0)[0]

    with pytest.raises(Exception) as info:
        cuda.compile_ptx(k, (types.float32[:, :], types.float32[:]), cc=(7, 5))
    assert "sum" in str(info.value)


def test_family_is_installed_on_first_use_only():
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import sys
        import numpy as np
        from numba import cuda, float32
        def plain(a):
            a[0] += 1
        cuda.compile_ptx(plain, (float32[:],), cc=(7, 5))
        print("before", "numba_cuda.lang.numpy_reductions" in sys.modules)
        def method(a):
            a[0] = a.max()
        cuda.compile_ptx(method, (float32[:],), cc=(7, 5))
        print("method", "numba_cuda.lang.numpy_reductions" in sys.modules)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["before", "False", "method", "True"]
    func = code.replace("a[0] = a.max()", "a[0] = np.nanmean(a)")
    proc = subprocess.run([sys.executable, "-c", func], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["before", "False", "method", "True"]


def test_the_docs_example_compiles():
    def stats(a, out):
        if cuda.grid(1) == 0:
            out[0] = a.sum()
            out[1] = np.nanmax(a)
            out[2] = a.argmin()
            out[3] = np.count_nonzero(a)

    ptx, _ = cuda.compile_ptx(stats, (types.float64[:, :], types.float64[:]), cc=(7, 5))
    assemble(ptx, (7, 5))


def test_methods_after_numbas_cpu_methods_compiled_in_the_process():
    """Numba's CPU @overload_method lowerings for ndarray (max, mean, var ...) are registered
    where this target finds them too; the methods here must not be lowered with those."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import numpy as np
        from numba import cuda, njit, types
        @njit
        def cpu(x):
            return x.max() + x.min() + x.mean() + x.var() + x.std() + x.prod() + x.argmax() + x.all()
        cpu(np.ones((2, 2), np.float32))
        def k(x, out):
            out[0] = x.max() + x.min() + x.mean() + x.var() + x.std() + x.prod() + x.argmax() + x.all()
            out[1] = x.sum()
        cuda.compile_ptx(k, (types.float32[:, :], types.float64[:]), cc=(7, 5))
        print("OK")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "OK"
