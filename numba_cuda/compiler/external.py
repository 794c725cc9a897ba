"""External device functions (``cuda.declare_device``): typed from the declared signature, lowered
to a call of the external symbol with Numba's device ABI (``i32 name(ret*, args...)``); the files
given with ``link=`` travel to the runtime as the kernel's ``link_files``.

A compiler-owned kernel-language family: defines ``typing_registry`` and ``lowering_registry``.
"""

from llvmlite import ir

from numba.core import imputils, types
from numba.core.typing import signature as make_signature
from numba.core.typing import templates

typing_registry = templates.Registry()
lowering_registry = imputils.Registry("numba_cuda.external")


class ExternalDeviceFunction:
    """Returned by ``cuda.declare_device(name, sig, link=None)``; callable inside kernels."""

    def __init__(self, name, return_type, argtypes, link):
        self.name = name
        self.sig = make_signature(return_type, *argtypes)
        self.link = link
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

    def _lower(self, context, builder, sig, args):
        module = builder.module
        fnty = context.call_conv.get_function_type(self.sig.return_type, self.sig.args)
        fn = module.globals.get(self.name)
        if fn is None:
            fn = ir.Function(module, fnty, self.name)
        library = context.active_code_library
        for path in self.link:
            library.add_linking_file(path)
        status, result = context.call_conv.call_function(
            builder, fn, self.sig.return_type, self.sig.args, args
        )
        return result

    def __call__(self, *args, **kwargs):
        raise TypeError(f"external device function {self.name} can only be called from CUDA kernels")

    def __repr__(self):
        return f"<external CUDA device function {self.name}{self.sig}>"
