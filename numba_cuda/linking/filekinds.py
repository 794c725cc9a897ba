"""What kind of code a file or buffer holds: by its magic bytes first, then its extension.

Kinds (strings, also the names users may pass explicitly):

==========  ==============================================  ===================
kind        what                                            extensions
==========  ==============================================  ===================
``cu``      CUDA C/C++ source, compiled with NVRTC          .cu .cuh .cpp .cc .cxx
``ptx``     PTX assembly                                    .ptx
``cubin``   device ELF (machine EM_CUDA)                    .cubin
``fatbin``  fat binary container                            .fatbin .fatbinary
``object``  host object with embedded device code           .o .obj
``library`` static library of such objects                  .a .lib
``ltoir``   NVVM LTO-IR (from ``-dlto`` / ``output="ltoir"``) .ltoir .lto
==========  ==============================================  ===================
"""

import os
import re

from ..errors import LinkerError

CU, PTX, CUBIN, FATBIN, OBJECT, LIBRARY, LTOIR = (
    "cu", "ptx", "cubin", "fatbin", "object", "library", "ltoir")
KINDS = (CU, PTX, CUBIN, FATBIN, OBJECT, LIBRARY, LTOIR)

EXTENSIONS = {
    ".cu": CU, ".cuh": CU, ".cpp": CU, ".cc": CU, ".cxx": CU,
    ".ptx": PTX,
    ".cubin": CUBIN,
    ".fatbin": FATBIN, ".fatbinary": FATBIN,
    ".o": OBJECT, ".obj": OBJECT,
    ".a": LIBRARY, ".lib": LIBRARY,
    ".ltoir": LTOIR, ".lto": LTOIR,
}

_ELF = b"\x7fELF"
_EM_CUDA = 190
_ARCHIVE = b"!<arch>\n"
_FATBIN = (0xBA55ED50).to_bytes(4, "little")
_LTOIR = (0x7F4E43ED).to_bytes(4, "little")
_PTX_DIRECTIVE = re.compile(rb"^\s*\.version\s+\d+\.\d+", re.MULTILINE)


def kind_from_extension(name):
    """The kind that ``name``'s extension stands for, or None."""
    return EXTENSIONS.get(os.path.splitext(str(name))[1].lower())


def binary_kind(data):
    """The kind that ``data``'s first bytes (magic number) say, or None."""
    head = bytes(data[:20])
    if head.startswith(_ELF):
        if len(head) >= 20:
            little = head[5:6] != b"\x02"
            machine = int.from_bytes(head[18:20], "little" if little else "big")
            return CUBIN if machine == _EM_CUDA else OBJECT
        return None
    if head.startswith(_ARCHIVE):
        return LIBRARY
    if head.startswith(_FATBIN):
        return FATBIN
    if head.startswith(_LTOIR):
        return LTOIR
    return None


def detect_kind(name, data):
    """The kind of ``data`` (bytes), named ``name``; raises LinkerError if unknown.

    Magic bytes decide for binary formats (so a cubin named ``.o`` is a cubin);
    text is PTX or CUDA C++ by extension, or PTX when it has a ``.version``
    directive.
    """
    kind = binary_kind(data)
    if kind is not None:
        return kind
    by_ext = kind_from_extension(name)
    if by_ext in (CU, PTX):
        return by_ext
    if by_ext == OBJECT:  # COFF objects (Windows) have no magic we check
        return OBJECT
    if _PTX_DIRECTIVE.search(bytes(data[:4096])):
        return PTX
    expected = ", ".join(sorted(EXTENSIONS))
    raise LinkerError(
        f"cannot tell what kind of code {name!r} holds: its contents are not a cubin, fatbin, "
        f"object, static library, LTO-IR or PTX, and its extension is not one of {expected}. "
        "Rename it with the right extension or wrap it in the matching numba_cuda.linking class "
        "(CUSource, PTXSource, Cubin, Fatbin, Object, Archive, LTOIR)."
    )


def cubin_arch(data):
    """The (major, minor) compute capability a cubin was built for, read from its ELF header.

    Two header encodings exist: the older ELF ABI (OS/ABI 0x33, ABI version 7) keeps the
    SM number in the low byte of ``e_flags``; the newer one (OS/ABI 0x41, ABI version 8)
    in the second byte.  Raises ValueError for data that is not a cubin.
    """
    if binary_kind(data) != CUBIN or len(data) < 52:
        raise ValueError("not a cubin (device ELF)")
    flags = int.from_bytes(bytes(data[48:52]), "little")
    sm = (flags >> 8) & 0xFF if data[8] >= 8 else flags & 0xFF
    return divmod(sm, 10)
