"""The compiler pipeline: Numba's untyped and typed passes, then CUDA lowering to NVVM IR.

``compile_cuda(pyfunc, return_type, args, options)`` compiles one specialisation to a
``CompileResult`` whose ``library`` is a ``CUDACodeLibrary`` (IR only; PTX is made later per
compute capability).  Every compile runs inside ``target_override("cuda")`` so that target-specific
``@overload``/``@intrinsic`` extensions are selected.
"""

from numba.core import errors, funcdesc, typing
from numba.core.compiler import CompilerBase, DefaultPassBuilder, compile_extra, compile_result
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import LoweringPass, register_pass
from numba.core.target_extension import target_override
from numba.core.typed_passes import (
    AnnotateTypes, IRLegalization, NopythonRewrites, NopythonTypeInference, PreLowerStripPhis,
)
from numba.core.untyped_passes import InlineClosureLikes, InlineInlinables

from ..common import collection_pause
from . import source_files
from .containers import RejectAllocatingContainers
from .front_end import REPLACEMENTS as _FRONT_END
from .nrt import name_the_nrt_setting
from .strings import RejectStringBuilding
from ..common.jit_options import check_inline, check_max_registers, switch
from ..common.launch_dims import normalize_launch_bounds
from ..common.records import FrozenRecord
from .try_blocks import RejectTryBlocks
from .type_inference import CUDATypeInference
from .lowering import CUDALower
from .pass_manager import (
    CUDAPassManager, InlineClosureLikesWhenNeeded, InlineInlinablesLazily,
    NopythonRewritesWhenNeeded, StripPhisBeforeLegalization,
)
from .target import TARGET_NAME, CUDAFlags, CUDATargetOptions, cuda_target, registered_jit
from .target_context import CUDATargetContext


class CompileOptions(FrozenRecord):
    """Everything that changes generated code, besides the signature and the compute capability.

    Hashable: part of the in-memory cache key.  Fields: ``debug``, ``lineinfo``, ``fastmath``
    (the LLVM fast-math flag names asked for, sorted, ``True`` being ``("fast",)``; any flag
    turns fast math on, as in Numba's CUDA target, see ``fastmath_flags``), ``opt``,
    ``inline``, ``max_registers``, ``boundscheck``, ``lto`` (link-time optimisation: True,
    False, or None -- not given: a kernel uses it when one of its link inputs is LTO-IR,
    ``CompiledKernel.lto``) and ``launch_bounds`` (kernels: (max threads per block[, min blocks
    per multiprocessor[, max blocks per cluster]]), PTX ``.maxntid``/``.minnctapersm``/
    ``.maxclusterrank``; None: no bounds).
    """

    def __init__(self, debug=False, lineinfo=False, fastmath=(), opt=True, inline=False,
                 max_registers=None, boundscheck=False, lto=None, launch_bounds=None):
        vars(self).update(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt,
                          inline=inline, max_registers=max_registers, boundscheck=boundscheck,
                          lto=lto, launch_bounds=launch_bounds)

    @property
    def reports_exceptions(self):
        """Kernels record the first failing thread's exception for the host (debug mode)."""
        return self.debug or self.boundscheck

    def nvvm_options(self):
        opts = [f"-opt={3 if self.opt else 0}"]
        if self.fastmath:
            opts += ["-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"]
        if self.debug:
            opts.append("-g")
        elif self.lineinfo:
            opts.append("-generate-line-info")
        return tuple(opts)

    @classmethod
    def from_user(cls, debug=None, lineinfo=False, fastmath=False, opt=None, inline=False,
                  max_registers=None, boundscheck=None, lto=None, launch_bounds=None):
        # (the checks are JitOptions', numba_cuda.common.jit_options: the compile functions,
        # which take these options without cuda.jit, get the same errors)
        debug = switch("debug", debug)
        lineinfo = switch("lineinfo", lineinfo)
        lto = switch("lto", lto, none=True)
        boundscheck = resolve_boundscheck(switch("boundscheck", boundscheck, none=True), debug)
        opt = switch("opt", opt, none=True)
        if opt is None:
            opt = not debug
        # (a cost model decides IR inlining at call sites: no LLVM-level always-inline)
        inline = check_inline(inline) is True
        check_max_registers(max_registers)
        return cls(debug=debug, lineinfo=bool(lineinfo), fastmath=fastmath_flags(fastmath), opt=bool(opt),
                   inline=bool(inline), max_registers=max_registers, boundscheck=boundscheck,
                   lto=None if lto is None else bool(lto), launch_bounds=normalize_launch_bounds(launch_bounds))


#: LLVM's fast-math flags, the names Numba's ``fastmath=`` accepts (``numba.core.cpu_options``).
FASTMATH_FLAGS = frozenset(("fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"))


def fastmath_flags(value):
    """``fastmath=`` as a sorted tuple of flag names: ``True`` -> ``("fast",)``, ``False`` ->
    ``()``, a set (or list/tuple) of names, or a dict ``{name: bool}`` (the names mapped to
    true), as Numba accepts.  Anything else, or an unknown name, is a ``ValueError`` naming it.

    In CUDA code any flag turns fast math on as a whole, as Numba's CUDA target does: libNVVM's
    ``-ftz=1 -prec-div=0 -prec-sqrt=0 -fma=1``, float32 division as ``__nv_fast_fdividef``
    and the fast float32 libdevice functions (the PTX has no per-instruction flags to honour).
    """
    if isinstance(value, bool) or (hasattr(value, "__bool__") and type(value).__name__ == "bool_"):
        return ("fast",) if value else ()
    if value is None or (isinstance(value, int) and value in (0, 1)):
        return ("fast",) if value else ()
    flags_attr = getattr(value, "flags", None)  # numba.core.cpu_options.FastMathOptions
    if isinstance(flags_attr, (set, frozenset)) and not isinstance(value, dict):
        value = flags_attr
    if isinstance(value, dict):
        names = list(value)
        chosen = [name for name, enabled in value.items() if enabled]
    elif isinstance(value, (set, frozenset, list, tuple)):
        names = chosen = list(value)
    else:
        raise ValueError(
            f"fastmath must be True, False, a set of LLVM fast-math flag names or a dict of them "
            f"to booleans, not {value!r}; the flags are {', '.join(sorted(FASTMATH_FLAGS))}"
        )
    for name in names:
        if not isinstance(name, str) or name not in FASTMATH_FLAGS:
            raise ValueError(
                f"unknown fastmath flag {name!r}; the LLVM fast-math flags are "
                f"{', '.join(sorted(FASTMATH_FLAGS))} (or fastmath=True for all of them)"
            )
    return tuple(sorted(set(chosen)))


def resolve_boundscheck(boundscheck, debug):
    """Bounds checking of array indexing: ``NUMBA_BOUNDSCHECK`` (0/1) when set, as in Numba,
    else the ``boundscheck`` option, else on exactly when ``debug`` is."""
    from numba.core import config

    if config.BOUNDSCHECK is not None:
        return bool(config.BOUNDSCHECK)
    if boundscheck is None:
        return bool(debug)
    return bool(boundscheck)


class DeviceEntryPoint:
    """The unique, hashable ``entry_point`` of a CUDA ``CompileResult`` (there is no host code)."""

    __slots__ = ("qualname",)

    def __init__(self, qualname):
        self.qualname = qualname

    def __repr__(self):
        return f"<CUDA device function {self.qualname}>"


class CUDAFunctionDescriptor(funcdesc.PythonFunctionDescriptor):
    """Numba's descriptor of a compiled function, with NVIDIA's ``call_conv``: the calling
    convention of the function (every function compiled here has the Numba device ABI; a C-ABI
    export is a wrapper around one), so that lowering code written for NVIDIA's numba-cuda
    (``context.fndesc.call_conv.return_user_exc(builder, exc, args)``) works.  Set by the
    lowering pass, for the target context that lowers the function."""

    __slots__ = ("call_conv",)


@register_pass(mutates_CFG=True, analysis_only=False)
class CUDANativeLowering(LoweringPass):
    """Lower typed Numba IR to NVVM IR in a fresh ``CUDACodeLibrary``."""

    _name = "cuda_native_lowering"

    def __init__(self):
        LoweringPass.__init__(self)

    def run_pass(self, state):
        targetctx = state.targetctx
        library = state.library
        if library is None:
            library = targetctx.codegen().create_library(state.func_id.func_qualname)
            state.library = library
        flags = state.flags
        fndesc = CUDAFunctionDescriptor.from_specialized_function(
            state.func_ir, state.typemap, state.return_type, state.calltypes,
            mangler=targetctx.mangler, inline=flags.forceinline, noalias=flags.noalias,
            abi_tags=[flags.get_mangle_string()],
        )
        fndesc.call_conv = targetctx.call_conv
        targetctx.ensure_datetime_lowering(state.typemap.values())
        with targetctx.push_code_library(library):
            lower = CUDALower(targetctx, library, fndesc, state.func_ir, metadata=state.metadata)
            lower.lower()
            env = lower.env
            call_helper = lower.call_helper
            del lower
        from numba.core.compiler import _LowerResult

        state["cr"] = _LowerResult(fndesc, call_helper, cfunc=None, env=env)
        return True


@register_pass(mutates_CFG=True, analysis_only=False)
class CUDABackend(LoweringPass):
    """Wrap the lowering result in a ``CompileResult`` with a unique ``entry_point``."""

    _name = "cuda_backend"

    def __init__(self):
        LoweringPass.__init__(self)

    def run_pass(self, state):
        lowered = state["cr"]
        signature = typing.signature(state.return_type, *state.args)
        state.cr = compile_result(
            typing_context=state.typingctx,
            target_context=state.targetctx,
            entry_point=DeviceEntryPoint(lowered.fndesc.qualname),
            typing_error=state.status.fail_reason,
            type_annotation=state.type_annotation,
            library=state.library,
            call_helper=lowered.call_helper,
            signature=signature,
            objectmode=False,
            lifted=state.lifted,
            fndesc=lowered.fndesc,
            environment=lowered.env,
            metadata=state.metadata,
            reload_init=state.reload_init,
        )
        return True


#: Numba passes replaced by the same pass behind a "does the IR need it" check, without work a
#: later pass repeats, or with the inlining worker made when first used (pass_manager).
# (``InlineOverloads`` is the front end's: InlineOverloadsWhenNeeded, lazy worker included)
_WHEN_NEEDED = {InlineInlinables: InlineInlinablesLazily,
                InlineClosureLikes: InlineClosureLikesWhenNeeded,
                NopythonRewrites: NopythonRewritesWhenNeeded,
                PreLowerStripPhis: StripPhisBeforeLegalization,
                NopythonTypeInference: CUDATypeInference,
                **_FRONT_END}


def _when_needed(passes):
    return [(_WHEN_NEEDED.get(cls, cls), description) for cls, description in passes]


#: What Numba's pipeline builders (``DefaultPassBuilder.define_untyped_pipeline`` and
#: ``define_typed_pipeline``) read of the compiler state: whether the function's IR exists yet,
#: and these flags (``tests/compiler/test_pass_manager.py`` checks that they read nothing else).
PIPELINE_FLAGS = ("no_rewrites", "enable_ssa", "auto_parallel")


def pipeline_key(state):
    """The values the CUDA pipeline's list of passes is made of (see ``CUDACompiler``): those
    of the state Numba's builders read, the builders themselves and the pass replacements."""
    flags = state.flags
    return (state.func_ir is None, bool(flags.no_rewrites), bool(flags.enable_ssa),
            bool(flags.auto_parallel.enabled), DefaultPassBuilder.define_untyped_pipeline,
            DefaultPassBuilder.define_typed_pipeline, tuple(_WHEN_NEEDED.items()))


def build_pipeline_passes(state):
    """The CUDA pipeline's ``(pass class, description)`` list for ``state``, built with Numba's
    pipeline builders."""
    pm = CUDAPassManager("cuda")
    untyped = DefaultPassBuilder.define_untyped_pipeline(state)
    pm.passes.extend(_when_needed(untyped.passes))
    pm.add_pass(RejectAllocatingContainers, "refuse list/dict/set literals")
    pm.add_pass(RejectStringBuilding, "refuse building strings (str(), f-strings ...)")
    pm.add_pass(RejectTryBlocks, "refuse try/except")
    typed = DefaultPassBuilder.define_typed_pipeline(state)
    pm.passes.extend(_when_needed(typed.passes))
    pm.passes.extend(_when_needed([(IRLegalization, "ensure IR is legal prior to lowering")]))
    pm.add_pass(AnnotateTypes, "annotate types")
    pm.add_pass(CUDANativeLowering, "CUDA native lowering")
    pm.add_pass(CUDABackend, "CUDA backend")
    return tuple(pm.passes)


#: ``pipeline_key(state)`` -> ``build_pipeline_passes(state)``
_PIPELINE_PASSES = {}


class CUDACompiler(CompilerBase):
    def define_pipelines(self):
        """One pass manager: Numba's untyped passes, the CUDA refusals, Numba's typed passes
        (some behind a "does the IR need it" check), legalization and CUDA lowering.

        The list of passes depends only on ``pipeline_key(state)``: it is built once per key
        (Numba's builders make and finalize two pass managers of their own for it), and each
        compile gets a new pass manager holding that list (whose dependency analysis
        ``CUDAPassManager`` also computes once per list)."""
        key = pipeline_key(self.state)
        passes = _PIPELINE_PASSES.get(key)
        if passes is None:
            passes = _PIPELINE_PASSES[key] = build_pipeline_passes(self.state)
        pm = CUDAPassManager("cuda")
        pm.passes = list(passes)
        pm.finalize()
        return [pm]


# subroutines that lowering code compiles (context.compile_internal) go through this pipeline too
CUDATargetContext.subroutine_pipeline_class = CUDACompiler

#: ``(options, nrt)`` -> the flags ``make_flags`` gives outside any compile (copied out)
_FLAGS = {}
_FLAGS_MAX = 256


def make_flags(options, nrt=False):
    """Numba's flags for ``options``; ``nrt``: compile with the device NRT (``compiler.nrt``).

    Outside a compile they depend on nothing else: made once per ``(options, nrt)``, each call
    gets a copy.  Inside one (a device function compiled while a kernel is typed) they may
    inherit the outer compile's ``error_model``: made each time."""
    from numba.core.targetconfig import ConfigStack

    if ConfigStack():
        return _build_flags(options, nrt)
    key = (options, bool(nrt))
    flags = _FLAGS.get(key)
    if flags is None:
        if len(_FLAGS) >= _FLAGS_MAX:
            _FLAGS.clear()
        flags = _FLAGS[key] = _build_flags(options, nrt)
    return flags.copy()


def _build_flags(options, nrt):
    flags = CUDAFlags()
    user = {"fastmath": set(options.fastmath), "debug": options.debug or options.lineinfo,
            "boundscheck": options.boundscheck}
    if options.inline:
        user["forceinline"] = True
    CUDATargetOptions.parse_as_flags(flags, user)
    if options.lineinfo and not options.debug:
        # line tables only: debug locations without variable/type descriptions
        flags.dbg_directives_only = True
        flags.error_model = "numpy"
    flags.nrt = bool(nrt)
    return flags


def _locate(exc, pyfunc):
    """Make sure a front-end error names where it happened.  Numba's undefined-name error
    (``NameError: name 'x' is not defined``) replaces its message and so drops the location it
    still holds in ``exc.loc``: put the line that uses the name back.  Errors without any
    location name the function's definition."""
    text = str(exc)
    loc = getattr(exc, "loc", None)
    if loc is not None and getattr(loc, "line", None) and f"line {loc.line}" not in text:
        try:
            where = loc.strformat()
        except Exception:  # noqa: BLE001 - the source may be gone; the line number is enough
            where = f'File "{loc.filename}", line {loc.line}'
        exc.patch_message(f"{text}\n{where}")
        return
    code = getattr(pyfunc, "__code__", None)
    if code is not None and code.co_filename not in text:
        exc.add_context(f"compiling CUDA function {pyfunc.__qualname__} defined at "
                        f"{code.co_filename}:{code.co_firstlineno}")


@global_compiler_lock
def compile_cuda(pyfunc, return_type, args, options, locals=None):
    """Compile ``pyfunc`` for argument types ``args`` to a CUDA ``CompileResult`` (NVVM IR).

    The dispatch layer must have registered the target with Numba (``numba_cuda.dispatch``):
    device functions the code calls (``@overload(target="cuda")``, ``@njit`` helpers) are
    compiled through the ``jit`` it registered."""
    from ..common.unsupported import nrt_enabled

    registered_jit()  # a clear error now rather than an obscure one from inside Numba
    with collection_pause.paused():
        typingctx = cuda_target.typing_context
        targetctx = cuda_target.target_context
        # NUMBA_CUDA_ENABLE_NRT / config.CUDA_ENABLE_NRT, as it is when this function compiles
        nrt = nrt_enabled()
        flags = make_flags(options, nrt=nrt)
        try:
            with target_override(TARGET_NAME), source_files.tolerating_a_missing_cwd():
                cres = compile_extra(
                    typingctx=typingctx, targetctx=targetctx, func=pyfunc, args=args,
                    return_type=return_type, flags=flags, locals=locals or {},
                    pipeline_class=CUDACompiler,
                )
        except errors.NumbaError as exc:
            if not nrt:
                name_the_nrt_setting(exc)
            _locate(exc, pyfunc)
            raise
        cres.library.nvvm_options = options.nvvm_options()
        # code compiled without the NRT takes no references: unsafe to call from NRT code
        cres.library.compiled_with_nrt = nrt
        cres.library.finalize()
    return cres
