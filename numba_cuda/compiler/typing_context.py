"""The CUDA typing context.

Installs Numba's generic typing plus every kernel-language family's ``typing_registry``
(``numba_cuda.lang.FAMILY_MODULES`` and ``numba_cuda.lang.indexing``).  Numba's ``mathdecl`` and
``npydecl`` are deliberately *not* installed: the math family types ``math.*`` itself (lowered to
libdevice), and NumPy ufunc typing would pull in CPU math lowering.

A CPU ``@numba.njit`` dispatcher seen inside a kernel is turned into a CUDA device dispatcher for
the same Python function (cached on the CPU dispatcher), so plain njit helpers are callable from
kernels.
"""

import functools
import importlib
import sys

import numpy as np
from numba.core import errors, types, typing
from numba.core.dispatcher import Dispatcher

from ..lang.stubs import Stub

#: Family modules the compiler always installs (its own), before ``lang.FAMILY_MODULES``.
COMPILER_FAMILIES = ("numba_cuda.lang.indexing", "numba_cuda.compiler.external",
                     "numba_cuda.compiler.arithmetic", "numba_cuda.compiler.array_access",
                     "numba_cuda.compiler.minmax", "numba_cuda.compiler.nrt")


#: Families installed only once their public module has been imported (by user code, or by
#: Numba resolving ``cuda.libdevice`` in a kernel, which happens before any of its functions is
#: typed): the 347 libdevice functions cost ~10 ms to import and install, on the first compile
#: of every process otherwise.  Family module -> the module whose import activates it.
#: The NumPy families are their own triggers: the typing context imports one when a kernel
#: first names what it provides -- a ufunc (``np.sin``; ~30 ms: Numba's ufunc tables and 81
#: templates), a reduction (``np.sum``, ``a.max()``; ~15 ms of overload templates).
_UFUNC_FAMILY = "numba_cuda.lang.numpy_ufuncs"
_REDUCTIONS_FAMILY = "numba_cuda.lang.numpy_reductions"
#: cffi's ``ffi.from_buffer`` waits for ``cffi`` itself (a kernel naming an ``ffi`` imported it).
DEFERRED_FAMILIES = {"numba_cuda.lang.libdevice_calls": "numba_cuda.lang.libdevice_stubs",
                     _UFUNC_FAMILY: _UFUNC_FAMILY, _REDUCTIONS_FAMILY: _REDUCTIONS_FAMILY,
                     "numba_cuda.lang.cffi_buffers": "cffi"}
_pending_triggers = set(DEFERRED_FAMILIES.values())
_NUMPY_UFUNC = np.ufunc


def _reduction_triggers():
    from ..lang.numpy_names import REDUCTION_FUNCTIONS, REDUCTION_METHODS

    functions = {id(getattr(np, name)) for name in REDUCTION_FUNCTIONS if hasattr(np, name)}
    return frozenset(functions), frozenset(REDUCTION_METHODS)


_REDUCTION_FUNCTION_IDS, _REDUCTION_METHOD_NAMES = _reduction_triggers()


def _demand_family(typingctx, family):
    """Import a deferred family a kernel needs now and install it."""
    importlib.import_module(family)
    _activate_deferred_families(typingctx)


def family_modules():
    """Imported kernel-language family modules, compiler-owned ones first, without duplicates.
    (Cached per ``lang.FAMILY_MODULES`` value: contexts refresh very often.)"""
    import sys

    from .. import lang

    listed = tuple(name for name in lang.FAMILY_MODULES
                   if DEFERRED_FAMILIES.get(name, "sys") in sys.modules)
    return _family_modules(listed)


def _activate_deferred_families(typingctx):
    """Refresh the CUDA contexts once a deferred family's trigger module has been imported."""
    import sys

    ready = {name for name in _pending_triggers if name in sys.modules}
    if not ready:
        return
    _pending_triggers.difference_update(ready)
    targetctx = getattr(typingctx, "cuda_target_context", None)  # set by CUDATarget
    if targetctx is None:
        typingctx.refresh()
        return
    from numba.core.target_extension import target_override

    from .numba_registry import TARGET_NAME

    with target_override(TARGET_NAME):
        targetctx.refresh()


@functools.lru_cache(maxsize=4)
def _family_modules(listed):
    names = list(COMPILER_FAMILIES)
    for name in listed:
        if name not in names:
            names.append(name)
    return tuple(importlib.import_module(name) for name in names)


_DEVICE_DISPATCHER_ATTR = "_numba_cuda_device_dispatcher"


def registration_stamp(context):
    """What a ``refresh()`` of ``context`` would read: the kernel-language family list and the
    length of every registration list of every installed registry.  Registries only grow
    (append-only lists streamed by their loaders), so an equal stamp means a refresh would
    install nothing new."""
    key = (family_modules(), len(context._registries))
    cached = context.__dict__.get("_stamp_lists")
    if cached is None or cached[0] != key:
        lists = tuple(getattr(registry, name) for registry, loader in context._registries.items()
                      for name in loader.registry_items)
        context.__dict__["_stamp_lists"] = cached = (key, lists)
    return key, tuple(map(len, cached[1]))


class CUDATypingContext(typing.BaseContext):
    _refreshed_stamp = None

    def __init__(self):
        # Answers of the template searches that depend on nothing but their (interned, hashable)
        # inputs: call signatures, attribute types and each template's best overload.  Every
        # kernel asks the same questions (``cuda.grid(1)``, ``int64 + int64``, ``array.size``
        # ...); Numba re-runs the template search each time.  Dropped whenever a refresh
        # installs anything (see ``_remembered``).
        self._call_signatures = {}
        self._attribute_types = {}
        self._overload_choices = {}
        self._function_call_types = {}
        self._value_types = {}
        super().__init__()

    def refresh(self):
        # Numba refreshes the contexts for every compile and every overload/intrinsic template
        # it initialises (hundreds of times per kernel); skip the refresh when no registry
        # gained an entry since the last one.
        stamp = registration_stamp(self)
        if stamp == self._refreshed_stamp:
            return
        self.forget_answers()
        super().refresh()
        # The stamp from *before* refreshing: whatever was registered meanwhile (templates
        # add lowerings while being installed) makes the next refresh run again.
        self._refreshed_stamp = stamp

    def forget_answers(self):
        """Drop the remembered answers (something new was installed)."""
        self._call_signatures.clear()
        self._attribute_types.clear()
        self._overload_choices.clear()
        self._function_call_types.clear()
        self._value_types.clear()

    # ---- Numba's deferred implementation modules (compiler.deferred_impls) --------------------
    def _pending_deferral(self):
        targetctx = self.__dict__.get("cuda_target_context")
        deferral = getattr(targetctx, "_deferral", None)
        if deferral is None or not deferral.pending or deferral.loading:
            return None
        if deferral.snapshot is None:  # before the eager point: nothing to decide yet
            return None
        return deferral

    def _deferred_call_type(self, deferral, func, args, kws):
        """``resolve_function_type`` while the deferred modules wait: installed first when they
        add templates to a function templates were added to since the eager point (the order
        would differ), or when the function is not typed without them."""
        from . import deferred_impls

        key = func if isinstance(func, str) else getattr(func, "typing_key", None)
        if isinstance(func, types.Function) and id(key) in deferred_impls.tables().typing_key_ids:
            pass
        elif not (isinstance(func, str) and func in deferred_impls.tables().typing_keys):
            return self._resolve_function_type(func, args, kws)
        if deferral.typing_key_has_new_templates(self, key):
            deferral.load()
            return self._resolve_refreshed(func, key, args, kws)
        try:
            sig = self._resolve_function_type(func, args, kws)
        except errors.TypingError:
            sig = None
        if sig is not None:
            return sig
        deferral.load()
        return self._resolve_refreshed(func, key, args, kws)

    def _resolve_refreshed(self, func, key, args, kws):
        """Resolve again once the deferred modules are installed: a function's type then holds
        their templates too (a new type; the stale one gets the implementation key lowering
        reads)."""
        if isinstance(func, types.Function):
            fresh = self._replaced_functions.get(func) or self._lookup_global(key) or func
            if fresh is not func and isinstance(fresh, types.Function):
                return self._resolve_replaced(func, fresh, args, kws)
        return self._resolve_function_type(func, args, kws)

    #: function types the deferred modules' installation replaced (``Function`` of ``len``
    #: without their templates -> with them): a compile in progress still holds the old ones
    _replaced_functions = {}

    def resolve_function_type(self, func, args, kws):
        deferral = self._pending_deferral()
        if deferral is not None:
            return self._deferred_call_type(deferral, func, args, kws)
        if self._replaced_functions and isinstance(func, types.Function):
            try:
                fresh = self._replaced_functions.get(func)
            except TypeError:
                fresh = None
            if fresh is not None:
                return self._resolve_replaced(func, fresh, args, kws)
        return self._resolve_function_type(func, args, kws)

    def _resolve_replaced(self, func, fresh, args, kws):
        sig = self._resolve_function_type(fresh, args, kws)
        if sig is not None:
            impl_key = fresh._impl_keys.get(sig.args)
            if impl_key is not None:
                func._impl_keys[sig.args] = impl_key  # what lowering reads (get_impl_key)
        return sig

    def _resolve_function_type(self, func, args, kws):
        # Only callees typed by templates alone: plain functions (their templates are fixed by
        # the interned type, and the first successful search already recorded the implementation
        # key that lowering looks up, ``Function._impl_keys``), number classes (casts such as
        # ``float32(x)``) and the builtins and intrinsics keyed by the builtin itself or by
        # name (``len``, ``"getiter"``, ``"static_getitem"`` ...).  Dispatchers (device
        # functions compile while being typed), bound methods and everything else take Numba's
        # path; failures are never remembered here (Numba's per-compile call stack replays
        # those).
        resolve = functools.partial(super().resolve_function_type, func, args, kws)
        if not _answer_is_cacheable(func):
            return resolve()
        key = (func, tuple(args), tuple(kws.items()) if kws else ())
        return _remembered(self._call_signatures, key, resolve, remember_none=False)

    def resolve_overload(self, key, cases, args, kws, allow_ambiguous=True, unsafe_casting=True,
                         exact_match_required=False):
        # The best of a template's signatures for some argument types: a pure function of its
        # inputs, asked again by lowering for every operator it lowers (Numba's ``Lower``
        # re-types each call through the callee's templates).
        resolve = functools.partial(
            super().resolve_overload, key, cases, args, kws, allow_ambiguous=allow_ambiguous,
            unsafe_casting=unsafe_casting, exact_match_required=exact_match_required)
        choice_key = (key, tuple(cases), tuple(args), tuple(kws.items()) if kws else (),
                      allow_ambiguous, unsafe_casting, exact_match_required)
        # "no case matches" (None) is an answer too
        return _remembered(self._overload_choices, choice_key, resolve, remember_none=True)

    def function_call_type(self, fnty, args):
        """``fnty.get_call_type(self, args, {})``: what lowering asks of an operator's function
        type (``+``, ``getitem`` ...) for argument types type inference already resolved.
        Remembered for plain ``types.Function`` callees, with the implementation key the
        template search records (``fnty._impl_keys``, which ``get_function`` then reads): set
        again on every remembered answer, as the search would."""
        if type(fnty) is not types.Function:
            return fnty.get_call_type(self, args, {})

        def resolve():
            sig = fnty.get_call_type(self, args, {})
            return sig, fnty._impl_keys[sig.args]

        sig, impl_key = _remembered(self._function_call_types, (fnty, tuple(args)), resolve,
                                    remember_none=False)
        fnty._impl_keys[sig.args] = impl_key
        return sig

    def _get_attribute_templates(self, typ):
        # This target's own templates first (the kernel-language families' and cuda-target
        # overloads), then the generic ones, each in Numba's order: Numba tries them in
        # registration order and takes the first that answers, so a generic @overload_method
        # registered earlier in the process (Numba's ndarray.max, when a CPU function used it)
        # would shadow this target's method of the same name.
        templates = list(super()._get_attribute_templates(typ))
        ours = [t for t in templates if _is_cuda_template(t)]
        if not ours or len(ours) == len(templates):
            return iter(templates)
        return iter(ours + [t for t in templates if not _is_cuda_template(t)])

    def _settle_deferred_attribute(self, typ, attr):
        deferral = self._pending_deferral()
        if deferral is None or isinstance(typ, types.Module):
            return
        from . import deferred_impls

        if deferred_impls.any_imported() or deferred_impls.attribute_is_deferred(typ, attr):
            deferral.load()

    def resolve_setattr(self, target, attr, value):
        self._settle_deferred_attribute(target, attr)
        return super().resolve_setattr(target, attr, value)

    def resolve_getattr(self, typ, attr):
        self._settle_deferred_attribute(typ, attr)
        # Not for modules: a module attribute that is a constant is typed from its current
        # value, which the program may change between compiles.
        if (attr in _REDUCTION_METHOD_NAMES and _REDUCTIONS_FAMILY in _pending_triggers
                and isinstance(typ, types.Array)):
            _demand_family(self, _REDUCTIONS_FAMILY)
        resolve = functools.partial(super().resolve_getattr, typ, attr)
        if isinstance(typ, types.Module):
            return resolve()
        return _remembered(self._attribute_types, (typ, attr), resolve, remember_none=False)

    def load_additional_registries(self):
        from numba.core.typing import cmathdecl, enumdecl

        self.install_registry(cmathdecl.registry)
        self.install_registry(enumdecl.registry)
        for module in family_modules():
            self.install_registry(module.typing_registry)

    def resolve_value_type(self, val):
        deferral = self._pending_deferral()
        if deferral is not None:
            from . import deferred_impls

            if deferred_impls.any_imported() or (
                    id(val) in deferred_impls.tables().typing_key_ids
                    and id(val) not in deferral.snapshot["typing_globals"]):
                deferral.load()  # a global only they type (np.empty ...)
        if _pending_triggers:  # asked thousands of times per compile: a loop, not a call
            if type(val) is _NUMPY_UFUNC and _UFUNC_FAMILY in _pending_triggers:
                importlib.import_module(_UFUNC_FAMILY)
            elif id(val) in _REDUCTION_FUNCTION_IDS and _REDUCTIONS_FAMILY in _pending_triggers:
                importlib.import_module(_REDUCTIONS_FAMILY)
            for name in _pending_triggers:
                if name in sys.modules:
                    _activate_deferred_families(self)
                    break
        if isinstance(val, Dispatcher) and not _is_cuda_dispatcher(val):
            val = device_dispatcher_for(val)
        elif _is_plain_builtin_class(val):
            # ``bool`` (every branch condition), ``range``, ``int`` ...: Numba's typeof() has no
            # type for these classes (it returns None after importing numba.typed to rule out
            # typed containers) and the global lookup answers; ask it first.
            ty = self._get_global_type(val)
            if ty is not None:
                return ty
        elif _value_type_is_fixed(val):
            # Builtin functions (``len``, ``operator.add`` ... for every operator lowered) and
            # kernel-language stubs: Numba's typeof() fails on them (a ValueError built, with
            # its traceback cleared, each time) before the global lookup answers.  The answer
            # for the same object changes only when a refresh installs something.
            return _remembered(self._value_types, val,
                               functools.partial(self._numba_value_type, val),
                               remember_none=False)
        return self._numba_value_type(val)

    def _numba_value_type(self, val):
        """Numba's ``resolve_value_type``, without the ``typeof()`` call when it can only fail:
        for a module (``cuda`` in ``cuda.grid(1)``, ``np`` ...) or a stub, typeof() imports
        ``numba.core.typing.cffi_utils`` -- and cffi, when it is installed (~40 ms of a first
        compile) -- before failing, and the global lookup answers as it does then."""
        if _typeof_answers_nothing(val):
            ty = self._get_global_type(val)
            if ty is not None:
                return ty
        return super().resolve_value_type(val)


def _is_cuda_template(template):
    """A typing template of this target: a kernel-language family's, or a ``target="cuda"``
    overload's."""
    metadata = getattr(template, "metadata", None)
    if isinstance(metadata, dict) and metadata.get("target") == "cuda":
        return True
    return getattr(template, "__module__", "").startswith("numba_cuda.")


_UNKNOWN = object()
#: Bound on each table of remembered answers (templates that build their cases per call would
#: otherwise grow the overload table without end); a full table starts over.
_MAX_REMEMBERED = 20000


def _remembered(table, key, resolve, remember_none):
    """``table[key]``, else ``resolve()`` kept in ``table``.  Errors are never kept; ``None``
    ("no answer") only with ``remember_none``.  A key with an unhashable part (a literal holding
    a list ...) is resolved every time."""
    try:
        answer = table.get(key, _UNKNOWN)
    except TypeError:
        return resolve()
    if answer is _UNKNOWN:
        answer = resolve()
        if answer is not None or remember_none:
            if len(table) >= _MAX_REMEMBERED:
                table.clear()
            table[key] = answer
    return answer


def _answer_is_cacheable(func):
    kind = type(func)
    return (kind is types.Function or kind is types.NumberClass or kind is str
            or kind is _BUILTIN_FUNCTION)


_BUILTIN_FUNCTION = type(len)


def _value_type_is_fixed(val):
    """A value whose type (``resolve_value_type``) depends only on the registered typing: a
    builtin function (no attributes can be set on it, so no ``_numba_type_``) or a
    kernel-language stub (typed by its registered templates)."""
    kind = type(val)
    return kind is _BUILTIN_FUNCTION or issubclass(kind, Stub)


def _typeof_answers_nothing(val):
    """Would ``typeof(val)`` find no type?  Its generic case (no registration for the class)
    answers only for buffers, objects with ``_numba_type_`` and cffi objects (which exist only
    once cffi is imported)."""
    from numba.core.typing.typeof import typeof_impl

    if "cffi" in sys.modules or isinstance(val, types.ExternalFunction):
        return False
    if typeof_impl.dispatch(type(val)) is not typeof_impl.dispatch(object):
        return False
    if getattr(val, "_numba_type_", None) is not None:
        return False
    try:
        memoryview(val)
    except TypeError:
        return True
    return False


def _is_plain_builtin_class(val):
    """A class from ``builtins`` (not an exception class), for which typeof() gives no type."""
    return (type(val) is type and getattr(val, "__module__", None) == "builtins"
            and not issubclass(val, BaseException))


def _is_cuda_dispatcher(val):
    from .numba_registry import registered_dispatcher_class

    cls = registered_dispatcher_class()
    return cls is not None and isinstance(val, cls)


def device_dispatcher_for(cpu_dispatcher):
    """The CUDA device dispatcher standing for a CPU ``@njit`` dispatcher inside kernels: made
    by the ``jit`` the dispatch layer registered for the ``cuda`` target (Numba's
    ``jit_registry``), so the compiler never imports the dispatcher."""
    from .numba_registry import registered_jit

    disp = getattr(cpu_dispatcher, _DEVICE_DISPATCHER_ATTR, None)
    if disp is not None:
        return disp
    if not cpu_dispatcher._can_compile:
        raise ValueError(
            f"{cpu_dispatcher.py_func.__qualname__} is used in a CUDA kernel but its compilation "
            "is disabled (it was frozen with explicit signatures); remove the signatures or "
            "decorate it with @cuda.jit(device=True)"
        )
    options = {}
    for key in ("fastmath", "inline"):
        if key in cpu_dispatcher.targetoptions:
            options[key] = cpu_dispatcher.targetoptions[key]
    disp = registered_jit()(cpu_dispatcher.py_func, **options)  # a device function
    setattr(cpu_dispatcher, _DEVICE_DISPATCHER_ATTR, disp)
    return disp
