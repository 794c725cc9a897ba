"""FP8 (numba.cuda.fp8: fp8_e4m3, fp8_e5m2, fp8_e8m0): the shared encoder/decoder checked
against a brute-force nearest-value reference, the types through ptxas at every compute
capability, the simulator's values, the import path, and the GPU's values equal the
simulator's."""

import math

import numpy as np
import pytest
from numba import cuda
from numba.core import types

from numba_cuda.lang import fp8 as fp8_family
from numba_cuda.lang import fp8_codec
from numba_cuda.simulator import fp8 as sim_fp8
from numba_cuda.simulator import api as sim

f32 = types.float32
FORMATS = {"e4m3": (fp8_codec.E4M3, 448.0), "e5m2": (fp8_codec.E5M2, 57344.0)}


def _value(code, ebits, mbits, has_inf):
    """The value of an FP8 byte from the format's definition (independent of the codec)."""
    sign = -1.0 if code & 0x80 else 1.0
    field, m = (code & 0x7F) >> mbits, code & ((1 << mbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    if has_inf and field == (1 << ebits) - 1:
        return sign * math.inf if m == 0 else math.nan
    if not has_inf and (code & 0x7F) == 0x7F:
        return math.nan
    if field == 0:
        return sign * math.ldexp(m, 1 - bias - mbits)
    return sign * math.ldexp((1 << mbits) + m, field - bias - mbits)


def _f32(bits):
    return float(np.array(bits, np.uint32).view(np.float32))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_decode_every_code(fmt):
    spec, _ = FORMATS[fmt]
    for code in range(256):
        want = _value(code, *spec)
        got = _f32(fp8_codec.decode_fp8(code, *spec))
        assert (math.isnan(got) and math.isnan(want)) or got == want, (code, got, want)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_encode_is_nearest_even_and_saturating(fmt):
    spec, largest = FORMATS[fmt]
    codes = [c for c in range(256) if math.isfinite(_value(c, *spec))]
    values = np.array([_value(c, *spec) for c in codes])
    rng = np.random.default_rng(5)
    xs = np.concatenate([rng.standard_normal(3000) * 2.0 ** rng.integers(-18, 18, 3000),
                         values, (values[:-1] + values[1:]) / 2,  # exact ties
                         [0.0, -0.0, 1e9, -1e9, math.inf, -math.inf]]).astype(np.float32)
    for x in xs.tolist():
        code = fp8_codec.encode_fp8(int(np.array(x, np.float32).view(np.uint32)), *spec, 1)
        got = _value(code, *spec)
        clipped = max(-largest, min(largest, x))
        distance = np.abs(values - clipped)
        best = np.flatnonzero(distance == distance.min())
        # ties go to the even code (last mantissa bit 0)
        want = [values[i] for i in best if len(best) == 1 or codes[i] % 2 == 0]
        assert got in want and math.copysign(1, got) == math.copysign(1, x), (x, got, want)
    assert fp8_codec.encode_fp8(0x7FC00000, *spec, 1) == 0x7F
    assert math.isnan(_value(fp8_codec.encode_fp8(0x7F800000, *spec, 0), *spec)) == (fmt == "e4m3")


def test_e8m0_rounds_the_magnitude_up_to_a_power_of_two():
    def e8m0(x):
        return _f32(fp8_codec.decode_e8m0(fp8_codec.encode_e8m0(int(np.array(x, np.float32).view(np.uint32)))))

    assert [e8m0(2.0), e8m0(3.0), e8m0(-3.0), e8m0(0.75), e8m0(3e38), e8m0(math.inf)] == \
        [2.0, 4.0, 4.0, 1.0, 2.0 ** 127, 2.0 ** 127]
    assert e8m0(0.0) == 2.0 ** -127 and math.isnan(e8m0(math.nan))


def conversions(a, d, n, out):
    fp8 = fp8_family
    out[0] = np.float32(fp8.fp8_e4m3(a[0]))
    out[1] = np.float32(fp8.fp8_e5m2(a[0]))
    out[2] = np.float32(fp8.fp8_e8m0(a[0]))
    out[3] = np.float32(fp8.fp8_e4m3(d[0]))
    out[4] = np.float32(fp8.fp8_e5m2(n[0]))
    out[5] = np.float32(fp8.fp8_e4m3(cuda.bf16.bfloat16(a[0])))
    out[6] = np.float32(np.float16(fp8.fp8_e5m2(np.float16(a[0]))))
    out[7] = np.float32(cuda.bf16.bfloat16(fp8.fp8_e8m0(n[0])))
    out[8] = np.float32(np.int32(fp8.fp8_e4m3(a[0])))
    out[9] = np.float32(fp8.fp8_e5m2(fp8.fp8_e4m3(a[0])))


def test_fp8_compiles_and_assembles(ptx_for):
    ptx_for(conversions, (f32[:], types.float64[:], types.int64[:], f32[:]))


def _sim_conversions(a, d, n, out):
    fp8 = sim_fp8
    out[0] = np.float32(fp8.fp8_e4m3(a[0]))
    out[1] = np.float32(fp8.fp8_e5m2(a[0]))
    out[2] = np.float32(fp8.fp8_e8m0(a[0]))
    out[3] = np.float32(fp8.fp8_e4m3(d[0]))
    out[4] = np.float32(fp8.fp8_e5m2(n[0]))
    out[5] = np.float32(fp8.fp8_e4m3(sim.bf16.bfloat16(a[0])))
    out[6] = np.float32(np.float16(fp8.fp8_e5m2(np.float16(a[0]))))
    out[7] = np.float32(sim.bf16.bfloat16(fp8.fp8_e8m0(n[0])))
    out[8] = np.float32(np.int32(fp8.fp8_e4m3(a[0])))
    out[9] = np.float32(fp8.fp8_e5m2(fp8.fp8_e4m3(a[0])))


CASES = [(3.3, 1000.0, 70000), (-0.01, 1e-300, -3), (float("nan"), 448.0000001, 2 ** 40)]


def _run(jit, fn, a, d, n):
    out = np.zeros(10, np.float32)
    jit(fn)[1, 1](np.array([a], np.float32), np.array([d]), np.array([n], np.int64), out)
    return out


def test_simulator_values():
    assert _run(sim.jit, _sim_conversions, *CASES[0]).tolist() == [
        3.25, 3.5, 4.0, 448.0, 57344.0, 3.25, 3.5, 131072.0, 3.0, 3.0]
    out = _run(sim.jit, _sim_conversions, *CASES[1])
    assert out[0] == -2.0 ** -9 * 5 and out[3] == 0.0 and out[4] == -3.0
    assert float(sim_fp8.fp8_e4m3(448.0000001)) == 448.0  # rounded once, not via float32 first


def test_types_and_import_path():
    import numba.cuda.fp8 as fp8

    assert fp8 is fp8_family and fp8.fp8_e4m3.bitwidth == 8
    assert cuda.is_fp8_supported() is True
    sig = (f32,)
    assert cuda.compile_ptx(lambda x: fp8_family.fp8_e5m2(x), sig, device=True, cc=(7, 5))[1] \
        == fp8_family.fp8_e5m2


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES)
def test_gpu_values_match_the_simulator(case):
    got = _run(cuda.jit, conversions, *case)
    want = _run(sim.jit, _sim_conversions, *case)
    np.testing.assert_array_equal(got, want)
