"""Every failure is a clear exception (never a dead process); risky ones run in subprocesses."""

import pytest
from numba import float64, int64, types, void
from numba.core.errors import LoweringError, NumbaError, TypingError, UnsupportedError

CC = (8, 0)
THIS_FILE = "test_compile_errors.py"


# ---- unsupported constructs -------------------------------------------------------------------
def _list_kernel(a):
    values = [1, 2, 3]
    a[0] = values[1]


def _dict_kernel(a):
    d = {1: 2}
    a[0] = d[1]


def _set_kernel(a):
    s = {a[0], a[1]}
    a[0] = len(s)


def _list_comprehension_kernel(a):
    a[0] = sum([x for x in range(3)])


def _str_kernel(a):
    a[0] = len(str(a[1]))


def _bad_setitem_kernel(a):
    a[0] = "text"


def _undefined_name_kernel(a):
    a[0] = not_defined_anywhere  # noqa: F821


@pytest.mark.parametrize(
    "fn, error, pattern",
    [
        (_list_kernel, UnsupportedError, r"lists are not supported in CUDA kernels \(they need "
                                         r"dynamic memory allocation\); use tuples, "
                                         r"cuda\.local\.array or arrays passed as arguments"),
        (_list_comprehension_kernel, UnsupportedError, "lists are not supported in CUDA kernels"),
        (_dict_kernel, UnsupportedError, r"dicts are not supported in CUDA kernels \(they need "
                                         r"dynamic memory allocation\); use tuples"),
        (_set_kernel, UnsupportedError, "sets are not supported in CUDA kernels"),
        (_str_kernel, TypingError, "str"),
        (_bad_setitem_kernel, TypingError, "setitem"),
        (_undefined_name_kernel, TypingError, "not_defined_anywhere"),
    ],
    ids=["list", "list-comprehension", "dict", "set", "str", "bad-setitem", "undefined-name"],
)
def test_unsupported_constructs_name_file_and_line(cuda, fn, error, pattern):
    with pytest.raises(error, match=pattern) as info:
        cuda.compile_ptx(fn, (int64[::1],), cc=CC)
    assert THIS_FILE in str(info.value)


def test_container_literals_are_refused_before_typing_at_their_line(cuda):
    with pytest.raises(UnsupportedError) as info:
        cuda.compile_ptx(_dict_kernel, (int64[::1],), cc=CC)
    message = str(info.value)
    assert f"line {_dict_kernel.__code__.co_firstlineno + 1}" in message
    assert "d = {1: 2}" in message  # the source line is shown
    # refused by the early check, not by Numba's typing of the dict
    assert "DictType" not in message and "getitem" not in message
    assert "nopython frontend" not in message


def test_containers_made_after_the_check_are_still_refused_at_lowering():
    from numba_cuda.compiler.target import cuda_target

    context = cuda_target.target_context
    for hook, what in ((context.build_list, "lists"), (context.build_set, "sets")):
        with pytest.raises(LoweringError, match=f"{what} are not supported in CUDA kernels"):
            hook(None, None, ())
    with pytest.raises(LoweringError, match="dicts are not supported in CUDA kernels"):
        context.build_map(None, None, (), ())


# ---- wrong signatures ---------------------------------------------------------------------------
def _two_args(a, b):
    a[0] = b


def test_signature_arity_mismatch(cuda):
    with pytest.raises(TypeError, match="1 argument types given, but function takes 2"):
        cuda.compile_ptx(_two_args, (int64[::1],), cc=CC)


def test_signature_with_unknown_type_name(cuda):
    with pytest.raises(NameError, match="nosuchtype"):
        cuda.compile_ptx(_two_args, "void(int64[::1], nosuchtype)", cc=CC)


def test_kernel_with_a_return_value(cuda):
    def returns(a):
        return a[0]

    # Numba's wording ("must have void return type"), which its tests match
    with pytest.raises(TypeError, match="a CUDA kernel must have void return type, but .*returns"):
        cuda.compile_ptx(returns, (int64[::1],), cc=CC)
    with pytest.raises(TypeError, match="must have void return type"):
        cuda.jit("int64(int64[::1])")(returns)


def test_argument_types_that_do_not_fit_the_code(cuda):
    with pytest.raises(TypingError):
        cuda.compile_ptx(_two_args, (int64[::1], types.UniTuple(float64, 2)), cc=CC)


def test_eager_kernel_rejects_unknown_argument_types(cuda):
    import numpy as np

    k = cuda.jit(void(float64[::1], float64))(_two_args)
    with pytest.raises(TypeError, match="no compiled signature matches"):
        k.kernel_for((types.unicode_type, float64))
    with pytest.raises(TypeError, match="cannot pass an argument of type object"):
        k.typeof_argument(object())
    assert k.kernel_for((types.Array(float64, 1, "C"), types.float64)) is not None
    assert np  # numpy arrays are typed without a GPU
    assert k.typeof_argument(np.zeros(3))[1] == types.Array(float64, 1, "C")


# ---- compute capabilities ----------------------------------------------------------------------------
def test_bad_cc_lists_supported_ones(cuda):
    from numba_cuda.compiler.capability import UnsupportedCCError

    with pytest.raises(UnsupportedCCError, match=r"9\.9 is not supported .* supported: .*7\.5, 8\.0"):
        cuda.compile_ptx(_two_args, (int64[::1], int64), cc=(9, 9))


def test_cc_below_nvvm_minimum(cuda, cuda_major):
    from numba_cuda.compiler.capability import UnsupportedCCError

    if cuda_major == 12:
        ptx, _ = cuda.compile_ptx(_two_args, (int64[::1], int64), cc=(5, 0))
        assert ".target sm_50" in ptx
    else:
        with pytest.raises(UnsupportedCCError, match="5.0 is not supported"):
            cuda.compile_ptx(_two_args, (int64[::1], int64), cc=(5, 0))


@pytest.mark.parametrize("cc", ["nine", (9,), (1, 2, 3, 4), None.__class__])
def test_malformed_cc(cuda, cc):
    from numba_cuda.compiler.capability import UnsupportedCCError

    with pytest.raises(UnsupportedCCError, match="malformed"):
        cuda.compile_ptx(_two_args, (int64[::1], int64), cc=cc)


@pytest.mark.parametrize("cc", [(8.6, 0), (7.5, 0), (8, 6.0), (True, 0), ("8", "6"), (-8, 0), 8.6])
def test_non_integer_cc_is_refused_not_truncated(cuda, cc):
    # (8.6, 0) once became (8, 0) silently; (7.5, 0) was reported as "7.0 not supported".
    from numba_cuda.compiler.capability import UnsupportedCCError

    with pytest.raises(UnsupportedCCError, match=r"malformed.*two integers.*\(8, 6\) for 8\.6"):
        cuda.compile_ptx(_two_args, (int64[::1], int64), cc=cc)


def test_numpy_integer_cc_is_accepted():
    import numpy as np

    from numba_cuda.compiler.capability import normalize

    assert normalize((np.int64(8), np.int32(6))) == (8, 6)


def test_cc_spellings_are_normalised():
    from numba_cuda.compiler.capability import normalize

    assert normalize("sm_90") == (9, 0)
    assert normalize("compute_90a") == (9, 0, "a")
    assert normalize("8.6") == (8, 6)
    assert normalize((12, 0)) == (12, 0)


# ---- libNVVM errors --------------------------------------------------------------------------------
def test_nvvm_error_carries_the_log():
    from numba_cuda.compiler import nvvm
    from numba_cuda.errors import NvvmError

    with pytest.raises(NvvmError) as info:
        nvvm.compile_ir([("broken", "this is not IR")], "compute_80")
    text = str(info.value)
    assert "libNVVM failed" in text and "error" in text.lower()


def test_unsupported_intrinsic_becomes_nvvm_error_not_abort(run_python):
    proc = run_python(
        """
        from llvmlite import ir
        from numba import cuda, float64, types
        from numba.extending import intrinsic
        from numba_cuda.errors import NvvmError

        @intrinsic(target="cuda")
        def llvm_sin(typingctx, x):
            def codegen(context, builder, sig, args):
                fnty = ir.FunctionType(ir.DoubleType(), [ir.DoubleType()])
                fn = ir.Function(builder.module, fnty, "llvm.sin.f64")
                return builder.call(fn, args)
            return types.float64(types.float64), codegen

        def k(a):
            a[0] = llvm_sin(a[1])

        try:
            cuda.compile_ptx(k, (float64[::1],), cc=(8, 0))
        except NvvmError as exc:
            print("NVVM-ERROR", str(exc).splitlines()[0])
        else:
            print("COMPILED")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "NVVM-ERROR" in proc.stdout or "COMPILED" in proc.stdout


def test_missing_nvvm_is_a_toolkit_error(run_python):
    proc = run_python(
        """
        from numba import cuda, int64
        from numba_cuda.errors import ToolkitError

        def k(a):
            a[0] = 1

        try:
            cuda.compile_ptx(k, (int64[::1],), cc=(8, 0))
        except ToolkitError as exc:
            print("TOOLKIT-ERROR")
            print(exc)
        """,
        env={"NUMBA_CUDA_DISABLE_SOURCES": "all"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "TOOLKIT-ERROR" in proc.stdout
    assert "nvvm" in proc.stdout.lower()


def test_errors_are_numba_errors_or_cuda_errors(cuda):
    # a broad guard: user-facing failures are our or Numba's exception types
    from numba_cuda.errors import CudaError

    def k(a):
        a[0] = a.nosuchattr

    with pytest.raises((NumbaError, CudaError)):
        cuda.compile_ptx(k, (int64[::1],), cc=CC)
