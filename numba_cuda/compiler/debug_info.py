"""Debug information of CUDA modules: Numba's ``DIBuilder`` with module flags that link.

Numba marks ``Dwarf Version`` / ``Debug Info Version`` with the *Warning* merge behaviour (2);
the LTO-IR NVRTC makes from CUDA C/C++ (always, with or without ``-G``) marks
``Debug Info Version`` with *Error* (1), and LLVM refuses to link modules whose behaviours for
one flag differ ("IDs have conflicting behaviors"), so ``debug``/``lineinfo`` kernels could not
be linked with ``.cu`` files under ``lto=True``.  CUDA modules use *Error* for both flags.
"""

from numba.core import cgutils
from numba.core.debuginfo import DIBuilder

#: LLVM module-flag merge behaviour "Error": every linked module must agree on the value.
MODULE_FLAG_ERROR = 1


class CUDADIBuilder(DIBuilder):
    def _set_module_flags(self):
        module = self.module
        flags = cgutils.get_or_insert_named_metadata(module, "llvm.module.flags")
        values = [("Debug Info Version", self.DEBUG_INFO_VERSION)]
        if self.DWARF_VERSION is not None:
            values.insert(0, ("Dwarf Version", self.DWARF_VERSION))
        for name, value in values:
            node = module.add_metadata([self._const_int(MODULE_FLAG_ERROR), name,
                                        self._const_int(value)])
            if node not in flags.operands:
                flags.add(node)
