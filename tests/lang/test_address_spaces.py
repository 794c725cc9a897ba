"""NVVM's address-space numbers are defined once, in ``numba_cuda.lang.intrinsics``: every other
module names them from there (a second copy is a second place to get one wrong), and the
string constants of ``print`` are generic pointers into constant memory."""

import ast
import re
from pathlib import Path

from numba import cuda, int32, void

from numba_cuda.lang import intrinsics, memory

PACKAGE = Path(__file__).resolve().parents[2] / "numba_cuda"
HOME = PACKAGE / "lang" / "intrinsics.py"


def _numbered_address_spaces(path):
    """``(line, name)`` of every ``ADDRSPACE_<X> = <int literal>`` assignment in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [(node.lineno, t.id) for t in targets
                      if isinstance(t, ast.Name) and t.id.startswith("ADDRSPACE_")
                      and isinstance(node.value.value, int)]
    return found


def test_address_space_numbers_are_defined_only_in_intrinsics():
    copies = [f"{path.relative_to(PACKAGE)}:{line} {name}"
              for path in sorted(PACKAGE.rglob("*.py")) if path != HOME
              for line, name in _numbered_address_spaces(path)]
    assert copies == [], "define address spaces in lang/intrinsics.py only: " + ", ".join(copies)
    assert {name for _, name in _numbered_address_spaces(HOME)} >= {
        "ADDRSPACE_GENERIC", "ADDRSPACE_GLOBAL", "ADDRSPACE_SHARED", "ADDRSPACE_CONSTANT",
        "ADDRSPACE_LOCAL"}


def test_memory_family_names_are_the_same_numbers():
    for name in ("ADDRSPACE_GENERIC", "ADDRSPACE_GLOBAL", "ADDRSPACE_SHARED",
                 "ADDRSPACE_CONSTANT"):
        assert getattr(memory, name) == getattr(intrinsics, name)
    assert (intrinsics.ADDRSPACE_GENERIC, intrinsics.ADDRSPACE_GLOBAL, intrinsics.ADDRSPACE_SHARED,
            intrinsics.ADDRSPACE_CONSTANT, intrinsics.ADDRSPACE_LOCAL) == (0, 1, 3, 4, 5)


def test_print_format_string_is_a_generic_pointer_into_constant_memory():
    def kernel(x):
        print("value", x)

    ptx, _ = cuda.compile_ptx(kernel, void(int32), cc=(7, 5))
    # the format string is a .const array, converted to a generic address for vprintf
    assert re.search(r"\.const \.align \d+ \.b8 \S+\[\d+\]", ptx), ptx
    assert re.search(r"cvta\.const\.u64", ptx), ptx
    assert "call.uni" in ptx and "vprintf" in ptx
