"""The call conventions of CUDA device code.

* :class:`CUDACallConv` -- Numba's device ABI, ``i32 status f(ret*, args...)``: what compiled
  device functions use, and ``cuda.declare_device(..., abi="numba")`` functions (the default).
* :class:`CUDACABICallConv` -- the C ABI, ``ret f(args...)`` (``void f(args...)`` for a
  ``void`` return): how ``cuda.declare_device(..., abi="c")`` functions are called.  The value
  comes back directly; there is no status, so nothing can be raised through it.

NVIDIA's numba-cuda keeps them in its copy of Numba's ``numba.core.callconv``: here
``numba.cuda.core.callconv`` is Numba's module itself, which gains these two names when it is
imported by that path (``numba_cuda.compat.table.ADDED_NAMES``).
"""

from llvmlite import ir
from numba.core import errors, types
from numba.core.callconv import BaseCallConv, MinimalCallConv


class CUDACallConv(MinimalCallConv):
    """``i32 status f(ret*, args...)``; exceptions become status codes with process-wide unique
    ids, recorded per code library; kernels ignore them, or report them on the host when
    compiled with ``debug=True``/``boundscheck=True`` (see ``device_errors``)."""

    def _make_call_helper(self, builder):
        from .device_errors import CUDACallHelper

        try:
            library = self.context.active_code_library
        except IndexError:
            library = None
        return CUDACallHelper(library)

    def return_user_exc(self, builder, exc, exc_args=None, loc=None, func_name=None):
        if loc is None:
            # Numba's bounds checks give no location: use the line being lowered.
            helper = self._get_call_helper(builder)
            locinfo = helper.current_locinfo(func_name)
            if locinfo is not None:
                if exc is not None and not issubclass(exc, BaseException):
                    raise TypeError(f"exc should be None or an exception class, got {exc!r}")
                exc_id = helper._add_exception(exc, exc_args, locinfo)
                self._return_errcode_raw(builder, ir.Constant(ir.IntType(32), exc_id))
                return
        super().return_user_exc(builder, exc, exc_args, loc=loc, func_name=func_name)

    def return_dynamic_user_exc(self, builder, exc, exc_args, nb_types, loc=None, func_name=None):
        """``raise E(value)`` with run-time values: the values stay on the device; the report
        names their types."""
        from .device_errors import runtime_value_placeholder

        static = tuple(arg if ty is None else runtime_value_placeholder(ty)
                       for arg, ty in zip(exc_args, nb_types))
        self.return_user_exc(builder, exc, static, loc=loc, func_name=func_name)


class CUDACABICallConv(BaseCallConv):
    """``ret f(args...)``: the C ABI of CUDA C/C++ ``extern "C" __device__`` functions.

    Arguments are passed as Numba's argument packer flattens them (numbers, pointers and
    records as themselves; an array as its members), the return value directly (LLVM
    ``void`` for a ``void`` return).  No status and no exceptions: raising through a C-ABI
    call is refused with :class:`numba.core.errors.UnsupportedError`.
    """

    def _make_call_helper(self, builder):
        return None

    def get_return_type(self, ty):
        if ty is None or ty == types.none:
            return ir.VoidType()
        return self.context.data_model_manager[ty].get_return_type()

    def get_function_type(self, restype, argtypes):
        arginfo = self._get_arg_packer(argtypes)
        return ir.FunctionType(self.get_return_type(restype), list(arginfo.argument_types))

    def get_arguments(self, func):
        return func.args

    def decorate_function(self, fn, args, fe_argtypes, noalias=False):
        arginfo = self._get_arg_packer(fe_argtypes)
        arginfo.assign_names(self.get_arguments(fn), ["arg." + a for a in args])

    def return_value(self, builder, retval):
        if isinstance(builder.function.function_type.return_type, ir.VoidType):
            return builder.ret_void()
        return builder.ret(retval)

    def return_user_exc(self, builder, exc, exc_args=None, loc=None, func_name=None):
        raise errors.UnsupportedError(
            f"raising {getattr(exc, '__name__', exc)} in code called with the C ABI: a C-ABI "
            "function has no status to carry an exception (use abi='numba')", loc)

    def return_status_propagate(self, builder, status):
        pass  # a C-ABI function has no status to propagate

    def call_function(self, builder, callee, resty, argtys, args):
        """Call ``callee`` with the C ABI: ``(None, value)`` (no status)."""
        arginfo = self._get_arg_packer(argtys)
        code = builder.call(callee, arginfo.as_arguments(builder, args))
        if isinstance(callee.function_type.return_type, ir.VoidType):
            return None, self.context.get_dummy_value()
        return None, self.context.get_returned_value(builder, resty, code)
