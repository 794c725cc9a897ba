"""CUDA vector types (``cuda.float32x4``, ``cuda.int2`` ...) as values in kernels and as kernel arguments.

Every ``<base>x<n>`` for base int8/16/32/64, uint8/16/32/64, float32/64 and n = 1..4 exists, with
the C spellings as aliases (``char``, ``short``, ``int``, ``long``/``longlong`` = int64, ``uchar``
... ``float``, ``double``: ``float4`` *is* ``float32x4``).  The Python classes live in
``numba_cuda.lang.vector_values``; this module types and lowers them.

* Construction: ``float32x4(a, b, c, d)``, or from smaller vectors and scalars whose sizes add up
  (``float32x4(v2, z, w)``), or from one scalar copied into every component; components are
  converted to the base type as a cast would.
* Components are read as ``.x``, ``.y``, ``.z``, ``.w``; they are read-only (assigning one is a
  LoweringError naming the line), as in Numba's CUDA target.
* A value is an LLVM struct of its components; as a kernel argument it is passed component by
  component.  On the host, ``cuda.float32x4(1, 2, 3, 4)`` builds a value to pass (``kernel[1, 1](v)``);
  a vector from the host can also be captured by a kernel as a constant.
"""

import functools

from llvmlite import ir
from numba.core import cgutils, errors, types
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AbstractTemplate, AttributeTemplate, Registry as TypingRegistry
from numba.core.typing.templates import signature

from .vector_values import _VECTOR_FIELDS, VECTOR_TYPES
from .vectortype_model import VectorModel, VectorType, numba_type_of  # noqa: F401

typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.vectortypes")
lower = lowering_registry.lower

FIELDS = _VECTOR_FIELDS


@functools.lru_cache(maxsize=None)
def _types_by_class():
    made = {}
    for cls in VECTOR_TYPES.values():
        if cls not in made:
            made[cls] = numba_type_of(cls)
    return made


def vector_type(name):
    """The Numba type of the vector type called ``name`` (``"float32x4"``, ``"float4"`` ...)."""
    return _types_by_class()[VECTOR_TYPES[name]]


# ---- typing: constructors ----------------------------------------------------------------


def _component_count(qualname, ty):
    if isinstance(ty, VectorType):
        return ty.num_elements
    if isinstance(ty, (types.Number, types.Boolean)):
        return 1
    raise errors.TypingError(f"{qualname}: components must be numbers or vector types, not {ty}")


def _constructor(vty):
    qualname = f"cuda.{vty.name}"

    class VectorConstructor(AbstractTemplate):
        key = vty.pyclass

        def generic(self, args, kws):
            if kws:
                raise errors.TypingError(f"{qualname}() takes no keyword arguments")
            count = sum(_component_count(qualname, a) for a in args)
            if count != vty.num_elements and not (count == 1 and len(args) == 1):
                raise errors.TypingError(
                    f"{qualname} takes {vty.num_elements} component(s) (scalars or vectors whose "
                    f"sizes add up, or one scalar for all), got {count} from {', '.join(map(str, args)) or 'nothing'}"
                )
            return signature(vty, *args)

    typing_registry.register_global(vty.pyclass, types.Function(VectorConstructor))


class _VectorAttributes(AttributeTemplate):
    key = VectorType

    def generic_resolve(self, vty, attr):
        if attr in vty.fields:
            return vty.base_type
        return None


typing_registry.register_attr(_VectorAttributes)


# ---- lowering ----------------------------------------------------------------------------


def _components(context, builder, ty, value):
    """The LLVM values of ``value``'s components, each with its Numba type."""
    if isinstance(ty, VectorType):
        proxy = cgutils.create_struct_proxy(ty)(context, builder, value=value)
        return [(getattr(proxy, f), ty.base_type) for f in ty.fields]
    return [(value, ty)]


def _build(context, builder, vty, parts):
    proxy = cgutils.create_struct_proxy(vty)(context, builder)
    for field, (value, ty) in zip(vty.fields, parts):
        setattr(proxy, field, context.cast(builder, value, ty, vty.base_type))
    return proxy._getvalue()


def _lower_constructor(vty):
    def impl(context, builder, sig, args):
        parts = []
        for ty, value in zip(sig.args, args):
            parts.extend(_components(context, builder, ty, value))
        if len(parts) == 1:
            parts = parts * vty.num_elements
        return _build(context, builder, vty, parts)

    return impl


for _vty in _types_by_class().values():
    _constructor(_vty)
    lower(_vty.pyclass, types.VarArg(types.Any))(_lower_constructor(_vty))


@lowering_registry.lower_getattr_generic(VectorType)
def _lower_component(context, builder, typ, value, attr):
    proxy = cgutils.create_struct_proxy(typ)(context, builder, value=value)
    return getattr(proxy, attr)


@lowering_registry.lower_setattr_generic(VectorType)
def _lower_set_component(context, builder, sig, args, attr):
    raise errors.LoweringError(
        f"components of CUDA vector types are read-only ({sig.args[0]}.{attr} = ...); "
        f"build a new value instead, e.g. {sig.args[0]}(...) from the components you keep"
    )


@lowering_registry.lower_constant(VectorType)
def _lower_constant(context, builder, ty, pyval):
    values = [context.get_constant(ty.base_type, v) for v in pyval]
    return ir.Constant(context.get_value_type(ty), values)
