"""``numba.cuda.extending``: the extension API for CUDA kernels.

What a third-party package imports to teach kernels new functions, methods, attributes and
types.  It is Numba's own extension API (:mod:`numba.core.extending`), with the
target-selecting decorators defaulting to ``target="cuda"``:

* ``overload``, ``overload_method``, ``overload_attribute``, ``overload_classmethod``,
  ``intrinsic`` -- registered for the CUDA target only (pass ``target=`` to choose another);
  implementations are compiled as CUDA device functions.
* ``register_jitable`` -- a Python function usable on every target, kernels included.
* Types and data models: ``types``, ``models``, ``register_model``, ``make_attribute_wrapper``,
  ``typeof_impl``, ``as_numba_type``, ``type_callable``, ``infer``, ``infer_global``,
  ``infer_getattr``, ``signature``, ``AttributeTemplate``, ``AbstractTemplate``,
  ``ConcreteTemplate``, ``CallableTemplate``.
* Lowering: ``lower_builtin``, ``lower_getattr``, ``lower_getattr_generic``, ``lower_setattr``,
  ``lower_setattr_generic``, ``lower_cast``, ``lower_constant``.  These fill Numba's builtin
  lowering registry, which the CUDA target context installs; keep CUDA-only code generation
  (inline PTX, NVVM intrinsics) behind typing that only CUDA code reaches, or use
  ``intrinsic``, which is CUDA-only.

This works because numba-cuda owns Numba's ``cuda`` target slot (``target_registry["cuda"]``,
its dispatcher and jit registries): ``target="cuda"`` here and in :mod:`numba.core.extending`
are the same thing.  Host-side boxing (``box``/``unbox``/``NativeValue``) plays no part in
CUDA kernels (they receive arguments through the CUDA data model, not Python objects); the
names are re-exported from Numba because NVIDIA's ``numba.cuda.extending`` has them, for
extensions that also register CPU boxing.
"""

from numba.core import types
from numba.core.datamodel import models  # noqa: F401
from numba.core.datamodel import models as core_models  # noqa: F401  (NVIDIA's name for them)
from numba.core import extending as _core
from numba.core.extending import (  # noqa: F401
    NativeValue,
    as_numba_type,
    box,
    infer,
    infer_getattr,
    lower_builtin,
    lower_cast,
    lower_getattr,
    lower_getattr_generic,
    lower_setattr,
    lower_setattr_generic,
    make_attribute_wrapper,
    register_jitable,
    register_model,
    sentry_literal_args,
    type_callable,
    typeof_impl,
    unbox,
)
from numba.core.imputils import lower_constant  # noqa: F401
from numba.core.typing import signature  # noqa: F401
from numba.core.typing.templates import (  # noqa: F401
    AbstractTemplate,
    AttributeTemplate,
    CallableTemplate,
    ConcreteTemplate,
    infer_global,
)

#: The target name these decorators register for by default.
TARGET = "cuda"


def _ensure_target():
    # The target must be registered (dispatcher and jit registries filled) before a
    # target="cuda" overload is used; the dispatch layer does it.
    from .dispatch.registration import ensure_registered

    ensure_registered()


def overload(func, jit_options=None, strict=True, inline="never", prefer_literal=False, **kwargs):
    """``numba.core.extending.overload`` for kernels: ``target`` defaults to ``"cuda"``."""
    _ensure_target()
    kwargs.setdefault("target", TARGET)
    return _core.overload(func, jit_options=jit_options or {}, strict=strict, inline=inline,
                          prefer_literal=prefer_literal, **kwargs)


def overload_method(typ, attr, **kwargs):
    """``numba.core.extending.overload_method`` with ``target="cuda"`` by default."""
    _ensure_target()
    kwargs.setdefault("target", TARGET)
    return _core.overload_method(typ, attr, **kwargs)


def overload_classmethod(typ, attr, **kwargs):
    """``numba.core.extending.overload_classmethod`` with ``target="cuda"`` by default."""
    _ensure_target()
    kwargs.setdefault("target", TARGET)
    return _core.overload_classmethod(typ, attr, **kwargs)


def overload_attribute(typ, attr, **kwargs):
    """``numba.core.extending.overload_attribute`` with ``target="cuda"`` by default."""
    _ensure_target()
    kwargs.setdefault("target", TARGET)
    return _core.overload_attribute(typ, attr, **kwargs)


def intrinsic(*args, **kwargs):
    """``numba.core.extending.intrinsic`` for the CUDA target.

    ``@intrinsic`` or ``@intrinsic(prefer_literal=True)``; the generated code is NVVM IR
    (``llvmlite.ir``; inline PTX through ``llvmlite.ir.InlineAsm``).
    """
    _ensure_target()
    kwargs.setdefault("target", TARGET)
    if len(args) == 1 and callable(args[0]) and not isinstance(args[0], str):
        return _core.intrinsic(**kwargs)(args[0])
    if args:
        raise TypeError("intrinsic() takes the function to decorate or keyword options only")
    return _core.intrinsic(**kwargs)


__all__ = [
    "TARGET",
    "overload", "overload_method", "overload_classmethod", "overload_attribute", "intrinsic",
    "register_jitable",
    "types", "models", "register_model", "make_attribute_wrapper", "typeof_impl", "as_numba_type",
    "type_callable", "infer", "infer_global", "infer_getattr", "signature", "sentry_literal_args",
    "AttributeTemplate", "AbstractTemplate", "ConcreteTemplate", "CallableTemplate",
    "lower_builtin", "lower_getattr", "lower_getattr_generic", "lower_setattr",
    "lower_setattr_generic", "lower_cast", "lower_constant",
    "box", "unbox", "NativeValue",
]
