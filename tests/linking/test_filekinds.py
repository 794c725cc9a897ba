"""Classifying link inputs by magic bytes and extension (no toolkit needed)."""

import pytest

from numba_cuda.errors import LinkerError
from numba_cuda.linking import filekinds
from numba_cuda.linking.filekinds import cubin_arch, detect_kind


def _elf(machine, flags=0, abi_version=7):
    header = bytearray(64)
    header[:4] = b"\x7fELF"
    header[4] = 2  # 64-bit
    header[5] = 1  # little endian
    header[7] = 0x33 if abi_version == 7 else 0x41
    header[8] = abi_version
    header[18:20] = machine.to_bytes(2, "little")
    header[48:52] = flags.to_bytes(4, "little")
    return bytes(header)


@pytest.mark.parametrize(
    "name, data, kind",
    [
        ("k.cubin", _elf(190), "cubin"),
        ("misnamed.o", _elf(190), "cubin"),          # content wins over the extension
        ("host.o", _elf(62), "object"),
        ("lib.a", b"!<arch>\n" + b"x" * 60, "library"),
        ("x.fatbin", (0xBA55ED50).to_bytes(4, "little") + b"\0" * 12, "fatbin"),
        ("x.ltoir", (0x7F4E43ED).to_bytes(4, "little") + b"\0" * 12, "ltoir"),
        ("x.bin", (0x7F4E43ED).to_bytes(4, "little") + b"\0" * 12, "ltoir"),
        ("f.cu", b"__device__ int f() { return 1; }", "cu"),
        ("f.cpp", b"__device__ int f() { return 1; }", "cu"),
        ("f.ptx", b"// comment\n.version 8.0\n.target sm_90\n", "ptx"),
        ("noext", b"//\n// Generated\n\n.version 8.0\n.target sm_90\n", "ptx"),
        ("win.obj", b"\x64\x86rest-of-a-COFF-object", "object"),
    ],
)
def test_detect_kind(name, data, kind):
    assert detect_kind(name, data) == kind


def test_unknown_content_names_the_file_and_the_fix():
    with pytest.raises(LinkerError, match=r"'mystery\.dat'.*Rename it"):
        detect_kind("mystery.dat", b"hello world")


def test_every_kind_has_an_extension():
    assert set(filekinds.EXTENSIONS.values()) == set(filekinds.KINDS)


@pytest.mark.parametrize("abi_version, flags, cc", [
    (7, 0x5A055A, (9, 0)), (7, 0x4B054B, (7, 5)), (8, 0x6005004, (8, 0)), (8, 0x6007802, (12, 0)),
])
def test_cubin_arch_from_both_elf_header_encodings(abi_version, flags, cc):
    assert cubin_arch(_elf(190, flags, abi_version)) == cc


def test_cubin_arch_rejects_other_data():
    with pytest.raises(ValueError):
        cubin_arch(_elf(62))
