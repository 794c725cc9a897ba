"""CUDA vector types: names (real target = simulator), construction and components in kernels
(PTX per cc, ptxas), host values as kernel arguments (types, parameters, packing), errors, GPU."""

import re

import numpy as np
import pytest
from numba import cuda, typeof
from numba.core import types
from numba.core.errors import LoweringError

from numba_cuda import _exports
from numba_cuda.lang import stubs
from numba_cuda.lang.vectortypes import VectorType, vector_type
from numba_cuda.runtime.argpack import ArgPacker
from numba_cuda.simulator import api as sim
from numba_cuda.simulator.vectortypes import VECTOR_TYPES as SIM_VECTOR_TYPES

from tests.support.typing_errors import expect_typing_error, line_of


def test_names_and_aliases_match_the_simulator():
    assert set(stubs.VECTOR_TYPES) == set(SIM_VECTOR_TYPES) == set(_exports._VECTOR_TYPES)
    assert len(stubs.VECTOR_TYPES) == 88
    for name in stubs.VECTOR_TYPES:
        assert getattr(cuda, name) is stubs.VECTOR_TYPES[name]
        assert getattr(sim, name) is SIM_VECTOR_TYPES[name]
        assert getattr(cuda, name).__name__ == SIM_VECTOR_TYPES[name].__name__
    assert cuda.float4 is cuda.float32x4 and cuda.long2 is cuda.int64x2 and cuda.uchar3 is cuda.uint8x3


def test_host_values():
    v = cuda.float32x4(1, 2, cuda.float2(3, 4))
    assert (v.x, v.y, v.z, v.w) == (1.0, 2.0, 3.0, 4.0) and isinstance(v.w, np.float32)
    assert tuple(cuda.int3(7)) == (7, 7, 7)
    with pytest.raises(TypeError, match="takes 2 components"):
        cuda.int2(1, 2, 3)
    assert typeof(v) == vector_type("float4") and isinstance(typeof(v), VectorType)
    # the simulator's values behave the same
    s = sim.float32x4(1, 2, sim.float2(3, 4))
    assert tuple(s) == tuple(v)


def construct(out, a):
    v2 = cuda.float2(1.5, a[0])
    v4 = cuda.float32x4(v2, np.float32(3), 4)
    ones = cuda.int3(1)
    u = cuda.uint64x2(a[1], 5)
    d = cuda.double4(cuda.double1(0.5), cuda.double3(a[0], a[1], 2))
    out[0] = v4.x + v4.y + v4.z + v4.w
    out[1] = ones.x + ones.y + ones.z
    out[2] = u.y
    out[3] = d.x + d.w


def test_construction_and_components(ptx_for, code):
    for cc, ptx in ptx_for(construct, (types.float32[:], types.float32[:])).items():
        body = code(ptx)
        # out[2] = uint64x2(a[1], 5).y and out[1] = int3(1) summed: constants 5.0 and 3.0 stored
        for value in (5.0, 3.0):
            bits = np.float32(value).view(np.uint32)
            assert f"0f{bits:08X}" in body or str(bits) in body, (cc, value)


@pytest.mark.parametrize("base", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                  "uint64", "float32", "float64"])
def test_every_base_type_and_size(base, ptx_one):
    V1, V2, V3, V4 = (getattr(cuda, f"{base}x{n}") for n in range(1, 5))
    dtype = getattr(types, base)

    def k(out, a):
        v1 = V1(a[0])
        v2 = V2(a[0], a[1])
        v3 = V3(v1, v2)
        v4 = V4(v2, v2)
        out[0] = v1.x + v2.y + v3.z + v4.w

    ptx_one(k, (dtype[:], dtype[:]))


def take_vectors(out, v, w):
    out[0] = v.x * v.w + w.y


def test_host_values_as_kernel_arguments(code):
    from tests.support.ptx_helpers import assemble

    v, w = cuda.float32x4(1, 2, 3, 4), cuda.int2(5, 6)
    # what the dispatcher does with launch arguments (typeof with Purpose.argument)
    kernel = cuda.jit(take_vectors)
    argtypes = tuple(kernel.typeof_argument(a)[1] for a in (np.zeros(1, np.float32), v, w))
    assert argtypes[1] == vector_type("float32x4") and argtypes[2] == vector_type("int32x2")
    ptx, _ = cuda.compile_ptx(take_vectors, argtypes, cc=(7, 5))
    assemble(ptx, (7, 5))
    packer = ArgPacker(argtypes)
    # 7 array parameters, then one parameter per component, in order
    assert packer.codes[7:] == ["f", "f", "f", "f", "i", "i"]
    assert packer.nparams == len(re.findall(r"^\s*\.param .*_param_\d+", ptx, re.M))
    assert ArgPacker(argtypes[1:]).flatten((v, w)) == [1.0, 2.0, 3.0, 4.0, 5, 6]


CAPTURED = cuda.float32x2(2.5, -1)


def test_captured_host_value_is_a_constant(ptx_one, code):
    def k(out):
        out[0] = CAPTURED.x * CAPTURED.y

    body = code(ptx_one(k, (types.float32[:],)))
    # -2.5 folded from the captured constant (as a float immediate or its bit pattern)
    assert "0fC0200000" in body or str(np.float32(-2.5).view(np.int32)) in body


def vector_from_device_function(a):
    return cuda.float2(a, a + 1)


def test_vectors_through_device_functions(ptx_one):
    dev = cuda.jit(device=True)(vector_from_device_function)

    def k(out):
        v = dev(out[0])
        out[1] = v.y

    ptx_one(k, (types.float32[:],))


# ---- errors ------------------------------------------------------------------------------


def too_many(out):
    v = cuda.float2(1, 2, 3)  # MARK-MANY
    out[0] = v.x


def no_w(out):
    v = cuda.float2(1, 2)
    out[0] = v.w  # MARK-W


def not_a_number(out):
    v = cuda.float2(out, 1)  # MARK-ARRAY
    out[0] = v.x


def assign_component(out):
    v = cuda.float2(1, 2)
    v.x = 3  # MARK-SET
    out[0] = v.x


@pytest.mark.parametrize("fn, marker, words", [
    (too_many, "MARK-MANY", "takes 2 component(s)"),
    (no_w, "MARK-W", "w"),
    (not_a_number, "MARK-ARRAY", "components must be numbers or vector types"),
])
def test_typing_errors_name_the_line(fn, marker, words):
    expect_typing_error(fn, (types.float32[:],), marker, words)


def test_assigning_a_component_is_an_error_naming_the_line():
    with pytest.raises(LoweringError) as info:
        cuda.compile_ptx(assign_component, (types.float32[:],), cc=(7, 5))
    assert "read-only" in str(info.value)
    assert f"test_vectortypes.py ({line_of(assign_component, 'MARK-SET')})" in str(info.value)


# ---- simulator ---------------------------------------------------------------------------


def test_simulator_kernel_with_vector_argument():
    @sim.jit
    def k(out, v):
        w = sim.float32x4(v, sim.float2(3, 4))
        out[0] = w.x + w.y * w.z + w.w

    out = np.zeros(1, np.float32)
    k[1, 1](out, sim.float2(1, 2))
    assert out[0] == 1 + 2 * 3 + 4


# ---- GPU ---------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_vector_arguments_and_values():
    kernel = cuda.jit(take_vectors)
    out = np.zeros(1, np.float32)
    kernel[1, 1](out, cuda.float32x4(1.5, 2, 3, 4), cuda.int2(5, 6))
    assert out[0] == 1.5 * 4 + 6

    k2 = cuda.jit(construct)
    out = np.zeros(4, np.float32)
    k2[1, 1](out, np.array([2.0, 7.0], np.float32))
    assert out.tolist() == [1.5 + 2 + 3 + 4, 3, 5, 0.5 + 2]
