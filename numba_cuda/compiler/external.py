"""External device functions (``cuda.declare_device``): typed from the declared signature, lowered
to a call of the external symbol with Numba's device ABI (``i32 name(ret*, args...)``, the
default ``abi="numba"``) or the C ABI (``ret name(args...)``, ``abi="c"``: see
:mod:`.callconv`); the files given with ``link=`` travel to the runtime as the kernel's
``link_files``.  ``use_cooperative=True`` declares that the function synchronises the grid
(cooperative groups in the linked code): a kernel calling it is launched cooperatively.

A compiler-owned kernel-language family: defines ``typing_registry`` and ``lowering_registry``.
"""

from llvmlite import ir

from numba.core import imputils, types
from numba.core.typing import signature as make_signature
from numba.core.typing import templates

typing_registry = templates.Registry()
lowering_registry = imputils.Registry("numba_cuda.external")


#: The ABIs an external device function can be called with.
ABIS = ("numba", "c")


class ExternalDeviceFunction:
    """Returned by ``cuda.declare_device(name, sig, link=None, use_cooperative=False,
    abi="numba")``; callable inside kernels.  ``name``, ``sig``, ``link``, ``abi`` and
    ``use_cooperative`` are what was declared.  (``numba.cuda.compiler.ExternFunction``, the
    class's name in NVIDIA's numba-cuda, is this class.)"""

    def __init__(self, name, return_type, argtypes, link, use_cooperative=False, abi="numba"):
        if abi not in ABIS:
            raise NotImplementedError(f"Unsupported ABI: {abi!r} (declare_device's abi must be "
                                      f"'numba' or 'c')")
        self.name = name
        self.sig = make_signature(return_type, *argtypes)
        self.link = link
        self.abi = abi
        self.use_cooperative = bool(use_cooperative)
        template = type(
            f"ExternalDeviceFunction_{name}",
            (templates.ConcreteTemplate,),
            {"key": self, "cases": [self.sig]},
        )
        self._type = types.Function(template)
        typing_registry.register_global(self, self._type)
        lowering_registry.lower(self, *argtypes)(self._lower)

    @property
    def _numba_type_(self):
        return self._type

    def call_conv(self, context):
        """The call convention this function is called with."""
        if self.abi == "c":
            from .callconv import CUDACABICallConv

            return CUDACABICallConv(context)
        return context.call_conv

    def _lower(self, context, builder, sig, args):
        module = builder.module
        call_conv = self.call_conv(context)
        fnty = call_conv.get_function_type(self.sig.return_type, self.sig.args)
        fn = module.globals.get(self.name)
        if fn is None:
            fn = ir.Function(module, fnty, self.name)
        elif fn.function_type != fnty:
            raise TypeError(
                f"external device function {self.name} is declared twice with different "
                f"types in one kernel ({fn.function_type} and {fnty}): declare it once, with "
                "one signature and one abi")
        library = context.active_code_library
        for path in self.link:
            library.add_linking_file(path)
        if self.use_cooperative:
            from ..lang.cg import LIBRARY_FLAG

            setattr(library, LIBRARY_FLAG, True)  # the kernel is launched cooperatively
        status, result = call_conv.call_function(
            builder, fn, self.sig.return_type, self.sig.args, args
        )
        return result

    def __call__(self, *args, **kwargs):
        raise TypeError(f"external device function {self.name} can only be called from CUDA kernels")

    def __repr__(self):
        return f"<external CUDA device function {self.name}{self.sig}>"
