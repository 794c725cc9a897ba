"""Debug information of CUDA modules: Numba's ``DIBuilder``, with what cuda-gdb needs.

* Module flags that link.  Numba marks ``Dwarf Version`` / ``Debug Info Version`` with the
  *Warning* merge behaviour (2); the LTO-IR NVRTC makes from CUDA C/C++ (always, with or without
  ``-G``) marks ``Debug Info Version`` with *Error* (1), and LLVM refuses to link modules whose
  behaviours for one flag differ ("IDs have conflicting behaviors"), so ``debug``/``lineinfo``
  kernels could not be linked with ``.cu`` files under ``lto=True``.  CUDA modules use *Error*
  for both flags.
* Scalar types a debugger can print.  Numba describes every scalar that is not an integer as a
  float: a ``bool`` became an 8-bit float, a ``GridGroup`` (a 64-bit handle) or a
  ``datetime64`` a 64-bit float.  Here a bool is ``DW_ATE_boolean`` named ``bool``, integers
  and integer-like values (handles, dates, enums) are integers, only floating-point values are
  floats (``float16`` included), and a literal's type is its value type (``int64``, not
  ``Literal[int](100)``).
* The function's ``DISubroutineType`` lists its return type (``null`` for a kernel or a function
  returning nothing) and then its parameters' types.  Numba put the type of the Numba-ABI
  return pointer first, where DWARF has the return type.
"""

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.debuginfo import DIBuilder

#: LLVM module-flag merge behaviour "Error": every linked module must agree on the value.
MODULE_FLAG_ERROR = 1

_INTEGER_LIKE = (types.Integer, types.NPDatetime, types.NPTimedelta, types.EnumMember)
_LLVM_FLOATS = (ir.HalfType, ir.FloatType, ir.DoubleType)


class CUDADIBuilder(DIBuilder):
    #: the return type of the function being lowered (set by ``CUDALower.pre_lower``)
    return_type = None

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

    def _var_type(self, lltype, size, datamodel=None):
        fe_type = getattr(datamodel, "fe_type", None)
        if isinstance(fe_type, types.Literal):
            value_type = types.unliteral(fe_type)
            if value_type is not fe_type:  # (stored as its value type is)
                datamodel = self.cgctx.data_model_manager[value_type]
                fe_type = value_type
        if fe_type is None or not isinstance(lltype, (ir.IntType,) + _LLVM_FLOATS):
            return super()._var_type(lltype, size, datamodel=datamodel)
        if isinstance(fe_type, types.Boolean):
            encoding = "DW_ATE_boolean"
        elif isinstance(lltype, _LLVM_FLOATS):
            encoding = "DW_ATE_float"
        elif isinstance(fe_type, types.Integer):
            encoding = "DW_ATE_signed" if fe_type.signed else "DW_ATE_unsigned"
        elif isinstance(fe_type, _INTEGER_LIKE):
            encoding = "DW_ATE_signed"
        else:  # a handle or another opaque integer (GridGroup ...)
            encoding = "DW_ATE_unsigned"
        return self.module.add_debug_info("DIBasicType", {
            "name": str(fe_type),
            "size": 8 * size,
            "encoding": ir.DIToken(encoding),
        })

    def _type_of(self, nbtype):
        """The debug type of a value of Numba type ``nbtype``."""
        lltype = self.cgctx.get_value_type(nbtype)
        return self._var_type(lltype, self.cgctx.get_abi_sizeof(lltype),
                              datamodel=self.cgctx.data_model_manager[nbtype])

    def _di_subroutine_type(self, line, function, argmap):
        ret = self.return_type
        returns = None if ret is None or ret in (types.none, types.void) else self._type_of(ret)
        md = [returns] + [self._type_of(nbtype) for nbtype in argmap.values()]
        return self.module.add_debug_info("DISubroutineType", {
            "types": self.module.add_metadata(md),
        })
