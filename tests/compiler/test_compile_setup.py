"""Per-compile set-up made once and reused: Numba's flags for a set of options (``make_flags``
copies them out of a cache outside a compile, and builds them inside one, where they inherit
from the outer compile)."""

import pytest
from numba.core.targetconfig import ConfigStack

from numba_cuda.compiler import pipeline
from numba_cuda.compiler.pipeline import CompileOptions

OPTIONS = [
    CompileOptions(),
    CompileOptions.from_user(debug=True),
    CompileOptions.from_user(lineinfo=True),
    CompileOptions.from_user(fastmath=True, inline=True),
    CompileOptions.from_user(fastmath={"nnan", "ninf"}, boundscheck=True, opt=False),
    CompileOptions.from_user(max_registers=32, launch_bounds=(128, 2)),
]


@pytest.mark.parametrize("nrt", [False, True])
@pytest.mark.parametrize("options", OPTIONS)
def test_flags_are_those_built_for_the_options(options, nrt):
    for _ in range(2):
        flags = pipeline.make_flags(options, nrt=nrt)
        built = pipeline._build_flags(options, nrt)
        assert flags == built and flags.summary() == built.summary()
        assert flags.get_mangle_string() == built.get_mangle_string()


def test_each_call_gets_its_own_flags():
    first = pipeline.make_flags(CompileOptions())
    first.boundscheck = True
    first.nrt = True
    second = pipeline.make_flags(CompileOptions())
    assert second is not first
    assert not second.boundscheck and not second.nrt
    assert pipeline._FLAGS  # (made once)


def test_inside_a_compile_flags_inherit_from_it():
    outer = pipeline._build_flags(CompileOptions.from_user(debug=True), False)
    assert outer.error_model == "python"
    with ConfigStack().enter(outer):
        inner = pipeline.make_flags(CompileOptions())
    assert inner.error_model == "python"
    assert pipeline.make_flags(CompileOptions()).error_model == "numpy"


def test_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(pipeline, "_FLAGS", {})
    monkeypatch.setattr(pipeline, "_FLAGS_MAX", 3)
    for registers in range(10):
        pipeline.make_flags(CompileOptions.from_user(max_registers=registers + 1))
    assert len(pipeline._FLAGS) <= 3


@pytest.mark.parametrize("options", OPTIONS)
def test_mangle_string_is_numbas(options):
    from numba.core.compiler import Flags

    flags = pipeline.make_flags(options)
    for _ in range(2):
        assert flags.get_mangle_string() == Flags.get_mangle_string(flags)
    flags.boundscheck = not flags.boundscheck
    assert flags.get_mangle_string() == Flags.get_mangle_string(flags)


def _mangling_cases():
    import numpy as np
    from numba import from_dtype, types

    from tests.compiler.corpus_compiler import CORPUS
    from numba.core import sigutils

    record = from_dtype(np.dtype([("a", np.float64), ("b", np.int32)], align=True))
    argtypes = [types.int8, types.uint64, types.float32, types.complex128, types.boolean,
                types.float32[::1], types.int64[:, ::1], types.float64[::1, :],
                types.Array(types.float32, 2, "A", readonly=True), record, record[::1],
                types.UniTuple(types.float64, 3), types.Tuple((types.int32, types.float32[:])),
                types.literal(3), types.literal("text"), types.none, types.CPointer(types.int32),
                types.voidptr, 1, True, -2, "name", 2.5]
    for _name, _fn, sig, _device in CORPUS:
        args, _ = sigutils.normalize_signature(sig)
        argtypes.extend(args)
    return argtypes


def test_mangled_names_are_numbas():
    from numba.core import itanium_mangler

    from numba_cuda.compiler.target import cuda_target

    context = cuda_target.target_context
    cases = _mangling_cases()
    for _ in range(2):
        for argtype in cases:
            assert context.mangler("mod.f", [argtype]) == itanium_mangler.mangle("mod.f", [argtype])
        for tags, uid in (((), None), (("abc",), 7), (("x=y", "z"), 123)):
            assert (context.mangler("a.b.<locals>.c", cases, abi_tags=tags, uid=uid)
                    == itanium_mangler.mangle("a.b.<locals>.c", cases, abi_tags=tags, uid=uid))
