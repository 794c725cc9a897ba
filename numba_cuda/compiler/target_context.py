"""The CUDA target context: data models, lowering registries, call convention, kernel wrappers.

Lowering installed: Numba's generic builtins (numbers, tuples, slices, ranges, iterators,
enumerate, arrays) and every kernel-language family's ``lowering_registry``.  Numba's CPU math
lowering (``numba.cpython.mathimpl``) is never installed: it emits LLVM intrinsics NVPTX cannot
select; the math family lowers ``math.*`` to libdevice.

Device functions use Numba's minimal call convention ``i32 status f(ret*, args...)``.  A kernel
is a ``void`` wrapper taking the flattened arguments (``get_arg_packer``) and calling the device
function, marked with ``!nvvm.annotations``.
"""

import copyreg
import hashlib
from collections import ChainMap
from functools import cached_property

from llvmlite import ir

from numba.core import cgutils, datamodel, errors, itanium_mangler, types
from numba.core.base import BaseContext

from . import nvvm, nvvmir
from .callconv import CUDACallConv  # noqa: F401 - its home was here

#: (type text, "size"|"alignment") -> bytes, for the one NVVM data layout every context uses.
_LAYOUT_CACHE = {}

#: Bound on each table of remembered answers below (a full table starts over).
_MAX_REMEMBERED = 4096


def _remember(table, key, value):
    if len(table) >= _MAX_REMEMBERED:
        table.clear()
    table[key] = value
    return value


#: argument types (a tuple) -> their Itanium mangling (``itanium_mangler.mangle_args``); types
#: are interned, so equal types are the same object and mangle the same
_MANGLED_ARGS = {}
#: identifier part or ABI tag -> its mangling
_MANGLED_PARTS = {}
_MANGLED_TAGS = {}


def _mangled_part(part):
    answer = _MANGLED_PARTS.get(part)
    if answer is None:
        answer = _remember(_MANGLED_PARTS, part,
                           itanium_mangler._len_encoded(itanium_mangler._escape_string(part)))
    return answer


def _mangled_tag(tag):
    answer = _MANGLED_TAGS.get(tag)
    if answer is None:
        answer = _remember(_MANGLED_TAGS, tag, itanium_mangler.mangle_abi_tag(tag))
    return answer


def mangle(name, argtypes, abi_tags=(), uid=None):
    """``itanium_mangler.mangle(name, argtypes, abi_tags=abi_tags, uid=uid)``, with the
    manglings of argument-type tuples, identifier parts and ABI tags remembered (each function
    descriptor mangles two names, with the same flags tag and argument types as the kernels
    before it)."""
    try:
        args = _MANGLED_ARGS.get(argtypes if type(argtypes) is tuple else tuple(argtypes))
    except TypeError:  # an unhashable value among the arguments
        return itanium_mangler.mangle(name, argtypes, abi_tags=abi_tags, uid=uid)
    if args is None:
        args = _remember(_MANGLED_ARGS, tuple(argtypes), itanium_mangler.mangle_args(argtypes))
    if uid is not None:
        abi_tags = (f"v{uid}", *abi_tags)
    parts = [_mangled_part(part) for part in name.split(".")]
    extras = "".join([_mangled_tag(tag) for tag in abi_tags])
    if len(parts) > 1:
        ident = f"N{''.join(parts)}{extras}E"
    else:
        ident = parts[0] + extras
    return itanium_mangler.PREFIX + ident + args


def _plainly_copied(cls):
    """Does ``copy.copy`` copy instances of ``cls`` as a new instance updated with the old one's
    ``__dict__`` (no ``__copy__``, reduce, ``__getstate__``/``__setstate__`` of its own, no
    slots)?"""
    return (getattr(cls, "__copy__", None) is None and cls.__reduce_ex__ is object.__reduce_ex__
            and cls.__reduce__ is object.__reduce__ and not hasattr(cls, "__setstate__")
            and getattr(cls, "__getstate__", object.__getstate__) is object.__getstate__
            and "__slots__" not in cls.__dict__ and cls not in copyreg.dispatch_table)


#: family modules -> ``CUDATargetContext.nonconst_module_attrs``
_NONCONST_MODULE_ATTRS = {}

#: argument types (a tuple) -> (data model manager, ``datamodel.ArgPacker``): a packer only reads
#: the data models it looked up when made, and a manager never changes a model it handed out
_ARG_PACKERS = {}


class CUDATargetContext(BaseContext):
    implement_powi_as_math_call = True
    strict_alignment = True

    _refreshed_stamp = None

    #: Numba's array/string/inlining modules waiting to be imported (``deferred_impls``); None:
    #: imported (or not deferred)
    _deferral = None
    _deferral_decided = False

    def __init__(self, typingctx, target="cuda"):
        # the typing context's triggers for the deferred modules find their state through it
        if getattr(typingctx, "cuda_target_context", None) is None:
            typingctx.cuda_target_context = self
        super().__init__(typingctx, target)

    #: Batch the refreshes asked for while a refresh runs (see ``refresh``); False gives
    #: Numba's nested refreshes (the tests compare the two).
    batch_nested_refreshes = True
    _refreshing_thread = None
    _refresh_requested = False

    def refresh(self):
        # A refresh installs typing templates, and Numba initialises every overload, method and
        # intrinsic template by first asking the target context to refresh
        # (``_get_target_registry``) and then registering the template's lowering: on a
        # process's first refresh, a chain of ~120 refreshes, each nested in the one before
        # and each re-reading every registry (~10 ms of the first compile).  A refresh asked for
        # while one runs is only recorded; the running one then repeats until nothing new was
        # registered meanwhile, so the same implementations are installed, in the same order,
        # before the outermost refresh returns.
        # (Batched per thread: a refresh another thread asks for meanwhile runs as before.)
        import threading

        deferral = self._deferral
        if deferral is not None and deferral.suppress_refresh:
            return  # installing the deferred Numba modules (deferred_impls.Deferral.load)
        if deferral is not None and deferral.pending and not deferral.loading:
            from .deferred_impls import any_imported

            if any_imported():  # someone imported them: install them where they belong
                deferral.load()
                return
        me = threading.get_ident()
        owner = self._refreshing_thread
        if owner == me and self.batch_nested_refreshes:
            self._refresh_requested = True
            return
        if owner is not None:  # another thread's refresh runs, or batching is off
            self._refresh_once()
            return
        self._refreshing_thread = me
        try:
            while True:
                self._refresh_requested = False
                self._refresh_once()
                if not self._refresh_requested:
                    return
        finally:
            self._refreshing_thread = None

    def _refresh_once(self):
        # See CUDATypingContext.refresh: nothing new registered -> nothing to install.
        from .typing_context import registration_stamp

        stamp = registration_stamp(self)
        if stamp == self._refreshed_stamp:
            self.typing_context.refresh()
            return
        super().refresh()
        self._refreshed_stamp = stamp  # from before refreshing: see CUDATypingContext.refresh
        deferral = self._deferral
        if deferral is not None and deferral.snapshot is None:
            deferral.take_snapshot()  # the eager point: the end of the first refresh

    # ---- set-up -----------------------------------------------------------------
    def init(self):
        from .codelibrary import CUDACodegen

        from .recursion import UnresolvedCalls

        self._internal_codegen = CUDACodegen("numba_cuda.jit")
        self._target_data = None
        self.data_model_manager = cuda_data_model_manager()
        self._unresolved_calls = UnresolvedCalls()  # shared by subtargets (shallow copies)
        #: failed implementation lookups (see ``get_function``), shared by subtargets too
        self._refused = {}

    def load_additional_registries(self):
        # Importing these fills Numba's builtin registry (installed by ``refresh``).
        from numba.cpython import enumimpl, iterators, numbers, rangeobj, slicing, tupleobj  # noqa: F401

        if not self._deferral_decided:  # the first refresh: the eager point
            from . import deferred_impls

            self._deferral_decided = True
            if deferred_impls.ENABLED and not deferred_impls.any_imported():
                self._deferral = deferred_impls.Deferral(self)
        if self._deferral is None:
            # not deferred (one of them imported already, or ENABLED off): import all of them
            # now, as the deferred load does -- inline_closurecall is what imports listobj
            # (``x in (2, 3)``, Numba's sequence lowering)
            from . import deferred_impls

            deferred_impls.import_all()

        from .typing_context import family_modules

        for module in family_modules():
            self.install_registry(module.lowering_registry)

    #: Whether Numba's datetime64/timedelta64 lowering (``numba.np.npdatetime``) is installed.
    _datetime_lowering = False

    def ensure_datetime_lowering(self, value_types):
        """Install Numba's datetime64/timedelta64 lowering (arithmetic, comparisons, unit
        casts, constants: ``numba.np.npdatetime``, as both peers' CUDA targets do) before a
        function whose values include one of those types is lowered.  Imported then, not with
        the other registries: its import (``numba.np.npyfuncs``) costs ~15 ms, and few kernels
        compute with dates."""
        if CUDATargetContext._datetime_lowering:
            return
        dated = (types.NPDatetime, types.NPTimedelta)
        if not any(isinstance(ty, dated) for ty in value_types):
            return
        from numba.np import npdatetime  # noqa: F401  (fills Numba's builtin registry)

        CUDATargetContext._datetime_lowering = True
        self.refresh()

    def get_ufunc_info(self, ufunc_key):
        """The element functions of a NumPy ufunc's loops on the GPU (Numba's ufunc lowering asks)."""
        from ..lang.numpy_ufuncs import ufunc_db

        return ufunc_db()[ufunc_key]

    @property
    def DIBuilder(self):
        from .debug_info import CUDADIBuilder

        return CUDADIBuilder

    @property
    def nrt(self):
        """Numba's lowering interface to the device NRT (``compiler.nrt``); usable when the
        code is compiled with NRT (``enable_nrt``, from ``NUMBA_CUDA_ENABLE_NRT``)."""
        from .nrt import CUDANRTContext

        return CUDANRTContext(self, self.enable_nrt)

    @property
    def enable_boundscheck(self):
        # Decided per compile (CompileOptions.boundscheck, NUMBA_BOUNDSCHECK included) and
        # set on the lowering subtarget from the flags; never read from the environment here.
        return self._boundscheck

    @enable_boundscheck.setter
    def enable_boundscheck(self, value):
        self._boundscheck = bool(value)

    def codegen(self):
        return self._internal_codegen

    def create_module(self, name):
        return nvvmir.new_module(name)

    @property
    def target_data(self):
        if self._target_data is None:
            import llvmlite.binding as ll

            # Only parses the layout string: no LLVM backend is involved.
            self._target_data = ll.create_target_data(nvvmir.DATA_LAYOUT)
        return self._target_data

    def subtarget(self, **kws):
        # Numba's ``subtarget``: a shallow copy with some attributes set (every compile makes
        # one, and every function lowered another).  ``copy.copy`` of a plain object is a new
        # instance of its class holding the same attribute dictionary entries; made directly,
        # without the reduce protocol.  A class with its own copy or pickle hooks takes Numba's.
        cls = type(self)
        if not _plainly_copied(cls):
            return super().subtarget(**kws)
        obj = cls.__new__(cls)
        obj.__dict__.update(self.__dict__)
        for name, value in kws.items():
            if not hasattr(obj, name):
                raise NameError("unknown option {0!r}".format(name))
            setattr(obj, name, value)
        if obj.codegen() is not self.codegen():
            obj.cached_internal_func = {}
        return obj

    def get_function(self, fn, sig, _firstcall=True):
        # Numba's lookup, with a bound implementation that does not re-inspect the
        # implementation's signature on every call (see ``implementations``); the rarer paths
        # (a definition registered for the type class, a refresh on a miss) stay Numba's.
        # A miss is remembered (``_refused``): Numba's lowering asks for implementations that do
        # not exist on every constant index (``"static_getitem"``/``"static_setitem"`` of an
        # array, before the generic ``getitem``), each time refreshing the context.
        from .implementations import BoundImplementation

        sig = sig.as_function()
        key = fn.get_impl_key(sig) if isinstance(fn, types.Callable) else fn
        if type(key) is str and key == "iternext" and isinstance(sig.args[0], types.ArrayIterator):
            from . import array_access

            if array_access.handles_iteration(self, sig.args[0].array_type):
                # Numba registers the same signature (``numba.np.arrayobj``): handed out here,
                # as ``get_getattr`` hands out array attributes
                return BoundImplementation(array_access.iternext_array, self, sig)
        deferral = self._deferral
        if deferral is not None and deferral.pending:
            self._settle_deferred("functions", self._defns, key, sig.args)
        defns = self._defns
        try:
            imp = defns[key].find(sig.args)
        except errors.NumbaNotImplementedError:
            pass
        else:
            return BoundImplementation(imp, self, sig)
        refusal = self._refusal(key, fn, sig) if _firstcall else None
        if refusal is not None and self._refused.get(refusal[0]) == refusal[1]:
            raise NotImplementedError("No definition for lowering %s%s" % (key, sig))
        try:
            return super().get_function(fn, sig, _firstcall)
        except NotImplementedError:
            if refusal is not None:
                # Remembered while nothing is registered (the registration stamp, which a
                # refresh reads) and nothing is added to the lists searched.  Only when the
                # context's refresh is current: else a refresh would still install something.
                after = self._refusal(key, fn, sig)
                if (after is not None and after[1][0] == self._refreshed_stamp
                        and after[1][1] == getattr(self.typing_context, "_refreshed_stamp", None)):
                    table = self._refused
                    if len(table) >= _MAX_REMEMBERED:
                        table.clear()
                    table[after[0]] = after[1]
            raise

    def _refusal(self, key, fn, sig):
        """(what a failed lookup of ``key``/``fn`` for ``sig`` depends on, its state now): the
        registration stamps of this context and of its typing context (the refresh Numba's
        lookup does on a miss refreshes both) and the number of definitions in each list Numba
        searches."""
        from .typing_context import registration_stamp

        defns = self._defns
        lists = (len(defns[key].versions),)
        if isinstance(fn, types.Type):
            lists += (len(defns[type(fn)].versions),)
        try:
            ident = (key, fn, sig.args)
            hash(ident)
        except TypeError:
            return None
        return ident, (registration_stamp(self), registration_stamp(self.typing_context), lists)

    def get_arg_packer(self, fe_args):
        # Numba makes an argument packer (a data model lookup per argument) four times per
        # function lowered: declaring, decorating, unpacking the arguments, calling it.
        dmm = self.data_model_manager
        try:
            known = _ARG_PACKERS.get(fe_args if type(fe_args) is tuple else tuple(fe_args))
        except TypeError:
            return super().get_arg_packer(fe_args)
        if known is not None and known[0] is dmm:
            return known[1]
        packer = super().get_arg_packer(fe_args)
        _remember(_ARG_PACKERS, tuple(fe_args), (dmm, packer))
        return packer

    def get_getattr(self, typ, attr):
        from . import array_access

        if array_access.has_value_attribute(self, typ, attr):
            return array_access.getattr_from_value
        deferral = self._deferral
        if deferral is not None and deferral.pending and not isinstance(typ, types.Module):
            self._settle_deferred("getattrs", self._getattrs, attr, (typ,))
            self._settle_deferred("getattrs", self._getattrs, None, (typ,))
        return super().get_getattr(typ, attr)

    def get_setattr(self, attr, sig):
        deferral = self._deferral
        if deferral is not None and deferral.pending:
            self._settle_deferred("setattrs", self._setattrs, attr, tuple(sig.args))
            self._settle_deferred("setattrs", self._setattrs, None, tuple(sig.args))
        return super().get_setattr(attr, sig)

    def cast(self, builder, val, fromty, toty):
        deferral = self._deferral
        if (deferral is not None and deferral.pending and fromty != toty
                and toty != types.Any and fromty is not types._undef_var):
            self._settle_deferred("casts", None, None, (fromty, toty))
        return super().cast(builder, val, fromty, toty)

    def _settle_deferred(self, kind, selectors, key, actual):
        """Install the deferred Numba modules first when they could change this lookup."""
        from numba.core.base import OverloadSelector

        if selectors is None:
            selector = self._casts if kind == "casts" else self._get_constants
        else:
            selector = selectors.get(key)
            if selector is None:
                selector = OverloadSelector()
        if self._deferral.lowering_needs(kind, selector, key, actual):
            self._deferral.load()

    def get_abi_sizeof(self, ty):
        # llvmlite answers by printing the type into a module and parsing it with LLVM (~0.1 ms);
        # Numba asks for every user variable it allocates.  Layout-only answers: cache by text.
        return self._layout_query(ty, "size")

    def get_abi_alignment(self, ty):
        return self._layout_query(ty, "alignment")

    def _layout_query(self, ty, what):
        if not isinstance(ty, ir.Type):
            raise TypeError(f"expected an LLVM type, got {ty!r}")
        if isinstance(ty, ir.IdentifiedStructType):  # its text is a name, not a layout
            return self._ask_llvm(ty, what)
        key = (str(ty), what)
        answer = _LAYOUT_CACHE.get(key)
        if answer is None:
            answer = _LAYOUT_CACHE[key] = self._ask_llvm(ty, what)
        return answer

    def _ask_llvm(self, ty, what):
        if what == "size":
            return ty.get_abi_size(self.target_data)
        return ty.get_abi_alignment(self.target_data)

    @cached_property
    def nonconst_module_attrs(self):
        """``cuda.laneid``/``cuda.warpsize`` ... read special registers, so Numba must not fold
        them as module constants.  Families add names with a ``NONCONST_MODULE_ATTRS`` tuple.
        (Kept per context as before, and made once per list of family modules: every function
        is lowered by a fresh subtarget, a copy of this context, which made it again.)"""
        from .typing_context import family_modules

        modules = family_modules()
        answer = _NONCONST_MODULE_ATTRS.get(modules)
        if answer is None:
            import numba_cuda

            names = []
            for module in modules:
                names.extend(getattr(module, "NONCONST_MODULE_ATTRS", ()))
            answer = tuple((types.Module(numba_cuda), name) for name in names)
            _NONCONST_MODULE_ATTRS.clear()
            _NONCONST_MODULE_ATTRS[modules] = answer
        return answer

    @cached_property
    def call_conv(self):
        return CUDACallConv(self)

    #: The pipeline class of subroutines: ``pipeline.CUDACompiler``, set by ``compiler.pipeline``
    #: (which imports this module, so this one cannot import it).
    subroutine_pipeline_class = None

    def _compile_subroutine_no_cache(self, builder, impl, sig, locals=None, flags=None):
        """Numba's, through the CUDA pipeline: a subroutine that lowering code compiles
        (``context.compile_internal`` / ``compile_subroutine``, e.g. an ``@intrinsic`` calling
        a device function) gets the passes and descriptors every CUDA function gets -- the
        CUDA front end, type inference and lowering, ``fndesc.call_conv`` -- instead of
        Numba's CPU pipeline run with this context."""
        from numba.core import compiler, targetconfig
        from numba.core.compiler_lock import global_compiler_lock

        pipeline_class = self.subroutine_pipeline_class
        if pipeline_class is None:  # (set when compiler.pipeline is imported: every compile is)
            raise RuntimeError("a CUDA subroutine compiles inside a CUDA compile; import "
                               "numba_cuda.compiler.pipeline first")
        with global_compiler_lock:
            library = self.codegen().create_library(impl.__name__)
            if flags is None:  # as Numba's: the NRT setting of the compile this is part of
                flags = compiler.Flags()
                stack = targetconfig.ConfigStack()
                if stack:
                    outer = stack.top()
                    if outer.is_set("nrt") and outer.nrt:
                        flags.nrt = True
            flags.no_compile = True
            flags.no_cpython_wrapper = True
            flags.no_cfunc_wrapper = True
            cres = compiler.compile_extra(self.typing_context, self, impl, sig.args,
                                          sig.return_type, flags, locals or {}, library=library,
                                          pipeline_class=pipeline_class)
            self.active_code_library.add_linking_library(cres.library)
            return cres

    def insert_user_function(self, func, fndesc, libs=()):
        super().insert_user_function(func, fndesc, libs)
        self._unresolved_calls.defined(fndesc.mangled_name, libs)

    def call_unresolved(self, builder, name, sig, args):
        # Recursion through another specialisation (see ``recursion``): link its library.
        self._unresolved_calls.called(name, self.active_code_library)
        return super().call_unresolved(builder, name, sig, args)

    def mangler(self, name, argtypes, *, abi_tags=(), uid=None):
        return mangle(name, argtypes, abi_tags=abi_tags, uid=uid)

    def declare_env_global(self, module, envname):
        """Numba's per-function environment pointer is never used on the device: make it an
        internal global that libNVVM removes, instead of a ``.common .global`` in the PTX."""
        gv = module.globals.get(envname)
        if gv is None:
            gv = ir.GlobalVariable(module, ir.IntType(8).as_pointer(), name=envname)
            gv.linkage = "internal"
            gv.initializer = ir.Constant(gv.type.pointee, None)
        return gv

    def get_constant_generic(self, builder, ty, val):
        """A dispatcher used as a global (``dev`` in ``dev(x)``) needs no value on the device:
        calls are lowered through its type.  Numba's CPU target registers a
        ``lower_constant(Dispatcher)`` in the shared builtin registry that emits a host function
        pointer; answering here keeps it out regardless of registration order."""
        if isinstance(ty, types.Dispatcher):
            return self.get_dummy_value()
        deferral = self._deferral
        if deferral is not None and deferral.pending:
            self._settle_deferred("constants", None, None, (ty,))
        global _ValueStub
        if _ValueStub is None:
            from ..lang.stubs import ValueStub as _ValueStub
        if isinstance(val, _ValueStub):
            # ``from numba.cuda import laneid``: a per-thread value, read where it is used.
            from .typing_context import family_modules

            for module in family_modules():
                hook = getattr(module, "lower_value_stub", None)
                if hook is not None:
                    return hook(self, builder, val)
        return super().get_constant_generic(builder, ty, val)

    def insert_string_const_addrspace(self, builder, string):
        """A NUL-terminated UTF-8 copy of ``string`` in constant memory, as a generic ``i8*``
        (NVIDIA's target context method; cuDF's string UDFs lower literals with it): one internal
        global per string and module."""
        from ..lang.memory import ADDRSPACE_CONSTANT, generic_pointer

        data = string.encode("utf-8") + b"\0"
        module = builder.module
        name = f"__conststring__.{hashlib.sha1(data).hexdigest()}"
        gv = module.globals.get(name)
        if gv is None:
            array_type = ir.ArrayType(ir.IntType(8), len(data))
            gv = ir.GlobalVariable(module, array_type, name, addrspace=ADDRSPACE_CONSTANT)
            gv.linkage = "internal"
            gv.global_constant = True
            gv.initializer = ir.Constant(array_type, bytearray(data))
        return generic_pointer(builder, gv, ir.IntType(8))

    def make_constant_array(self, builder, typ, ary):
        """Global NumPy arrays used in kernels: delegated to the memory family's
        ``make_constant_array(context, builder, typ, ary)`` (the first family defining it)."""
        from .typing_context import family_modules

        for module in family_modules():
            hook = getattr(module, "make_constant_array", None)
            if hook is not None:
                return hook(self, builder, typ, ary)
        raise errors.UnsupportedError(
            "global arrays cannot be used in CUDA kernels yet (no kernel-language family places "
            "them in constant memory); pass the array as a kernel argument"
        )

    # Containers that need memory allocation (NRT) do not exist on the device.
    def _no_allocation(self, what):
        # Literals are refused before typing (containers.RejectAllocatingContainers); this
        # catches containers introduced later (inlined implementations).
        from .containers import no_allocation_message

        raise errors.LoweringError(no_allocation_message(what))

    def build_list(self, builder, list_type, items):
        self._no_allocation("lists")

    def build_set(self, builder, set_type, items):
        self._no_allocation("sets")

    def build_map(self, builder, dict_type, item_types, items):
        self._no_allocation("dicts")

    def get_executable(self, library, fndesc, env):
        raise NotImplementedError("CUDA functions are not executable on the host")

    # ---- kernels and ABI wrappers -----------------------------------------------------
    #: at most this many kernel wrapper templates are kept (oldest dropped first)
    WRAPPER_TEMPLATES_MAX = 512
    #: Kernel wrappers without debug info pass the flattened arguments through (False: Numba's
    #: round trip, rebuilding every value and flattening it again; tests compare the two).
    WRAPPER_PASS_THROUGH = True
    #: The pass-through wrapper's text is written directly (``kernel_wrapper.pass_through_text``)
    #: instead of built with ``llvmlite.ir`` and printed (False: built; tests compare the two).
    WRAPPER_TEXT_DIRECT = True

    @cached_property
    def _wrapper_templates(self):
        return {}

    def make_kernel(self, library, fndesc, entry_name, max_registers=None, debug_location=None,
                    report_errors=False, launch_bounds=None):
        """Add a module to ``library`` with the kernel ``entry_name`` wrapping the device function
        ``fndesc``.  Returns the flattened LLVM argument types.

        ``debug_location=(filename, line, directives_only)`` gives the wrapper debug info, so that
        line information of the inlined function survives optimisation.  ``report_errors``: the
        wrapper records the first failing thread's status in the kernel's error record (a
        global named ``device_errors.error_global_name(entry_name)``).

        Without debug info the wrapper's text comes from a template made once per
        (argument types, return type, ``max_registers``, ``report_errors``): see
        ``kernel_wrapper``."""
        from . import kernel_wrapper

        if debug_location is None:
            template = self.kernel_wrapper_template(fndesc.argtypes, fndesc.restype,
                                                    max_registers, report_errors, launch_bounds)
            name = kernel_wrapper.module_name(entry_name)
            library.add_ir_text(name, template.render(entry_name, fndesc.llvm_func_name))
            if template.spliceable:
                library.spliceable_wrappers[name] = fndesc.llvm_func_name
            ll_args = list(template.ll_args)
        else:
            module, ll_args = self.build_kernel_wrapper(
                fndesc.argtypes, fndesc.restype, entry_name, fndesc.llvm_func_name,
                max_registers, report_errors, debug_location, fndesc, launch_bounds)
            library.add_ir_module(module, owned=True)
        if report_errors:
            from . import device_errors

            library.exported_names.add(device_errors.error_global_name(entry_name))
        library.kernel_names.add(entry_name)
        return ll_args

    def kernel_wrapper_template(self, argtypes, restype, max_registers=None, report_errors=False,
                                launch_bounds=None):
        """The ``kernel_wrapper.WrapperTemplate`` of kernels with these properties (cached)."""
        from . import codelibrary, ir_printer, kernel_wrapper

        key = (tuple(argtypes), restype, max_registers or None, bool(report_errors),
               launch_bounds or None)
        cache = self._wrapper_templates
        template = cache.get(key)
        if template is None:
            text = None
            direct = False
            if self.WRAPPER_PASS_THROUGH and self.WRAPPER_TEXT_DIRECT and not report_errors:
                ll_args = list(self.get_arg_packer(argtypes).argument_types)
                text = kernel_wrapper.pass_through_text(
                    ll_args, self.call_conv.get_function_type(restype, argtypes), max_registers,
                    launch_bounds, triple=nvvmir.TRIPLE, data_layout=nvvmir.DATA_LAYOUT,
                    ir_version=nvvm.ir_version())
                direct = text is not None
            if text is None:
                module, ll_args = self.build_kernel_wrapper(
                    argtypes, restype, kernel_wrapper.ENTRY, kernel_wrapper.CALLEE, max_registers,
                    report_errors, launch_bounds=launch_bounds)
                nvvmir.add_ir_version(module)
                text = nvvmir.downgrade_for_llvm7(ir_printer.module_text(module))
                # the module is printed: emptied, its reference cycles (globals, blocks, metadata
                # pointing back at what holds them) no longer leave it to the cyclic collector
                codelibrary.release_module(module)
            template = kernel_wrapper.WrapperTemplate(text, ll_args, spliceable=direct)
            if len(cache) >= self.WRAPPER_TEMPLATES_MAX:
                cache.pop(next(iter(cache)))
            cache[key] = template
        return template

    def build_kernel_wrapper(self, argtypes, restype, entry_name, callee_name, max_registers=None,
                             report_errors=False, debug_location=None, fndesc=None,
                             launch_bounds=None):
        """Build the kernel wrapper module with ``llvmlite.ir``: ``(module, ll_args)``.
        ``fndesc`` (names and arguments for debug info) is needed with ``debug_location``."""
        from . import kernel_wrapper

        packer = self.get_arg_packer(argtypes)
        ll_args = list(packer.argument_types)
        module = self.create_module(kernel_wrapper.module_name(entry_name))
        wrapper = ir.Function(module, ir.FunctionType(ir.VoidType(), ll_args), entry_name)
        builder = ir.IRBuilder(wrapper.append_basic_block("entry"))
        dibuilder = None
        if debug_location is not None:
            filename, line, directives_only = debug_location
            dibuilder = self.DIBuilder(module=module, filepath=filename, cgctx=self,
                                       directives_only=directives_only)
            dibuilder.mark_subprogram(wrapper, fndesc.qualname, fndesc.args, argtypes, line)
            dibuilder.mark_location(builder, line)
        callee_ty = self.call_conv.get_function_type(restype, argtypes)
        callee = ir.Function(module, callee_ty, callee_name)
        if dibuilder is None and self.WRAPPER_PASS_THROUGH:
            # The device function takes the kernel's arguments flattened by the same packer:
            # they are passed through as they come.  Numba's wrapper rebuilds every value from
            # them (``from_argument``) and flattens it again for the call (``as_argument``), a
            # round trip libNVVM folds away (the PTX is the same; the device function decodes
            # its arguments itself) but that costs building and printing ~10 instructions per
            # argument.  With debug info the round trip stays: its instructions carry the
            # kernel's line, which the PTX's line table keeps for the argument loads.
            retty = callee.args[0].type.pointee
            retslot = cgutils.alloca_once(builder, retty)
            builder.store(cgutils.get_null_value(retty), retslot)
            code = builder.call(callee, [retslot, *wrapper.args])
            status = self.call_conv._get_return_status(builder, code) if report_errors else None
        else:
            values = packer.from_arguments(builder, wrapper.args)
            status, _ = self.call_conv.call_function(builder, callee, restype, argtypes, values)
        keep = ()
        if report_errors:
            from . import device_errors

            record = device_errors.define_error_record(module, entry_name)
            device_errors.emit_error_check(builder, status, record)
            keep = (record,)
        builder.ret_void()
        if dibuilder is not None:
            dibuilder.finalize()
        nvvmir.mark_kernel(module, wrapper, max_registers, keep=keep, launch_bounds=launch_bounds)
        return module, ll_args

    def make_c_abi_wrapper(self, library, fndesc, abi_name):
        """Add ``abi_name``, a C-ABI function ``ret f(args...)`` calling the Numba-ABI one."""
        argtypes = fndesc.argtypes
        restype = fndesc.restype
        ll_args = [self.get_value_type(t) for t in argtypes]
        ll_ret = ir.VoidType() if restype == types.none else self.get_value_type(restype)
        module = self.create_module(f"{abi_name}.cabi")
        wrapper = ir.Function(module, ir.FunctionType(ll_ret, ll_args), abi_name)
        builder = ir.IRBuilder(wrapper.append_basic_block("entry"))
        callee_ty = self.call_conv.get_function_type(restype, argtypes)
        callee = ir.Function(module, callee_ty, fndesc.llvm_func_name)
        _status, result = self.call_conv.call_function(builder, callee, restype, argtypes, list(wrapper.args))
        if restype == types.none:
            builder.ret_void()
        else:
            builder.ret(result)
        library.add_ir_module(module, owned=True)
        library.exported_names.add(abi_name)


_DATA_MODEL_MANAGER = None
_ValueStub = None  # lang.stubs.ValueStub, imported on first use


class CUDADataModelManager(datamodel.DataModelManager):
    """Numba's data model manager, answering a type it was asked about before from a table
    keyed by the type object's identity (Numba's own table is keyed by the type, so every lookup
    hashes the type's key -- nested tuples for arrays -- thousands of times per kernel).  The
    answer is the model Numba's table holds for that type: a manager never changes a model it
    handed out.  The table keeps its types alive (so their ids stay theirs) and is bounded.
    A type only Numba's deferred modules give a model (``deferred_impls``) imports them."""

    MAX_REMEMBERED = 4096

    def __init__(self, handlers=None):
        super().__init__(handlers)
        self._by_identity = {}

    def lookup(self, fetype):
        known = self._by_identity.get(id(fetype))
        if known is not None and known[0] is fetype:
            return known[1]
        try:
            model = super().lookup(fetype)
        except KeyError:
            # a model only the deferred Numba modules register (``deferred_impls``): import them
            # (the contexts install them at their next lookup)
            from . import deferred_impls

            if deferred_impls.any_imported() or not deferred_impls.model_is_deferred(fetype):
                raise
            deferred_impls.import_all()
            model = super().lookup(fetype)
        table = self._by_identity
        if len(table) >= self.MAX_REMEMBERED:
            table.clear()
        table[id(fetype)] = (fetype, model)
        return model

    def __getitem__(self, fetype):
        return self.lookup(fetype)


def cuda_data_model_manager():
    """The CUDA target's data models: Numba's default models, live through a chain (so later
    third-party ``register_model`` calls stay visible), overridden by the kernel-language families'
    own -- every family module with a ``register_data_models(manager)`` function (fp16 gives
    ``float16`` its ``half`` model).  Numba's default manager, used by the CPU target, is never
    modified.  Built once per process: the handlers are pure."""
    global _DATA_MODEL_MANAGER
    if _DATA_MODEL_MANAGER is None:
        from .typing_context import family_modules

        manager = CUDADataModelManager(ChainMap({}, datamodel.default_manager._handlers))
        for module in family_modules():
            hook = getattr(module, "register_data_models", None)
            if hook is not None:
                hook(manager)
        for fetypecls, handler in _PENDING_MODELS:
            manager.register(fetypecls, handler)
        _PENDING_MODELS.clear()
        _DATA_MODEL_MANAGER = manager
    return _DATA_MODEL_MANAGER


#: ``register_cuda_model`` calls made before the manager was built: applied when it is
_PENDING_MODELS = []


def register_cuda_model(fetypecls, handler):
    """Give the frontend type class ``fetypecls`` the data model ``handler`` on the CUDA target
    only (Numba's default manager, the CPU target's, is not touched): what the peers'
    ``numba.cuda.models.register_model`` does.  Called before the CUDA contexts exist (at a
    library's import), the registration waits for the manager to be built, after the
    kernel-language families' own models, so that it wins over them as a later registration
    does."""
    if _DATA_MODEL_MANAGER is None:
        _PENDING_MODELS.append((fetypecls, handler))
    else:
        _DATA_MODEL_MANAGER.register(fetypecls, handler)
