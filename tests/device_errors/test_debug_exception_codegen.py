"""debug=True / boundscheck=True kernels: bounds checks, exception tables and the error record
in the PTX (accepted by ptxas for every cc), and nothing of it in ordinary kernels."""

import inspect
import pickle
import re

import pytest
from numba import cuda, float32, float64, int32, int64

from numba_cuda.compiler import device_errors

CC = (8, 0)


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if text in line:
            return first + offset
    raise AssertionError(f"{text!r} not in {fn.__name__}")


def _entries(kernel):
    return list(kernel.exceptions.entries.values())


def _compile(fn, sig, **options):
    return cuda.jit(fn, **options).compile(sig)


# ---- which kernels report ---------------------------------------------------------------------
def test_ordinary_kernels_have_no_record_no_check_and_no_bounds_checks(kernels):
    kernel = _compile(kernels.indexing, (float32[::1], float32[::1]))
    assert kernel.error_global is None and kernel.exceptions is None
    image = kernel.image(CC)
    assert image.error_global is None and image.exceptions is None
    ptx = image.ptx
    assert "__errors" not in ptx and "atom" not in ptx
    assert "%tid.y" not in ptx  # the wrapper reads no indices for a report
    # no bounds-check branches: the addresses are computed (negative indices wrap by selp)
    assert not re.search(r"@%p\d+ bra", ptx), ptx
    checked = _compile(kernels.indexing, (float32[::1], float32[::1]), boundscheck=True)
    assert re.search(r"@%p\d+ bra", checked.image(CC).ptx)


@pytest.mark.parametrize("options", [dict(debug=True, opt=False), dict(boundscheck=True, opt=False)],
                         ids=["debug", "boundscheck"])
def test_reporting_kernel_has_the_record_the_check_and_bounds_checks(kernels, ccs, ptxas, options):
    kernel = _compile(kernels.indexing, (float32[::1], float32[::1]), **options)
    name = device_errors.error_global_name(kernel.entry_name)
    assert kernel.error_global == name
    entries = _entries(kernel)
    assert entries and all(cls is IndexError for cls, _args, _loc in entries)
    line = _line_of(kernels.indexing, "a[i] = b[i + 1]")
    assert {loc for _c, _a, loc in entries} == {("indexing", kernels.__file__, line)}
    for cc in ccs:
        image = kernel.image(cc)
        assert image.error_global == name and image.exceptions is kernel.exceptions
        ptx = image.ptx
        assert re.search(rf"\.visible \.global \.align 4 \.b8 {re.escape(name)}\[28\];", ptx)
        assert re.search(r"atom(\.\w+)*\.cas\.b32", ptx)  # first failing thread wins
        for reg in ("%tid.x", "%tid.y", "%tid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z"):
            assert reg in ptx
        proc = ptxas(ptx, cc)
        assert proc.returncode == 0, f"ptxas sm_{cc[0]}{cc[1]}:\n{proc.stderr}"


def test_compile_ptx_with_debug_shows_the_record(kernels):
    ptx, _ = cuda.compile_ptx(kernels.asserting, (float64[::1],), cc=CC, debug=True, opt=False)
    assert re.search(r"\.visible \.global \.align 4 \.b8 \S+__errors\[28\];", ptx)
    plain, _ = cuda.compile_ptx(kernels.asserting, (float64[::1],), cc=CC)
    assert "__errors" not in plain


def test_boundscheck_option_alone_reports_too(kernels):
    kernel = _compile(kernels.indexing, (float32[::1], float32[::1]), boundscheck=True)
    assert kernel.options.opt and not kernel.options.debug
    assert kernel.error_global is not None
    assert {cls for cls, _a, _l in _entries(kernel)} == {IndexError}


def test_debug_without_boundscheck_reports_asserts_only(kernels):
    kernel = _compile(kernels.asserting, (float64[::1],), debug=True, boundscheck=False)
    classes = [cls for cls, _a, _l in _entries(kernel)]
    assert classes and set(classes) == {AssertionError}


def test_numba_boundscheck_environment_overrides(kernels, monkeypatch):
    from numba.core import config

    monkeypatch.setattr(config, "BOUNDSCHECK", 1)
    on = _compile(kernels.indexing, (float32[::1], float32[::1]))
    assert on.options.boundscheck and on.error_global is not None
    monkeypatch.setattr(config, "BOUNDSCHECK", 0)
    off = _compile(kernels.indexing, (float32[::1], float32[::1]), debug=True, boundscheck=True)
    assert not off.options.boundscheck
    assert not _entries(off)  # debug: reported, but nothing is checked


def test_boundscheck_and_lto_are_jit_options(kernels):
    plain = cuda.jit(kernels.indexing)
    checked = cuda.jit(kernels.indexing, boundscheck=True)
    assert plain.options != checked.options
    assert checked._user_options()["boundscheck"] is True
    assert cuda.jit(kernels.indexing, lto=True)._user_options()["lto"] is True
    with pytest.raises(TypeError, match="unknown @cuda.jit options: bogus"):
        cuda.jit(kernels.indexing, bogus=True)


# ---- exception tables ---------------------------------------------------------------------------
def test_device_function_exceptions_reach_the_kernel_table_with_unique_ids(kernels):
    kernel = _compile(kernels.calls_device_function, (float64[::1],), debug=True, opt=False)
    entries = kernel.exceptions.entries
    line = _line_of(kernels.checked_get.py_func, "assert i < a.size")
    asserts = {i: e for i, e in entries.items() if e[0] is AssertionError}
    assert list(asserts.values()) == [(AssertionError, ("index past the end",),
                                       ("checked_get", kernels.__file__, line))]
    other = _compile(kernels.asserting, (float64[::1],), debug=True)
    assert not set(entries) & set(other.exceptions.entries)  # ids are unique in the process
    (exc_id,) = asserts
    exc = kernel.exceptions.exception_for((exc_id, 7, 0, 0, 2, 0, 0))
    assert type(exc) is AssertionError
    assert str(exc) == (f"index past the end in kernel 'calls_device_function' at thread "
                        f"(7, 0, 0) of block (2, 0, 0) (raised in checked_get at "
                        f"{kernels.__file__}:{line})")


def test_assert_without_message(kernels):
    kernel = _compile(kernels.asserting, (float64[::1],), debug=True)
    line = _line_of(kernels.asserting, "assert i < 1000")
    (exc_id,) = [i for i, (_c, args, loc) in kernel.exceptions.entries.items() if loc[2] == line]
    exc = kernel.exceptions.exception_for((exc_id, 1, 2, 3, 4, 5, 6))
    assert type(exc) is AssertionError
    assert str(exc).startswith("assertion failed in kernel 'asserting' at thread (1, 2, 3) of "
                               "block (4, 5, 6)")


def test_run_time_values_in_raise_compile_and_are_named_by_type(kernels):
    kernel = _compile(kernels.dynamic_raise, (float64[::1], int64), debug=True)
    (exc_id,) = [i for i, e in kernel.exceptions.entries.items() if e[0] is ValueError]
    exc = kernel.exceptions.exception_for((exc_id, 0, 0, 0, 0, 0, 0))
    assert type(exc) is ValueError
    assert str(exc).startswith("('n is too large:', '<int64 value>') in kernel 'dynamic_raise'")


def test_run_time_raise_compiles_without_debug_too(kernels):
    kernel = _compile(kernels.dynamic_raise, (float64[::1], int64))
    assert kernel.error_global is None
    assert ".entry" in kernel.image(CC).ptx


def test_exception_table_pickles_for_the_cache(kernels):
    kernel = _compile(kernels.asserting, (float64[::1],), debug=True)
    table = pickle.loads(pickle.dumps(kernel.exceptions))
    assert table.kernel_name == "asserting" and table.entries == kernel.exceptions.entries


def test_2d_debug_kernel_passes_ptxas(kernels, ccs, ptxas):
    kernel = _compile(kernels.grid_2d, (int32[:, ::1], int32[:, :]), debug=True, opt=False)
    assert len(_entries(kernel)) >= 4  # two indices for each of two arrays
    for cc in ccs:  # every cc, compute_100+ included (one debug compile unit per program)
        proc = ptxas(kernel.image(cc).ptx, cc)
        assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("opt", [True, False])
def test_debug_with_and_without_optimisation_compiles(kernels, opt, ptxas):
    kernel = _compile(kernels.calls_device_function, (float64[::1],), debug=True, opt=opt)
    proc = ptxas(kernel.image(CC).ptx, CC)
    assert proc.returncode == 0, proc.stderr
