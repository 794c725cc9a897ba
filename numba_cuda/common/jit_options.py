"""``JitOptions``: the options of ``cuda.jit``, parsed and checked once, for both targets.

``JitOptions.parse(options)`` takes the keyword arguments of ``cuda.jit`` (or of a pickled or
cloned dispatcher) and returns a frozen value, or raises the error that names the bad option.
The GPU target's ``cuda.jit`` and ``CUDADispatcher`` and the simulator's ``cuda.jit`` read the
same value; the compiler makes its ``CompileOptions`` (what changes generated code) from
:meth:`JitOptions.compile_fields`.

Numba's own options (:data:`NUMBA_INTERNAL_OPTIONS`: ``nopython``, ``forceinline`` ...) are
accepted and ignored, as Numba's CUDA target does (``forceinline=True`` is ``inline="always"``).
"""

from .launch_dims import normalize_launch_bounds, normalize_shared_memory_carveout
from .records import FrozenRecord

#: The options of ``cuda.jit``.
JIT_OPTION_NAMES = ("device", "inline", "link", "debug", "opt", "lineinfo", "fastmath",
                    "max_registers", "cache", "boundscheck", "lto", "extensions", "launch_bounds",
                    "shared_memory_carveout")

#: Options Numba's machinery passes to a target's ``jit`` (``@overload``, ``numba.jit``-style
#: decorators), accepted and ignored.
NUMBA_INTERNAL_OPTIONS = (
    "nopython", "forceobj", "looplift", "_nrt", "nogil", "writable_args", "no_rewrites",
    "no_cpython_wrapper", "no_cfunc_wrapper", "parallel", "error_model", "forceinline",
    "_dbg_extend_lifetimes", "_dbg_optnone",
)

#: The options that change generated code: the fields of the compiler's ``CompileOptions``.
COMPILE_FIELDS = ("debug", "lineinfo", "fastmath", "opt", "inline", "max_registers",
                  "boundscheck", "lto", "launch_bounds")


def switch(name, value, none=False):
    """An on/off option: a bool (NumPy's too) or an int (``opt=3`` reads as on); with ``none``,
    None stays None (meaning "the default").  Anything else -- ``debug="no"`` would have been
    true -- is a ValueError naming the option."""
    if value is None:
        return None if none else False
    if isinstance(value, int) or type(value).__name__ == "bool_":
        return bool(value)
    raise ValueError(f"{name} must be True or False, not {value!r}")


def check_inline(inline):
    """``inline=``: ``"never"`` (or None), ``"always"`` or a bool, returned as a bool; or a cost
    model, returned as it is: Numba's ``cost_model(expr, caller_ir, callee_ir) -> bool``, which
    decides at each call site whether the device function's IR is inlined into its caller (as in
    Numba's ``jit`` and NVIDIA's ``cuda.jit``)."""
    if inline is None or isinstance(inline, str) and inline == "never":
        return False
    if isinstance(inline, str) and inline == "always":
        return True
    if callable(inline) and not isinstance(inline, type):
        return inline
    if not isinstance(inline, bool):
        raise ValueError(f"inline must be 'always', 'never', a bool or a cost-model function "
                         f"(expr, caller_ir, callee_ir) -> bool, not {inline!r}")
    return inline


def cost_model_of(inline):
    """The cost model ``inline=`` names, or None."""
    inline = check_inline(inline)
    return None if isinstance(inline, bool) else inline


def check_max_registers(max_registers):
    if max_registers is not None and (isinstance(max_registers, bool)
                                      or not isinstance(max_registers, int) or max_registers <= 0):
        raise ValueError(f"max_registers must be a positive int, got {max_registers!r}")
    return max_registers


def _warn_about_debug_combinations(debug, opt, lineinfo):
    """Numba's ``NumbaInvalidConfigWarning``, in words both peers' tests look for, for what
    ``debug=True`` does not combine with: an explicit ``opt=True`` (``debug=True`` turns
    optimisation off unless it is asked for) and ``lineinfo=True`` (which it includes)."""
    if not debug:
        return
    import warnings

    from numba.core.errors import NumbaInvalidConfigWarning

    if opt:
        warnings.warn(NumbaInvalidConfigWarning(
            "debug=True with opt=True is not supported by CUDA: NVVM's debug information "
            "describes unoptimised code, so variables and lines may be missing or wrong in a "
            "debugger. Leave opt unset (debug=True turns optimisation off) or set opt=False"),
            stacklevel=4)
    if lineinfo:
        warnings.warn(NumbaInvalidConfigWarning(
            "debug and lineinfo are mutually exclusive: debug=True gives full debug "
            "information, line tables included, and lineinfo=True is ignored. Use one of them"),
            stacklevel=4)


class JitOptions(FrozenRecord):
    """The options of one ``cuda.jit`` (see the module docstring); None means "the default".

    Fields (in ``JIT_OPTION_NAMES`` order): ``device``, ``inline``, ``link`` (a tuple),
    ``debug``, ``opt``, ``lineinfo``, ``fastmath``, ``max_registers``, ``cache``,
    ``boundscheck``, ``lto`` (True, False, or None -- not given: LTO when a link input is
    LTO-IR, see CompiledKernel), ``extensions`` (a tuple), ``launch_bounds`` and
    ``shared_memory_carveout`` (the preferred shared-memory carveout, percent, -1 for the
    driver's default, set on the kernel where it is loaded; None: the driver's choice).
    """

    def __init__(self, device=False, inline="never", link=(), debug=None, opt=None,
                 lineinfo=False, fastmath=False, max_registers=None, cache=False,
                 boundscheck=None, lto=None, extensions=(), launch_bounds=None,
                 shared_memory_carveout=None):
        vars(self).update(
            device=device, inline=inline, link=link, debug=debug, opt=opt, lineinfo=lineinfo,
            fastmath=fastmath, max_registers=max_registers, cache=cache,
            boundscheck=boundscheck, lto=lto, extensions=extensions,
            launch_bounds=launch_bounds, shared_memory_carveout=shared_memory_carveout)

    @classmethod
    def parse(cls, options, api="@cuda.jit"):
        """The ``JitOptions`` of ``options`` (a mapping of keyword arguments), checked: an
        unknown name is a ``TypeError``, a bad value a ``ValueError``, each naming it."""
        options = dict(options)
        unknown = set(options) - set(JIT_OPTION_NAMES) - set(NUMBA_INTERNAL_OPTIONS)
        if unknown:
            raise TypeError(f"unknown {api} options: {', '.join(sorted(unknown))}; "
                            f"known: {', '.join(JIT_OPTION_NAMES)}")
        inline = options.get("inline", "never")
        if options.get("forceinline"):
            inline = "always"
        check_inline(inline)
        link = options.get("link") or ()
        link = (link,) if isinstance(link, str) else tuple(link)
        debug = switch("debug", options.get("debug"), none=True)
        if debug is None:  # NUMBA_CUDA_DEBUGINFO, as in Numba
            from numba.core import config

            debug = bool(getattr(config, "CUDA_DEBUGINFO_DEFAULT", 0)) or None
        cache = options.get("cache", False)
        if not isinstance(cache, int) and type(cache).__name__ != "bool_":
            raise ValueError(f"cache must be True or False, not {cache!r}")
        device = bool(options.get("device", False))
        carveout = normalize_shared_memory_carveout(options.get("shared_memory_carveout"))
        if carveout is not None and device:
            raise ValueError("shared_memory_carveout applies to kernels: a device function "
                             "(device=True) runs with the carveout of the kernel that calls it")
        opt = switch("opt", options.get("opt"), none=True)
        lineinfo = switch("lineinfo", options.get("lineinfo", False))
        _warn_about_debug_combinations(debug, opt, lineinfo)
        return cls(
            device=device, inline=inline, link=link, debug=debug,
            opt=opt,
            lineinfo=lineinfo,
            fastmath=options.get("fastmath", False),
            max_registers=check_max_registers(options.get("max_registers")),
            cache=bool(cache), boundscheck=switch("boundscheck", options.get("boundscheck"), none=True),
            lto=switch("lto", options.get("lto"), none=True),
            extensions=tuple(options.get("extensions") or ()),
            launch_bounds=normalize_launch_bounds(options.get("launch_bounds")),
            shared_memory_carveout=carveout)

    def compile_fields(self):
        """``{name: value}`` of the options that change generated code (``CompileOptions``)."""
        return {name: getattr(self, name) for name in COMPILE_FIELDS}

    def as_dict(self):
        """The options as keyword arguments of ``cuda.jit`` (``parse`` of it gives this value)."""
        out = {name: getattr(self, name) for name in self.FIELDS}  # (no copies of extensions)
        out["link"], out["extensions"] = list(self.link), list(self.extensions)
        return out
