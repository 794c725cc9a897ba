"""Cheap checks that a toolkit file is what it claims to be, before anything loads it.

Loading a damaged library or bitcode file does not fail cleanly: a truncated
``libnvvm.so`` kills the process with SIGBUS when the loader touches a page
past the end of the file, a truncated ``libdevice.10.bc`` makes libNVVM abort
(SIGABRT), and an unrelated library renamed ``libnvvm.so.4`` loads but is not
NVVM.  So before loading, the file is read (never executed):

* shared libraries (ELF): the header, every loadable segment and the section
  table lie inside the file, and the dynamic symbol table exports the
  library's entry points (``nvvmVersion`` ...);
* ``libdevice.10.bc``: not empty, LLVM bitcode (raw, or inside the bitcode
  wrapper whose declared size must fit), and its top-level blocks -- a module
  among them -- end exactly where the file does.

A few milliseconds at most, once per file: answers are kept per (path, size,
modification time).  Windows DLLs (PE) are not checked beyond the header
discovery reads.  :func:`library_problem` / :func:`bitcode_problem` return
the reason as text (``None`` when the file looks right).
"""

import os
import struct
import threading

#: Symbols each library must export (checked in the ELF dynamic symbol table).
REQUIRED_SYMBOLS = {
    "nvvm": ("nvvmVersion", "nvvmCreateProgram", "nvvmCompileProgram"),
    "nvrtc": ("nvrtcVersion", "nvrtcCreateProgram"),
    "nvjitlink": ("nvJitLinkCreate",),
    "cudart": ("cudaRuntimeGetVersion",),
}

_lock = threading.Lock()
_answers = {}  # (kind, path, size, mtime_ns) -> problem or None


def _cached(kind, path, check):
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    key = (kind, os.path.realpath(path), st.st_size, st.st_mtime_ns)
    with _lock:
        if key in _answers:
            return _answers[key]
    try:
        problem = check(path, st.st_size)
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror or exc})"
    with _lock:
        _answers[key] = problem
    return problem


# ---- ELF shared libraries ------------------------------------------------------------------
_PT_LOAD, _SHT_NOBITS, _SHT_DYNSYM = 1, 8, 11


def library_problem(name, path):
    """Why the library file ``path`` (component ``name``: nvvm, nvrtc ...) cannot be the
    library it should be, or None.  Only ELF files are checked."""
    return _cached(("elf", name), path, lambda p, size: _elf_problem(p, size, name))


def _elf_problem(path, size, name):
    with open(path, "rb") as fh:
        head = fh.read(64)
        if head[:4] != b"\x7fELF":
            return None if head[:2] == b"MZ" else "is not a shared library (no ELF header)"
        if len(head) < 64 or head[4] != 2:
            return f"is truncated ({size} bytes: not even a 64-bit ELF header)"
        order = "<" if head[5] == 1 else ">"
        (e_type, _machine, _version, _entry, phoff, shoff, _flags, _ehsize, phentsize, phnum,
         shentsize, shnum, _shstrndx) = struct.unpack(order + "HHIQQQIHHHHHH", head[16:64])
        if e_type != 3:
            return "is not a shared library (an ELF file of another type)"
        damaged = f"is truncated or damaged ({size} bytes"
        if phnum and phoff + phnum * phentsize > size:
            return f"{damaged}: its program headers end past the end of the file)"
        fh.seek(phoff)
        table = fh.read(phnum * phentsize)
        for i in range(phnum):
            p_type, _pflags, p_offset, _vaddr, _paddr, p_filesz = struct.unpack_from(
                order + "IIQQQQ", table, i * phentsize)
            if p_type == _PT_LOAD and p_offset + p_filesz > size:
                return (f"{damaged}, but a segment to load ends at byte {p_offset + p_filesz}: "
                        "an interrupted download or copy?)")
        if not shnum:
            return None  # no section table (unusual for a library): nothing more to read
        if shoff + shnum * shentsize > size:
            return (f"{damaged}, but its section table ends at byte "
                    f"{shoff + shnum * shentsize}: an interrupted download or copy?)")
        fh.seek(shoff)
        raw = fh.read(shnum * shentsize)
        sections = [struct.unpack_from(order + "IIQQQQIIQQ", raw, i * shentsize)
                    for i in range(shnum)]
        for sec in sections:
            sh_type, sh_offset, sh_size = sec[1], sec[4], sec[5]
            if sh_type != _SHT_NOBITS and sh_offset + sh_size > size:
                return (f"{damaged}, but a section ends at byte {sh_offset + sh_size}: an "
                        "interrupted download or copy?)")
        wanted = REQUIRED_SYMBOLS.get(name, ())
        if not wanted:
            return None
        exported = set()
        for sec in sections:
            if sec[1] != _SHT_DYNSYM:
                continue
            sym_off, sym_size, link, entsize = sec[4], sec[5], sec[6], sec[9] or 24
            if link >= len(sections):
                return f"{damaged}: its dynamic symbol table links to no string table)"
            str_off, str_size = sections[link][4], sections[link][5]
            fh.seek(str_off)
            strtab = fh.read(str_size)
            fh.seek(sym_off)
            syms = fh.read(sym_size)
            for i in range(sym_size // entsize):
                st_name, _info, _other, shndx = struct.unpack_from(order + "IBBH", syms, i * entsize)
                if shndx == 0:
                    continue  # undefined: imported, not exported
                end = strtab.find(b"\0", st_name)
                exported.add(strtab[st_name:end if end >= 0 else None].decode("ascii", "replace"))
        missing = [s for s in wanted if s not in exported]
        if missing:
            return (f"does not export {', '.join(missing)}: it is not the library it is named "
                    "after (another library renamed or copied in its place?)")
    return None


# ---- LLVM bitcode (libdevice) ---------------------------------------------------------------
_WRAPPER_MAGIC = b"\xde\xc0\x17\x0b"
_BITCODE_MAGIC = b"BC\xc0\xde"
_MODULE_BLOCK = 8


def bitcode_problem(path):
    """Why ``path`` cannot be libdevice's LLVM bitcode (text), or None."""
    return _cached("bitcode", path, _bitcode_problem)


def _bitcode_problem(path, size):
    if size == 0:
        return "is empty (0 bytes)"
    with open(path, "rb") as fh:
        data = fh.read()
    return bitcode_data_problem(data)


def bitcode_data_problem(data):
    """:func:`bitcode_problem` for bytes already read."""
    size = len(data)
    if size == 0:
        return "is empty (0 bytes)"
    if data[:4] == _WRAPPER_MAGIC:
        if size < 20:
            return f"is truncated ({size} bytes: not even a bitcode wrapper header)"
        offset, length = struct.unpack_from("<II", data, 8)
        if offset + length > size:
            return (f"is truncated or damaged ({size} bytes, but its bitcode wrapper declares "
                    f"{offset + length})")
        data = data[offset:offset + length]
    if data[:4] != _BITCODE_MAGIC:
        return f"is not LLVM bitcode (it starts with {data[:4].hex(' ')})"
    return _walk_top_level(data)


def _walk_top_level(data):
    """Check that the top-level blocks of a bitcode stream tile it exactly."""
    total = len(data) * 8
    value = int.from_bytes(data, "little")  # the stream, bit i = bit i of the number
    pos = 32
    blocks = []

    def read(width):
        nonlocal pos
        if pos + width > total:
            raise EOFError
        v = (value >> pos) & ((1 << width) - 1)
        pos += width
        return v

    def vbr(width):
        result, shift, hi = 0, 0, 1 << (width - 1)
        while True:
            chunk = read(width)
            result |= (chunk & (hi - 1)) << shift
            if not chunk & hi:
                return result
            shift += width - 1
            if shift > 64:
                raise ValueError

    try:
        while pos < total:
            if not (value >> pos):
                break  # only zero padding left
            at = pos // 8
            if read(2) != 1:  # ENTER_SUBBLOCK: the only thing allowed at the top level
                return f"is corrupt (no block starts at byte {at} of its bitcode)"
            block_id = vbr(8)
            vbr(4)
            pos = (pos + 31) // 32 * 32
            words = read(32)
            pos += words * 32
            if pos > total:
                return (f"is truncated or damaged (block {block_id} at byte {at} runs to byte "
                        f"{pos // 8}, past the end at byte {total // 8})")
            blocks.append(block_id)
    except (EOFError, ValueError):
        return f"is truncated or damaged (its bitcode ends inside a block header at byte {pos // 8})"
    if _MODULE_BLOCK not in blocks:
        return "is not an LLVM module (its bitcode holds no module block)"
    return None
