"""Linking external device code: CUDA C/C++ (NVRTC), PTX, cubin, fatbin, objects,
static libraries and LTO-IR, linked into a cubin by nvJitLink.

* ``filekinds``  -- what a file holds (magic bytes, then extension)
* ``linkable``   -- ``CUSource``, ``PTXSource``, ``Cubin``, ``Fatbin``, ``Object``,
  ``Archive``, ``LTOIR``: code in memory; ``as_linkable(path_or_code)``
* ``nvrtc``      -- ``compile_source(source, cc, output="ptx"|"ltoir"|"cubin")``
* ``nvjitlink``  -- ``Linker(cc, lto=...)``, ``link_cubin(cc, items, lto=...)``

Importing this package loads no CUDA library; NVRTC and nvJitLink are loaded
(through ``numba_cuda.toolkit.load_library``) on first compile / link.
"""

from .filekinds import KINDS, cubin_arch, detect_kind
from .linkable import (
    LTOIR,
    Archive,
    Cubin,
    CUSource,
    Fatbin,
    LinkableCode,
    Object,
    PTXSource,
    as_linkable,
    from_file,
)
from .nvjitlink import Linker, LinkResult, link_cubin, nvjitlink_version
from .nvrtc import NvrtcWarning, compile_source, nvrtc_version

__all__ = [
    "KINDS", "detect_kind", "cubin_arch",
    "LinkableCode", "CUSource", "PTXSource", "Cubin", "Fatbin", "Object", "Archive", "LTOIR",
    "as_linkable", "from_file",
    "Linker", "LinkResult", "link_cubin", "nvjitlink_version",
    "compile_source", "nvrtc_version", "NvrtcWarning",
]
