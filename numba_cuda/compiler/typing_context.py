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
import operator
import sys

import numpy as np
from numba.core import errors, types, typing
from numba.core.dispatcher import Dispatcher
from numba.core.target_extension import current_target, target_override
from numba.core.typing.typeof import typeof_impl

from ..lang import STUB_TRIGGERED_FAMILIES
from ..lang.stubs import Stub
from .numba_registry import TARGET_NAME, registered_dispatcher_class

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
#: The bfloat16 conversions with a rounding mode (``cuda.bf16.float2bfloat16_rz`` ...: 55
#: templates, ~3.5 ms) wait for a kernel to name one of them, like the reductions.
#: cffi's ``ffi.from_buffer`` waits for ``cffi`` itself (a kernel naming an ``ffi`` imported it).
_BF16_CONVERSIONS_FAMILY = "numba_cuda.lang.bf16_conversions"
#: The families of ``lang.STUB_TRIGGERED_FAMILIES`` (barriers, atomics, warp functions,
#: cooperative groups, cache hints, tensor cores ...: ~5 ms of a process's first compile) wait
#: in the same way for a kernel to name one of their stubs.
DEFERRED_FAMILIES = {"numba_cuda.lang.libdevice_calls": "numba_cuda.lang.libdevice_stubs",
                     _UFUNC_FAMILY: _UFUNC_FAMILY, _REDUCTIONS_FAMILY: _REDUCTIONS_FAMILY,
                     _BF16_CONVERSIONS_FAMILY: _BF16_CONVERSIONS_FAMILY,
                     **{family: family for family in STUB_TRIGGERED_FAMILIES},
                     "numba_cuda.lang.cffi_buffers": "cffi"}
_pending_triggers = set(DEFERRED_FAMILIES.values())
#: ``len(sys.modules)`` when ``resolve_value_type`` last looked for an imported trigger: it
#: looks again only once the count has changed (an import happened).
_modules_seen = [0]
_NUMPY_UFUNC = np.ufunc


def stub_trigger_values(family):
    """The stub objects whose typing imports ``family`` (one of ``lang.STUB_TRIGGERED_FAMILIES``):
    each named stub, and for a namespace (``cuda.atomic``) each of its members too."""
    from ..lang import stubs

    values = []
    for name in STUB_TRIGGERED_FAMILIES[family]:
        value = getattr(stubs, name)
        values.append(value)
        if isinstance(value, type(stubs)):
            values.extend(member for member_name, member in vars(value).items()
                          if not member_name.startswith("__"))
    return values


def _value_triggers():
    """``({id(value): family}, reduction method names)``: the values whose typing imports a
    deferred family (NumPy's reduction functions, the bfloat16 conversion stubs, the stubs of
    ``lang.STUB_TRIGGERED_FAMILIES``)."""
    from ..lang import stubs
    from ..lang.numpy_names import REDUCTION_FUNCTIONS, REDUCTION_METHODS

    families = {id(getattr(np, name)): _REDUCTIONS_FAMILY
                for name in REDUCTION_FUNCTIONS if hasattr(np, name)}
    families.update((id(getattr(stubs.bf16, name)), _BF16_CONVERSIONS_FAMILY)
                    for name in stubs.BF16_CONVERSIONS)
    for family in STUB_TRIGGERED_FAMILIES:
        families.update((id(value), family) for value in stub_trigger_values(family))
    return families, frozenset(REDUCTION_METHODS)


_FAMILY_BY_VALUE_ID, _REDUCTION_METHOD_NAMES = _value_triggers()


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

#: Remember the types of constants and modules, literal types and ``setitem``/``delitem``
#: signatures (False: Numba's searches, every time; tests compare the two).
REMEMBER_MORE = True


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
    #: Bumped whenever remembered answers are dropped (a refresh installing something, a full
    #: table starting over): an answer remembered before may be searched for again.
    generation = 0
    #: Bumped by every resolution answered neither from nor into a table (Numba's own path: a
    #: dispatcher, a module attribute, a failure ...).  Type inference re-runs a constraint
    #: whose last run asked one (``type_inference``).
    unremembered = 0

    def __init__(self):
        # Answers of the template searches that depend on nothing but their (interned, hashable)
        # inputs: call signatures, attribute types and each template's best overload.  Every
        # kernel asks the same questions (``cuda.grid(1)``, ``int64 + int64``, ``array.size``
        # ...); Numba re-runs the template search each time.  Dropped whenever a refresh
        # installs anything (see ``_remembered``).
        self._call_signatures = {}
        self._attribute_types = {}
        # The same answers looked up by the identities of the question's parts (types are
        # interned: asking again uses the same objects), which spares hashing the types (a
        # Python ``__hash__`` of their key each); each entry holds those parts, so that no
        # identity is reused while it is there.  Cleared with the tables.
        self._by_identity = {}
        self._overload_choices = {}
        self._function_call_types = {}
        self._value_types = {}
        # Types of constants (``1``, ``2.5``, ``"x"``), their literal types, and modules.
        self._constant_types = {}
        self._literal_types = {}
        self._module_types = {}
        self._module_attribute_templates = {}
        super().__init__()

    def _outside_a_cuda_compile(self):
        """Asked outside a compile (no compile on this context's call stack) while the thread's
        current target is not CUDA: Numba then decides by that target (the CPU) what a compile
        would decide by the compile's, the CUDA target.  (Not before the dispatch layer has
        registered the CUDA target's dispatcher with Numba, which the CUDA target needs to
        initialise templates; no compile can run before then either.)"""
        return (not self.callstack._stack and current_target() != TARGET_NAME
                and registered_dispatcher_class() is not None)

    def refresh(self):
        if self._outside_a_cuda_compile():
            # Numba installs a template registered for one target only (``@overload_attribute(
            # ..., target="cuda")`` ...) when the context's target is that target, which outside
            # a compile is the thread's current one, the CPU; the registry's loader never offers
            # a skipped template again, so every later compile lacked it.  Installed as a
            # compile installs them.
            with target_override(TARGET_NAME):
                return self.refresh()
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
        self._by_identity.clear()
        self._overload_choices.clear()
        self._function_call_types.clear()
        self._value_types.clear()
        self._constant_types.clear()
        self._literal_types.clear()
        self._module_types.clear()
        self._module_attribute_templates.clear()
        self.generation += 1

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
        if self._outside_a_cuda_compile():
            # Asked outside a compile (a library typing ahead of compiling, Numba's own tests):
            # Numba orders a function's templates by the target of the compile in progress,
            # else by the thread's current target, the CPU, which puts the generic templates
            # before the CUDA ones (float16 + float16 would type as float32).  Answer as a
            # compile would.
            with target_override(TARGET_NAME):
                return self.resolve_function_type(func, args, kws)
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
        if not _answer_is_cacheable(func):
            self.unremembered += 1
            return super().resolve_function_type(func, args, kws)
        argtypes = tuple(args)  # (Numba's search gets ``args`` as they came)
        identity = None
        if not kws:
            identity = (_CALL, id(func), *map(id, argtypes))
            entry = self._by_identity.get(identity)
            if entry is not None:
                return entry[0]
        key = (func, argtypes, tuple(kws.items()) if kws else ())
        try:
            answer = self._call_signatures.get(key, _UNKNOWN)
        except TypeError:  # an unhashable part: see _remembered
            return self._remembered(self._call_signatures, key, functools.partial(
                super().resolve_function_type, func, args, kws), remember_none=False)
        # For the intrinsics named by a string (``static_getitem`` of an array, which lowering
        # does through ``getitem`` ...), "no template answers" is remembered too: Numba's search
        # then only notes the failure in the frame's cache, which answers ``None`` again.
        remember_none = type(func) is str and REMEMBER_MORE
        if answer is _UNKNOWN:
            resolve = functools.partial(super().resolve_function_type, func, args, kws)
            answer = self._remembered(self._call_signatures, key, resolve,
                                      remember_none=remember_none)
        if identity is not None and (answer is not None or remember_none):
            self._keep_by_identity(identity, (answer, func, argtypes))
        return answer

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
        return self._remembered(self._overload_choices, choice_key, resolve, remember_none=True)

    def function_call_type(self, fnty, args):
        """``fnty.get_call_type(self, args, {})``: what lowering asks of an operator's function
        type (``+``, ``getitem`` ...) for argument types type inference already resolved.
        Remembered for plain ``types.Function`` callees, with the implementation key the
        template search records (``fnty._impl_keys``, which ``get_function`` then reads): set
        again on every remembered answer, as the search would."""
        if type(fnty) is not types.Function:
            self.unremembered += 1
            return fnty.get_call_type(self, args, {})

        def resolve():
            sig = fnty.get_call_type(self, args, {})
            return sig, fnty._impl_keys[sig.args]

        argtypes = tuple(args)  # (the search gets ``args`` as they came)
        identity = (_LOWERING_CALL, id(fnty), *map(id, argtypes))
        entry = self._by_identity.get(identity)
        if entry is not None:
            answer = entry[0]
        else:
            key = (fnty, argtypes)
            try:
                answer = self._function_call_types.get(key, _UNKNOWN)
            except TypeError:
                answer = resolve()  # an unhashable part
            else:
                if answer is _UNKNOWN:
                    answer = self._remembered(self._function_call_types, key, resolve,
                                              remember_none=False)
                self._keep_by_identity(identity, (answer, fnty, argtypes))
        sig, impl_key = answer
        fnty._impl_keys[sig.args] = impl_key
        return sig

    def resolve_setitem(self, target, index, value):
        # Numba's: the function type of ``operator.setitem`` asked directly (not through
        # ``resolve_function_type``), for every ``a[i] = x`` in every propagation round.
        if not REMEMBER_MORE:
            return super().resolve_setitem(target, index, value)
        assert isinstance(index, types.Type), index
        fnty = self.resolve_value_type(operator.setitem)
        return self.function_call_type(fnty, (target, index, value))

    def resolve_delitem(self, target, index):
        if not REMEMBER_MORE:
            return super().resolve_delitem(target, index)
        fnty = self.resolve_value_type(operator.delitem)
        return self.function_call_type(fnty, (target, index))

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
        if self._outside_a_cuda_compile():  # as resolve_function_type (a CUDA-only attribute
            with target_override(TARGET_NAME):  # template answers nothing for the CPU)
                return self.resolve_getattr(typ, attr)
        self._settle_deferred_attribute(typ, attr)
        # A module attribute no template types is a constant, typed from the module's current
        # value (which the program may change between compiles): only the template search is
        # remembered for modules.
        if (attr in _REDUCTION_METHOD_NAMES and _REDUCTIONS_FAMILY in _pending_triggers
                and isinstance(typ, types.Array)):
            _demand_family(self, _REDUCTIONS_FAMILY)
        identity = (_ATTRIBUTE, id(typ), attr)
        entry = self._by_identity.get(identity)
        if entry is not None:  # (only answers for other types than modules are kept)
            return entry[0]
        try:
            answer = self._attribute_types.get((typ, attr), _UNKNOWN)
        except TypeError:
            answer = _UNKNOWN
        if answer is not _UNKNOWN:
            self._keep_by_identity(identity, (answer, typ))
            return answer
        resolve = functools.partial(super().resolve_getattr, typ, attr)
        if isinstance(typ, types.Module):
            if not REMEMBER_MORE:
                self.unremembered += 1
                return resolve()
            templated = self._remembered(
                self._module_attribute_templates, (typ, attr),
                functools.partial(self._module_attribute_template_type, typ, attr),
                remember_none=True)
            if templated is not None:
                return templated
            self.unremembered += 1
            return self.resolve_module_constants(typ, attr)
        answer = self._remembered(self._attribute_types, (typ, attr), resolve,
                                  remember_none=False)
        if answer is not None:
            self._keep_by_identity(identity, (answer, typ))
        return answer

    def _module_attribute_template_type(self, typ, attr):
        """What Numba's ``resolve_getattr`` asks the attribute templates of a module type
        before typing the attribute's value (``resolve_module_constants``)."""
        for candidate in (typ, types.unliteral(typ)):
            out = self.find_matching_getattr_template(candidate, attr)
            if out and out["return_type"] is not None:
                return out["return_type"]
        return None

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
        kind = type(val)
        if _pending_triggers:  # asked thousands of times per compile: no calls
            if kind is _NUMPY_UFUNC and _UFUNC_FAMILY in _pending_triggers:
                importlib.import_module(_UFUNC_FAMILY)
            else:
                family = _FAMILY_BY_VALUE_ID.get(id(val))
                if family is not None and family in _pending_triggers:
                    importlib.import_module(family)
            modules = sys.modules
            if len(modules) != _modules_seen[0]:
                _modules_seen[0] = len(modules)
                for name in _pending_triggers:
                    if name in modules:
                        _activate_deferred_families(self)
                        break
        # the two commonest kinds first (each takes its branch below): constants, and builtin
        # functions (every operator)
        if kind in _CONSTANT_KINDS and REMEMBER_MORE:
            answer = self._constant_types.get((kind, val, _TYPEOF.get(kind)), _UNKNOWN)
            if answer is not _UNKNOWN:
                return answer
        elif kind is _BUILTIN_FUNCTION:
            try:
                answer = self._value_types.get(val, _UNKNOWN)
            except TypeError:  # a builtin method of an unhashable object: below
                answer = _UNKNOWN
            if answer is not _UNKNOWN:
                return answer
        if isinstance(val, Dispatcher) and not _is_cuda_dispatcher(val):
            val = device_dispatcher_for(val)
        elif _is_plain_builtin_class(val):
            # ``bool`` (every branch condition), ``range``, ``int`` ...: Numba's typeof() has no
            # type for these classes (it returns None after importing numba.typed to rule out
            # typed containers) and the global lookup answers; ask it first.
            ty = self._get_global_type(val)
            if ty is not None:
                return ty
        elif type(val) in _CONSTANT_KINDS and REMEMBER_MORE:
            # Every literal number or string of the kernel: typed by the typeof() function
            # registered for its class (from its value alone), remembered with that function.
            kind = type(val)
            return self._remembered(self._constant_types, (kind, val, _TYPEOF.get(kind)),
                                    functools.partial(super().resolve_value_type, val),
                                    remember_none=False)
        elif type(val) is _MODULE and REMEMBER_MORE and _module_type_is_plain(val):
            # ``cuda``, ``math``, ``np`` ...: typeof() finds no type (a ValueError built each
            # time) and the global lookup gives ``types.Module(val)``.
            return self._remembered(self._module_types, val,
                                    functools.partial(self._numba_value_type, val),
                                    remember_none=False)
        elif _value_type_is_fixed(val):
            # Builtin functions (``len``, ``operator.add`` ... for every operator lowered) and
            # kernel-language stubs: Numba's typeof() fails on them (a ValueError built, with
            # its traceback cleared, each time) before the global lookup answers.  The answer
            # for the same object changes only when a refresh installs something.
            return self._remembered(self._value_types, val,
                                    functools.partial(self._numba_value_type, val),
                                    remember_none=False)
        self.unremembered += 1
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

    def literal_type(self, value):
        """``types.maybe_literal(value)``, remembered for ints, bools and strings (with the
        literal class Numba registered for the value's class)."""
        kind = type(value)
        if kind not in _LITERAL_KINDS or not REMEMBER_MORE:
            if (REMEMBER_MORE and kind not in types.Literal.ctor_map
                    and not isinstance(value, types.Literal)):
                # no literal class for it: maybe_literal() answers None (after literal() raised
                # and caught a LiteralTypingError; for a Literal it raises a ValueError)
                return None
            return types.maybe_literal(value)
        key = (kind, value, types.Literal.ctor_map.get(kind))
        return self._remembered(self._literal_types, key,
                                functools.partial(types.maybe_literal, value),
                                remember_none=True)

    def _keep_by_identity(self, identity, entry):
        by_identity = self._by_identity
        if len(by_identity) >= _MAX_REMEMBERED:
            by_identity.clear()  # (the answers stay in their tables)
        by_identity[identity] = entry

    def _remembered(self, table, key, resolve, remember_none):
        """``table[key]``, else ``resolve()`` kept in ``table``.  Errors are never kept; ``None``
        ("no answer") only with ``remember_none``.  A key with an unhashable part (a literal
        holding a list ...) is resolved every time.  Whatever is not answered from or kept in
        the table counts in ``unremembered``."""
        try:
            answer = table.get(key, _UNKNOWN)
        except TypeError:
            self.unremembered += 1
            return resolve()
        if answer is _UNKNOWN:
            try:
                answer = resolve()
            except BaseException:
                self.unremembered += 1
                raise
            if answer is not None or remember_none:
                if len(table) >= _MAX_REMEMBERED:
                    table.clear()
                    self._by_identity.clear()
                    self.generation += 1
                table[key] = answer
            else:
                self.unremembered += 1
        return answer


def _is_cuda_template(template):
    """A typing template of this target: a kernel-language family's, or a ``target="cuda"``
    overload's."""
    metadata = getattr(template, "metadata", None)
    if isinstance(metadata, dict) and metadata.get("target") == "cuda":
        return True
    return getattr(template, "__module__", "").startswith("numba_cuda.")


_UNKNOWN = object()
#: First items of the keys of ``_by_identity`` (which table's answer)
_CALL, _LOWERING_CALL, _ATTRIBUTE = "call", "lowering call", "attribute"
#: Bound on each table of remembered answers (templates that build their cases per call would
#: otherwise grow the overload table without end); a full table starts over.
_MAX_REMEMBERED = 20000


#: Constants typed from their value alone (``-0.0 == 0.0`` and ``nan``: all float64).
_CONSTANT_KINDS = frozenset((int, float, bool, complex, str, type(None)))
_LITERAL_KINDS = frozenset((int, bool, str))
_MODULE = type(sys)
_TYPEOF = typeof_impl.registry


def _module_type_is_plain(module):
    """A module typeof() has no type for (no ``_numba_type_``, no typeof() registered for
    modules): typed by the global lookup, from the registries alone."""
    if _TYPEOF.get(_MODULE) is not None:
        return False
    namespace = module.__dict__
    if "__getattr__" in namespace or "_numba_type_" in _MODULE.__dict__:
        return getattr(module, "_numba_type_", None) is None
    # what getattr() finds (without raising AttributeError for the usual absent attribute)
    return namespace.get("_numba_type_") is None


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
