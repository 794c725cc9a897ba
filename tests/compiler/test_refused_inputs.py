"""What ``cuda.jit`` refuses, the compile entry points refuse too, with the same error: generator
and ``async def`` functions; ``declare_device`` refuses host-only types (Python objects, strings,
containers) in its signature, naming the argument."""

import pytest
from numba import cuda, int32, types


async def _coroutine(out):
    out[0] = 1


async def _async_generator(out):
    out[0] = 1
    yield 1


def _generator(out):
    yield out[0]


FUNCTIONS = [
    (_coroutine, "a coroutine function (async def)"),
    (_async_generator, "an async generator function"),
    (_generator, "a generator function (it contains yield)"),
]


@pytest.mark.parametrize("fn, problem", FUNCTIONS, ids=lambda v: getattr(v, "__name__", ""))
def test_cuda_jit_refuses_them(fn, problem):
    with pytest.raises(TypeError, match=f"@cuda.jit cannot compile {fn.__name__}: it is") as info:
        cuda.jit(fn)
    assert problem in str(info.value)


@pytest.mark.parametrize("device", [False, True])
@pytest.mark.parametrize("fn, problem", FUNCTIONS, ids=lambda v: getattr(v, "__name__", ""))
def test_compile_ptx_refuses_them_with_the_same_error(fn, problem, device):
    sig = (int32[:],) if device else "void(int32[:])"
    with pytest.raises(TypeError) as info:
        cuda.compile_ptx(fn, sig, device=device, cc=(7, 5))
    message = str(info.value)
    assert message.startswith(f"cuda.compile_ptx cannot compile {fn.__name__}: it is {problem}")
    assert "run to the end" in message  # cuda.jit's explanation and advice


@pytest.mark.parametrize("fn, problem", FUNCTIONS, ids=lambda v: getattr(v, "__name__", ""))
def test_compile_refuses_them(fn, problem):
    with pytest.raises(TypeError, match=f"cuda.compile cannot compile {fn.__name__}: it is"):
        cuda.compile(fn, (int32[:],), device=True, cc=(7, 5))


# ---- declare_device ---------------------------------------------------------------------------

@pytest.mark.parametrize("sig, where, problem", [
    ("int32(int32[:], pyobject)", "argument 2 is pyobject", "a Python object"),
    ("pyobject(int32)", "the return type is pyobject", "a Python object"),
    ("int32(ffi_forced_object)", "argument 1 is ffi_forced_object", "a Python object"),
    ("int32(unicode_type)", "argument 1 is unicode_type", "a string"),
    ("int32(float32, UniTuple(pyobject, 2))", "argument 2 (UniTuple(pyobject x 2)) holds pyobject",
     "a Python object"),
    (types.int32(types.ListType(types.int64)), "argument 1 is ListType[int64]", "a typed list"),
    (types.int32(types.DictType(types.int64, types.int64)), "argument 1 is DictType", "a dict"),
    (types.int32(types.CPointer(types.unicode_type)), "argument 1 (unicode_type*) holds unicode_type",
     "a string"),
], ids=["pyobject-arg", "pyobject-return", "ffi-object", "string", "tuple", "typed-list", "dict",
        "pointer-to-string"])
def test_declare_device_refuses_host_only_types(sig, where, problem):
    with pytest.raises(TypeError) as info:
        cuda.declare_device("external_fn", sig)
    message = str(info.value)
    assert message.startswith("declare_device('external_fn', ")
    assert where in message and problem in message
    assert "numbers, booleans, arrays, pointers" in message  # what is allowed


@pytest.mark.parametrize("sig", [
    "int32(int32[:], float64, complex64)", "void(int32)", "none(voidptr)", "float32(CPointer(float32))",
    "int64(UniTuple(int32, 3), boolean)", "float64(float64[:, ::1])",
])
def test_declare_device_accepts_device_types(sig):
    fn = cuda.declare_device("external_fn", sig)
    assert "external_fn" in repr(fn)
