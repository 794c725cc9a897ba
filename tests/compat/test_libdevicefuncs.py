"""numba.cuda.libdevicefuncs: Numba's layout of the libdevice table (Numba's suite builds its
libdevice compile tests from it)."""

from numba.core import types

from numba_cuda import libdevice, libdevicefuncs


def test_every_entry_is_callable_through_cuda_libdevice():
    assert len(libdevicefuncs.functions) > 300
    for name in libdevicefuncs.functions:
        assert name.startswith("__nv_")
        assert hasattr(libdevice, name[len("__nv_"):]), name


def test_scalar_signature():
    retty, args = libdevicefuncs.functions["__nv_atan2"]
    assert retty == types.float64
    assert [a.is_ptr for a in args] == [False, False]
    sig = libdevicefuncs.create_signature(retty, args)
    assert sig.return_type == types.float64
    assert sig.args == (types.float64, types.float64)


def test_out_pointers_become_a_returned_tuple():
    retty, args = libdevicefuncs.functions["__nv_frexp"]
    assert [(a.ty, a.is_ptr) for a in args] == [(types.float64, False), (types.int32, True)]
    sig = libdevicefuncs.create_signature(retty, args)
    assert sig.return_type == types.Tuple((types.float64, types.int32))
    assert sig.args == (types.float64,)
    # void functions return only their out-pointers
    sig = libdevicefuncs.create_signature(*libdevicefuncs.functions["__nv_sincos"])
    assert sig.return_type == types.UniTuple(types.float64, 2)


def test_string_taking_functions_are_left_out():
    assert "__nv_nan" not in libdevicefuncs.functions
