"""CUDA vector types on the host: the Python classes ``float32x4``, ``int2`` ... (88 names with
the C aliases), whose values can be built on the host and passed to kernels.  Typed and lowered
by ``numba_cuda.lang.vectortypes``, public through ``numba_cuda.lang.stubs``."""

_VECTOR_FIELDS = ("x", "y", "z", "w")
#: base type name -> C spellings used as aliases (``float4`` is ``float32x4``; long is 64-bit)
_VECTOR_BASES = {
    "int8": ("char",), "int16": ("short",), "int32": ("int",), "int64": ("long", "longlong"),
    "uint8": ("uchar",), "uint16": ("ushort",), "uint32": ("uint",),
    "uint64": ("ulong", "ulonglong"), "float32": ("float",), "float64": ("double",),
}


class VectorValue:
    """Base of the CUDA vector types (``float32x4`` ...).

    Calling a vector type builds a value: in a kernel (components from scalars and smaller vectors
    whose sizes add up, or one scalar for every component), or on the host, where the value can be
    passed to a kernel as an argument.  Components are read as ``.x``, ``.y``, ``.z``, ``.w``.
    """

    __slots__ = ()
    base_type = None  # the NumPy scalar type of the components
    num_elements = 0

    def __init__(self, *values):
        flat = []
        for value in values:
            if isinstance(value, VectorValue):
                flat.extend(value)
            else:
                flat.append(value)
        if len(flat) == 1:
            flat = flat * self.num_elements
        if len(flat) != self.num_elements:
            raise TypeError(f"{type(self).__name__} takes {self.num_elements} components "
                            f"(scalars or vectors), got {len(flat)}")
        for field, value in zip(self.__slots__, flat):
            object.__setattr__(self, field, self.base_type(value))

    def __setattr__(self, name, value):
        object.__setattr__(self, name, self.base_type(value))

    def __iter__(self):
        return iter([getattr(self, f) for f in self.__slots__])

    def __eq__(self, other):
        return type(self) is type(other) and tuple(self) == tuple(other)

    __hash__ = None

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(repr(v.item()) for v in self)})"

    @property
    def _numba_type_(self):
        """The value's Numba type, so that it can be a kernel argument."""
        from .vectortype_model import numba_type_of

        return numba_type_of(type(self))


def _vector_types():
    import numpy as np

    made = {}
    for base, aliases in _VECTOR_BASES.items():
        for n in range(1, 5):
            name = f"{base}x{n}"
            cls = type(name, (VectorValue,), {
                "__slots__": _VECTOR_FIELDS[:n], "__module__": "numba.cuda",
                "base_type": getattr(np, base), "num_elements": n,
                "aliases": tuple(f"{alias}{n}" for alias in aliases),
                "__doc__": f"CUDA vector type of {n} {base} component(s) "
                           f"({', '.join(_VECTOR_FIELDS[:n])}); C names: "
                           f"{', '.join(a + str(n) for a in aliases)}.",
            })
            made[name] = cls
            for alias in aliases:
                made[f"{alias}{n}"] = cls
    return made


#: public name -> vector type (aliases included)
VECTOR_TYPES = _vector_types()
