"""CUDA vector types (``cuda.float32x4``, ``cuda.int2`` ...) in the simulator."""

import numpy as np

_FIELDS = ("x", "y", "z", "w")
_BASES = {
    "int8": ("char",), "int16": ("short",), "int32": ("int",), "int64": ("long", "longlong"),
    "uint8": ("uchar",), "uint16": ("ushort",), "uint32": ("uint",),
    "uint64": ("ulong", "ulonglong"), "float32": ("float",), "float64": ("double",),
}


def _make(base, n):
    scalar = np.dtype(base).type
    fields = _FIELDS[:n]

    def __init__(self, *values):
        flat = []
        for v in values:
            if isinstance(v, _VectorBase):
                flat.extend(getattr(v, f) for f in v.__slots__)
            else:
                flat.append(v)
        if len(flat) == 1:
            flat = flat * n
        if len(flat) != n:
            raise TypeError(f"{type(self).__name__} takes {n} values, got {len(flat)}")
        for f, v in zip(fields, flat):
            object.__setattr__(self, f, scalar(v))

    def __setattr__(self, name, value):
        object.__setattr__(self, name, scalar(value))

    cls = type(f"{base}x{n}", (_VectorBase,), {
        "__slots__": fields, "__init__": __init__, "__setattr__": __setattr__,
        "base_type": scalar, "num_elements": n, "name": f"{base}x{n}", "attr_names": fields,
        "aliases": tuple(f"{alias}{n}" for alias in _BASES[base]),
    })
    cls.user_facing_object = cls  # the vector_types table's entries are the classes themselves
    return cls


class _VectorBase:
    __slots__ = ()

    def __iter__(self):
        return iter(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other):
        return type(self) is type(other) and tuple(self) == tuple(other)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(repr(v) for v in self)})"

    __hash__ = None


#: public name -> vector type, aliases included (``float4`` is ``float32x4``)
VECTOR_TYPES = {}
for _base, _aliases in _BASES.items():
    for _n in range(1, 5):
        _cls = _make(_base, _n)
        VECTOR_TYPES[_cls.__name__] = _cls
        for _alias in _aliases:
            VECTOR_TYPES[f"{_alias}{_n}"] = _cls
