"""Can the installed driver load this PTX?  (Pure functions, no GPU needed.)

A driver JIT-compiles PTX only up to the PTX ISA version of the CUDA release
it implements; newer PTX fails with ``CUDA_ERROR_UNSUPPORTED_PTX_VERSION``.
:func:`plan_ptx_load` decides before loading: load the PTX as is, or compile
it to a cubin with the toolkit's own nvJitLink (valid for drivers of the same
CUDA major, by CUDA's minor version compatibility), or stop with an error that
names both versions and the fix.
"""

import re

from numba_cuda.errors import LinkerError

#: CUDA release -> the newest PTX ISA version its driver JIT accepts.
PTX_ISA_BY_CUDA = {
    (11, 0): (7, 0), (11, 1): (7, 1), (11, 2): (7, 2), (11, 3): (7, 3), (11, 4): (7, 4),
    (11, 5): (7, 5), (11, 6): (7, 6), (11, 7): (7, 7), (11, 8): (7, 8),
    (12, 0): (8, 0), (12, 1): (8, 1), (12, 2): (8, 2), (12, 3): (8, 3), (12, 4): (8, 4),
    (12, 5): (8, 5), (12, 6): (8, 5), (12, 7): (8, 6), (12, 8): (8, 7), (12, 9): (8, 8),
    (13, 0): (9, 0), (13, 1): (9, 1), (13, 2): (9, 2), (13, 3): (9, 3), (13, 4): (9, 4),
    (13, 5): (9, 5),
}
#: Beyond the table: CUDA 13.x has followed PTX ISA 9.x.
_ISA_MAJOR_BY_CUDA_MAJOR = {13: 9}

_VERSION_RE = re.compile(r"^\s*\.version\s+(\d+)\.(\d+)", re.MULTILINE)
_TARGET_RE = re.compile(r"^\s*\.target\s+(\w+)", re.MULTILINE)


def parse_version(text):
    """``"12.4"``, ``(12, 4)`` or the driver's ``12040`` -> ``(12, 4)``."""
    if isinstance(text, int):
        return (text // 1000, (text % 1000) // 10)
    if isinstance(text, str):
        major, _, minor = text.partition(".")
        return (int(major), int(minor or 0))
    return tuple(int(x) for x in text[:2])


def ptx_isa_version(ptx):
    """The ``.version X.Y`` of a PTX text (str or bytes) as ``(X, Y)``."""
    if isinstance(ptx, (bytes, bytearray)):
        ptx = bytes(ptx).decode("ascii", errors="replace")
    match = _VERSION_RE.search(ptx)
    if match is None:
        raise LinkerError("the PTX has no '.version X.Y' directive: it is not valid PTX")
    return (int(match.group(1)), int(match.group(2)))


def ptx_target(ptx):
    """The ``.target`` of a PTX text (``"sm_90a"``), or None."""
    if isinstance(ptx, (bytes, bytearray)):
        ptx = bytes(ptx).decode("ascii", errors="replace")
    match = _TARGET_RE.search(ptx)
    return match.group(1) if match else None


def max_ptx_isa(cuda_version):
    """The newest PTX ISA a driver of ``cuda_version`` accepts; None when the driver is newer
    than every release this table knows (it then accepts every known ISA)."""
    cuda_version = parse_version(cuda_version)
    if cuda_version in PTX_ISA_BY_CUDA:
        return PTX_ISA_BY_CUDA[cuda_version]
    known = sorted(PTX_ISA_BY_CUDA)
    if cuda_version > known[-1]:
        isa_major = _ISA_MAJOR_BY_CUDA_MAJOR.get(cuda_version[0])
        if isa_major is not None:
            return (isa_major, cuda_version[1])
        return None
    older = [v for v in known if v <= cuda_version]
    if not older:
        raise LinkerError(f"CUDA {cuda_version[0]}.{cuda_version[1]} drivers are not supported "
                          f"(CUDA 11.0 or newer is needed)")
    return PTX_ISA_BY_CUDA[older[-1]]


def cuda_for_ptx_isa(isa):
    """The oldest CUDA release whose driver accepts PTX ISA ``isa``."""
    for cuda_version in sorted(PTX_ISA_BY_CUDA):
        if PTX_ISA_BY_CUDA[cuda_version] >= tuple(isa):
            return cuda_version
    for cuda_major, isa_major in _ISA_MAJOR_BY_CUDA_MAJOR.items():
        if isa[0] == isa_major:
            return (cuda_major, isa[1])
    return None


def _fmt(version):
    return f"{version[0]}.{version[1]}"


def plan_ptx_load(ptx_isa, driver_version, linker_version=None):
    """How to load PTX of ISA ``ptx_isa`` on a driver of CUDA ``driver_version``.

    ``linker_version``: the CUDA version of the nvJitLink available (None: none).
    Returns ``"ptx"`` (the driver JIT accepts it) or ``"cubin"`` (compile it to
    SASS with nvJitLink first); raises LinkerError when neither works.
    """
    ptx_isa = tuple(ptx_isa)
    driver_version = parse_version(driver_version)
    limit = max_ptx_isa(driver_version)
    if limit is None or ptx_isa <= limit:
        return "ptx"
    needed = cuda_for_ptx_isa(ptx_isa)
    needed_text = f"CUDA {_fmt(needed)}" if needed else f"a CUDA release newer than this table"
    problem = (f"the CUDA toolkit in use emits PTX ISA {_fmt(ptx_isa)} ({needed_text}), but the "
               f"installed NVIDIA driver implements CUDA {_fmt(driver_version)} and accepts PTX "
               f"ISA up to {_fmt(limit)} (loading would fail with "
               f"CUDA_ERROR_UNSUPPORTED_PTX_VERSION)")
    if linker_version is not None:
        linker_version = parse_version(linker_version)
        if linker_version[0] == driver_version[0]:
            return "cubin"
    fix_toolkit = (f'install a toolkit of the driver\'s CUDA major: pip install '
                   f'"numba-cuda[cu{driver_version[0]}]" (or in conda: conda install -c '
                   f'conda-forge cuda-nvcc-impl cuda-nvrtc "cuda-version={_fmt(driver_version)}")')
    if needed and needed[0] == driver_version[0]:
        fix = (f"install nvJitLink of CUDA {needed[0]} (pip install nvidia-nvjitlink"
               f"{'-cu12' if needed[0] == 12 else ''}) so numba-cuda can compile the PTX to "
               f"machine code the driver loads, or upgrade the NVIDIA driver to one for "
               f"{needed_text} or newer")
    else:
        fix = (f"upgrade the NVIDIA driver to one for {needed_text} or newer, or "
               f"{fix_toolkit}")
    raise LinkerError(f"{problem}. Fix: {fix}.")
