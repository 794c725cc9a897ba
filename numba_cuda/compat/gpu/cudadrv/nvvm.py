"""Numba's ``cudadrv.nvvm``: libNVVM access, re-exported from the compiler.

Besides the compiler's own functions, the names of Numba's module that code
uses directly: ``is_available()``, ``add_ir_version(module)``,
``NVVM().data_layout`` / ``NVVM().get_ir_version()``, and
``compile_ir(llvmir, **options)`` in Numba's form (one IR text, options as
keywords, PTX returned as bytes), which goes through the compiler's
:func:`numba_cuda.compiler.nvvm.compile_ir`.
"""

from numba_cuda.compiler.capability import supported_ccs as get_supported_ccs  # noqa: F401
from numba_cuda.compiler.nvvm import (  # noqa: F401
    accepts_arch,
    bindings,
    ir_version,
    libdevice_bitcode,
    version,
)
from numba_cuda.compiler.nvvm import compile_ir as _compile_ir
from numba_cuda.compiler.nvvm import option_strings
from numba_cuda.compiler.nvvmir import DATA_LAYOUT as _DATA_LAYOUT
from numba_cuda.compiler.nvvmir import add_ir_version  # noqa: F401
from numba_cuda.errors import NvvmError  # noqa: F401


def is_available():
    """True when libNVVM can be loaded."""
    try:
        bindings()
    except Exception:  # noqa: BLE001 - any failure to load means "not available"
        return False
    return True


class NVVM:
    """What Numba's ``NVVM()`` singleton tells code about libNVVM."""

    data_layout = _DATA_LAYOUT

    def get_version(self):
        return version()

    def get_ir_version(self):
        return ir_version()


def _default_arch():
    from numba_cuda.compiler.capability import resolve_cc
    from numba_cuda.dispatch.device_cc import current_device_cc

    major, minor = resolve_cc(None, current_device_cc)[:2]
    return f"compute_{major}{minor}"


def compile_ir(llvmir, arch=None, options=None, **named_options):
    """Compile NVVM IR and return the PTX (or, with ``gen-lto``, the LTO-IR) as bytes.

    Numba's form: ``compile_ir(text_or_list_of_texts, arch="compute_75", opt=3, ...)``, keyword
    options as NVIDIA's numba-cuda writes them (``k=v`` becomes ``-k=v`` with underscores as
    dashes, booleans ``1``/``0``, ``None`` the bare flag: ``**{"gen-lto": None}`` asks for
    LTO-IR; ``fastmath=True`` the four fast-math flags).  The compiler's form,
    ``compile_ir([(name, text), ...], "compute_90", ["-opt=3"])``, returns what the compiler
    returns (PTX text).
    """
    if not isinstance(llvmir, (str, bytes)) and llvmir and isinstance(llvmir[0], tuple):
        return _compile_ir(llvmir, arch or _default_arch(), options or ())
    texts = [llvmir] if isinstance(llvmir, (str, bytes)) else list(llvmir)
    opts = list(options or ()) + option_strings(named_options)
    gen_lto = "-gen-lto" in opts
    opts = [o for o in opts if o != "-gen-lto"]
    modules = [(f"module{i}", text) for i, text in enumerate(texts)]
    code = _compile_ir(modules, arch or _default_arch(), opts, gen_lto=gen_lto)
    return code.encode("utf-8") if isinstance(code, str) else code


def _get_nvrtc_version():
    """NVRTC's ``(major, minor)`` (NVIDIA's private name in its nvrtc module, which its tests
    read): :func:`numba_cuda.linking.nvrtc.nvrtc_version`."""
    from numba_cuda.linking.nvrtc import nvrtc_version

    return tuple(nvrtc_version())


def find_closest_arch(cc):
    """The highest compute capability at most ``cc`` (``(major, minor)``) that the installed
    libNVVM compiles for (NVIDIA's ``find_closest_arch``); a ``cc`` below all of them is an
    ``UnsupportedCCError`` listing them."""
    from numba_cuda.compiler.capability import UnsupportedCCError

    cc = tuple(cc[:2])
    supported = [c[:2] for c in get_supported_ccs()]
    below = [c for c in supported if c <= cc]
    if not below:
        raise UnsupportedCCError(
            f"GPU compute capability {cc[0]}.{cc[1]} is not supported (the installed libNVVM "
            f"compiles for {', '.join(f'{a}.{b}' for a, b in supported)})")
    return max(below)


def get_arch_option(major, minor, arch=""):
    """``"compute_XY"`` (with ``arch``'s suffix, ``"a"``/``"f"``) for the closest compute
    capability the installed libNVVM compiles for (NVIDIA's ``get_arch_option``; with
    ``NUMBA_FORCE_CUDA_CC`` set, that one).  An architecture suffix needs an exact match."""
    from numba_cuda.compiler.capability import forced_cc

    forced = forced_cc()
    if forced is not None:
        major, minor = forced[:2]
        arch = forced[2] if len(forced) > 2 else ""
    else:
        closest = find_closest_arch((major, minor))
        if closest != (major, minor) and arch:
            raise ValueError(f"compute_{major}{minor}{arch} is arch-specific, but the closest "
                             f"compute capability libNVVM has is compute_{closest[0]}{closest[1]}")
        major, minor = closest
    return f"compute_{major}{minor}{arch}"


#: The exception libNVVM failures raise here (NVIDIA's module names ``cuda.bindings``'
#: ``nvvmError`` so; the compiler raises :class:`numba_cuda.errors.NvvmError`).
nvvmError = NvvmError  # noqa: N816 - NVIDIA's spelling


class LibDevice:
    """libdevice's bitcode, read once: ``LibDevice().get()`` (also ``.bc``) is its bytes, from
    the toolkit that discovery chose (a :class:`~numba_cuda.errors.ToolkitError` names the fix
    when it has none)."""

    _bitcode = None

    def __init__(self):
        if LibDevice._bitcode is None:
            LibDevice._bitcode = libdevice_bitcode()
        self.bc = LibDevice._bitcode

    def get(self):
        return self.bc
