"""CUDA ufuncs without a GPU: Numba's decorators reach numba_cuda's builders, the generated
kernels (vectorize 1-d/n-d/scalars, gufunc, reduction) pass ptxas for every target cc, signature
selection, and every error at decoration or call time."""

import numba
import numpy as np
import pytest
from numba import boolean, complex128, cuda, float32, float64, int32, int64, uint8
from numba.core.errors import TypingError

from numba_cuda.ufuncs.loops import Loop, Scalar, UfuncTypeError, select_loop
from tests.support.kernel_sources import matmul as _matmul
from tests.support.kernel_sources import rel as _rel
from tests.support.kernel_sources import scaled_sum


def make_rel():
    return numba.vectorize(["float32(float32, float32)", "float64(float64, float64)"],
                           target="cuda")(_rel)


def make_matmul():
    return numba.guvectorize(["void(float32[:,:], float32[:,:], float32[:,:])",
                              "void(float64[:,:], float64[:,:], float64[:,:])"],
                             "(m,n),(n,p)->(m,p)", target="cuda")(_matmul)


# ---- dispatch through Numba's decorators ---------------------------------------------------


def test_numba_decorators_use_numba_cuda_builders():
    from numba.np.ufunc.decorators import GUVectorize, Vectorize

    import numba_cuda.vectorizers as ours

    assert Vectorize.target_registry["cuda"] is ours.CUDAVectorize
    assert GUVectorize.target_registry["cuda"] is ours.CUDAGUFuncVectorize
    rel = make_rel()
    assert type(rel).__module__ == "numba_cuda.ufuncs.vectorize"
    assert rel.__name__ == "rel" and rel.nin == 2 and rel.nout == 1
    assert rel.types == ["ff->f", "dd->d"] and rel.ntypes == 2
    assert rel.backend.name == "gpu"
    matmul = make_matmul()
    assert type(matmul).__module__ == "numba_cuda.ufuncs.gufunc"
    assert matmul.signature == "(m,n),(n,p)->(m,p)" and matmul.nin == 2 and matmul.nout == 1


def test_return_type_may_be_left_to_inference():
    ufunc = numba.vectorize(["(int32, int32)"], target="cuda")(lambda a, b: a * b)
    (loop,) = ufunc.loops
    assert loop.outtypes[0] == int64  # Numba widens int32 * int32


# ---- generated kernels through ptxas ---------------------------------------------------------


def test_vectorize_contiguous_kernel(kernel_ptx):
    rel = make_rel()
    for loop, t in zip(rel.loops, (float32, float64)):
        kernel = rel.kernel(loop, 1)
        for cc, ptx in kernel_ptx(kernel, (t[::1], t[::1], t[::1])).items():
            assert ".entry" in ptx, cc


def test_vectorize_broadcast_kernel_with_scalars_and_conversions(kernel_ptx):
    rel = make_rel()
    loop = rel.loops[1]  # float64
    kernel = rel.kernel(loop, 3, {1})
    # int32 elements converted to float64 in the kernel, result stored into float32
    kernel_ptx(kernel, (int32[:, :, :], float64, float32[:, :, ::1]))
    assert rel.kernel(loop, 3, {1}) is kernel  # cached per shape


def test_vectorize_unary_boolean_and_complex(kernel_ptx):
    flag = numba.vectorize(["boolean(float64)"], target="cuda")(lambda x: x > 0.5)
    kernel_ptx(flag.kernel(flag.loops[0], 2), (float64[:, :], boolean[:, ::1]))
    conj = numba.vectorize(["complex128(complex128)"], target="cuda")(lambda z: z.conjugate())
    kernel_ptx(conj.kernel(conj.loops[0], 1), (complex128[::1], complex128[::1]))


def test_gufunc_kernels(kernel_ptx):
    matmul = make_matmul()
    kernel = matmul.kernel(matmul.loops[0], 2)
    kernel_ptx(kernel, (float32[:, :, :, ::1], float32[:, :, :, :], float32[:, :, :, ::1], int64))

    gu = numba.guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->()",
                           target="cuda")(scaled_sum)
    assert gu.kinds == ("array", "scalar", "cell")
    kernel_ptx(gu.kernel(gu.loops[0], 1), (float64[:, ::1], float64[:], float64[::1], int64))


@pytest.mark.parametrize("nbtype", [int32, int64, float32, float64, complex128, uint8])
def test_reduction_kernels(kernel_ptx, nbtype, code):
    from numba_cuda.ufuncs.reduction import Reduce

    reducer = Reduce(lambda a, b: a + b)
    dtype = np.dtype(str(nbtype))
    kernel = reducer._kernel(dtype)
    for cc, ptx in kernel_ptx(kernel, (nbtype[::1], nbtype[::1], nbtype, boolean)).items():
        body = code(ptx)
        assert "bar.sync" in body and ".shared" in ptx, cc


def test_reduction_with_a_device_function():
    from numba_cuda.ufuncs.reduction import Reduce

    @cuda.jit(device=True)
    def biggest(a, b):
        return max(a, b)

    reducer = cuda.reduce(biggest)
    assert isinstance(reducer, Reduce)
    kernel = reducer._kernel(np.dtype(np.float32))
    kernel.compile((float32[::1], float32[::1], float32, boolean))


# ---- signature selection ---------------------------------------------------------------------


def _loops(*sigs):
    out = []
    for k, sig in enumerate(sigs):
        args, ret = numba.core.sigutils.normalize_signature(sig)
        out.append(Loop(k, args, (ret,), core=None))
    return out


def test_select_loop_exact_then_safe_cast():
    loops = _loops("float32(float32, float32)", "float64(float64, float64)")
    f4, f8, i4, i8 = (np.dtype(t) for t in ("f4", "f8", "i4", "i8"))
    assert select_loop("f", loops, [f4, f4]).index == 0
    assert select_loop("f", loops, [f8, f4]).index == 1
    assert select_loop("f", loops, [i4, i4]).index == 1   # int32 -> float64 is safe
    assert select_loop("f", loops, [np.dtype("i2"), f4]).index == 0
    with pytest.raises(UfuncTypeError, match=r"has no signature accepting \(int64 array, "
                                             r"complex\).*float32\(float32, float32\)"):
        select_loop("f", loops, [i8, Scalar(1j)])


def test_select_loop_python_scalars_are_weak():
    loops = _loops("int8(int8, int8)", "float32(float32, float32)", "float64(float64, float64)")
    i1, f4 = np.dtype("i1"), np.dtype("f4")
    assert select_loop("f", loops, [i1, Scalar(3)]).index == 0
    assert select_loop("f", loops, [i1, Scalar(300)]).index == 1   # does not fit int8
    assert select_loop("f", loops, [f4, Scalar(2.5)]).index == 1
    assert select_loop("f", loops, [f4, Scalar(np.float64(2.5))]).index == 2  # NumPy scalars are strong
    assert select_loop("f", loops, [i1, Scalar(True)]).index == 0
    # only Python scalars: NumPy's default types (bool, int64), and int64 -> float64 is safe
    assert select_loop("f", loops, [Scalar(True), Scalar(1)]).index == 2


# ---- errors at decoration --------------------------------------------------------------------


def test_vectorize_needs_eager_signatures():
    with pytest.raises(TypeError, match="needs eager signatures"):
        numba.vectorize(target="cuda")(_rel)


def test_vectorize_rejects_array_signatures():
    with pytest.raises(UfuncTypeError, match="scalar types.*guvectorize"):
        numba.vectorize(["float64(float64[:])"], target="cuda")(lambda a: a[0])


def test_vectorize_rejects_unsupported_types():
    with pytest.raises(UfuncTypeError, match="scalar types"):
        numba.vectorize(["unicode_type(unicode_type)"], target="cuda")(lambda s: s)


def test_vectorize_signatures_must_agree_on_arity():
    with pytest.raises(TypeError, match="needs 2 arguments"):
        numba.vectorize(["float64(float64, float64)", "float32(float32)"], target="cuda")(_rel)


def test_vectorize_rejects_unknown_options_and_cache():
    with pytest.raises(TypeError, match="does not support the option.*fancy"):
        numba.vectorize(["float64(float64)"], target="cuda", fancy=True)(lambda a: a)
    with pytest.raises(TypeError, match="cache=True"):
        numba.vectorize(["float64(float64)"], target="cuda", cache=True)(lambda a: a)
    numba.vectorize(["float64(float64)"], target="cuda", nopython=True)(lambda a: a)


def test_typing_errors_show_at_decoration():
    def bad(a):
        return a.no_such_attribute

    with pytest.raises(TypingError, match="no_such_attribute"):
        numba.vectorize(["float64(float64)"], target="cuda")(bad)


def test_guvectorize_errors():
    with pytest.raises(TypeError, match="needs eager signatures"):
        numba.guvectorize("(n)->(n)", target="cuda")(lambda a, b: None)
    with pytest.raises(TypeError, match="has 2 arguments, the layout"):
        numba.guvectorize(["void(float64[:], float64[:])"], "(n),(n)->(n)",
                          target="cuda")(lambda a, b, c: None)
    with pytest.raises(TypeError, match="has 2 dimension.*gives it 1"):
        numba.guvectorize(["void(float64[:,:], float64[:])"], "(n)->(n)",
                          target="cuda")(lambda a, b: None)
    with pytest.raises(TypeError, match="outputs are arrays"):
        numba.guvectorize(["void(float64[:], float64)"], "(n)->()",
                          target="cuda")(lambda a, b: None)
    with pytest.raises(TypeError, match="return nothing"):
        numba.guvectorize(["float64(float64[:], float64[:])"], "(n)->(n)",
                          target="cuda")(lambda a, b: None)
    with pytest.raises(ValueError, match="invalid gufunc layout"):
        numba.guvectorize(["void(float64[:], float64[:])"], "(n)->>(n)",
                          target="cuda")(lambda a, b: None)
    with pytest.raises(TypeError, match="writable_args"):
        numba.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)", target="cuda",
                          writable_args=(0,))(lambda a, b: None)


# ---- errors at call time (before anything touches a GPU) -------------------------------------


def test_call_errors_before_any_device_work():
    rel = make_rel()
    with pytest.raises(TypeError, match="takes 2 input argument"):
        rel(np.ones(3))
    with pytest.raises(TypeError, match="unexpected keyword.*where"):
        rel(np.ones(3), np.ones(3), where=True)
    with pytest.raises(UfuncTypeError, match="no signature accepting"):
        rel(np.ones(3, np.complex128), np.ones(3))
    with pytest.raises(ValueError, match="shape mismatch|broadcast"):
        rel(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="out has shape"):
        rel(np.ones(3), np.ones(3), out=np.empty(4))
    with pytest.raises(UfuncTypeError, match="cannot store"):
        rel(np.ones(3), np.ones(3), out=np.empty(3, np.int32))

    matmul = make_matmul()
    with pytest.raises(ValueError, match="core dimension 'n' is 3 elsewhere but 4"):
        matmul(np.ones((2, 3), np.float32), np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match="at least 2"):
        matmul(np.ones(3, np.float32), np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match="takes 2 inputs"):
        matmul(np.ones((2, 2), np.float32))
    with pytest.raises(UfuncTypeError, match="no signature accepting"):
        matmul(np.ones((2, 2), np.complex64), np.ones((2, 2), np.float32))


def test_reduce_argument_errors():
    reducer = cuda.reduce(lambda a, b: a + b)
    with pytest.raises(ValueError, match="1-D arrays"):
        reducer(np.ones((2, 2)))
    with pytest.raises(TypeError, match="numeric arrays"):
        reducer(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="larger than the array"):
        reducer(np.ones(3), size=4)
    with pytest.raises(TypeError, match="binary function"):
        cuda.reduce(3)
    assert reducer(np.zeros(0, np.int8), init=7) == 7   # empty: init, no device work
    assert isinstance(reducer(np.zeros(0, np.int8), init=7), np.int8)
