"""What debug=True describes to cuda-gdb (compiler.debug_info, compiler.lowering): scalar types
a debugger can print, the function's return and parameter types, the ``def`` line of the
function and its prologue, and a location on every instruction of the body."""

import inspect
import re

import numpy as np
from numba import cuda, from_dtype, types

from tests.support.ptx_helpers import assemble

CC = (8, 0)


def _ir(fn, sig, **options):
    kernel = cuda.jit(sig, debug=True, opt=False, **options)(fn)
    return kernel, kernel.inspect_llvm(sig)


def _basic_type_of(ir, variable):
    """The DIBasicType line describing local variable ``variable``."""
    match = re.search(rf'!DILocalVariable\(.*name: "{variable}".*type: !(\d+)\)', ir)
    assert match, f"no DILocalVariable {variable}"
    node = re.search(rf"^!{match.group(1)} = (.*)$", ir, re.M)
    return node.group(1)


def scalars(x, y, when):
    flag = x == y
    hundred = 100
    grid = cuda.cg.this_grid()
    half = np.float16(x)
    later = when + when  # noqa: F841


def test_scalar_types_are_described_as_a_debugger_prints_them():
    td = from_dtype(np.dtype("timedelta64[s]"))
    _, ir = _ir(scalars, (types.int32, types.int32, td))
    assert "DW_ATE_boolean" in _basic_type_of(ir, "flag")
    assert 'name: "bool"' in _basic_type_of(ir, "flag")
    # a literal's type is its value type
    hundred = _basic_type_of(ir, "hundred")
    assert 'name: "int64"' in hundred and "DW_ATE_signed" in hundred
    assert "Literal" not in ir.split("!llvm.dbg.cu")[-1]
    # handles and dates are integers, only floating-point values are floats
    assert "DW_ATE_unsigned" in _basic_type_of(ir, "grid")
    assert "DW_ATE_signed" in _basic_type_of(ir, "later")
    half = _basic_type_of(ir, "half")
    assert "DW_ATE_float" in half and "size: 16" in half


def add(x, y):
    return x + y


def test_subroutine_types_list_the_return_type_then_the_parameters():
    def kernel(x, y):
        z = x + y  # noqa: F841

    _, ir = _ir(kernel, (types.int32, types.int32))
    for match in re.finditer(r"!DISubroutineType\(types: !(\d+)\)", ir):
        elements = re.search(rf"^!{match.group(1)} = !{{ (.*) }}$", ir, re.M).group(1)
        first, *params = [e.strip() for e in elements.split(",")]
        assert first == "null"  # a kernel returns nothing
        assert len(params) == 2
        for param in params:
            assert 'name: "int32"' in re.search(rf"^{param} = (.*)$", ir, re.M).group(1)
    # a device function's return type comes first
    dev = cuda.jit((types.float32, types.float32), device=True, debug=True, opt=False)(add)
    ir = dev.inspect_llvm((types.float32, types.float32))
    match = re.search(r"!DISubroutineType\(types: !(\d+)\)", ir)
    elements = re.search(rf"^!{match.group(1)} = !{{ (.*) }}$", ir, re.M).group(1)
    ret, *params = [e.strip() for e in elements.split(",")]
    assert ret != "null" and len(params) == 2
    assert 'name: "float32"' in re.search(rf"^{ret} = (.*)$", ir, re.M).group(1)


@cuda.jit(
    "void(int32[:])",
    debug=True,
    opt=False,
)
def _multiline_decorated(x):
    # a comment between the def line and the first statement,
    # over two lines
    x[0] = 1


def test_subprograms_and_the_prologue_are_at_the_def_line():
    sig = (types.int32[:],)
    lines, start = inspect.getsourcelines(_multiline_decorated.py_func)
    decorator = start
    def_line = start + next(i for i, text in enumerate(lines) if text.lstrip().startswith("def "))
    ir = _multiline_decorated.inspect_llvm(sig)
    subprograms = re.findall(r"!DISubprogram\(.*?line: (\d+)", ir)
    assert subprograms and set(subprograms) == {str(def_line)}  # the wrapper's and the body's
    lines_of = {m.group(1): int(m.group(2))
                for m in re.finditer(r"^!(\d+) = !DILocation\(column: \d+, line: (\d+)", ir, re.M)}
    used = {lines_of[n] for n in re.findall(r", !dbg !(\d+)", ir) if n in lines_of}
    assert def_line in used and def_line + 3 in used  # prologue, first statement
    assert decorator not in used  # no instruction is at the decorator's line


def reuses_an_argument(arr, n):
    for j in range(n):
        arr[0] += j
    for j in range(n):
        arr[0] += j


def test_loads_of_arguments_in_the_body_have_a_location():
    # an instruction without one gets line 0 from ptxas, which empties the location lists of
    # the variables live there
    _, ir = _ir(reuses_an_argument, (types.float32[:], types.int64))
    body = ir[ir.index("define "):ir.index("!llvm.dbg.cu")]
    loads = re.findall(r"^\s*%\S+ = load .*%\"arr\".*$", body, re.M)
    assert loads
    assert all("!dbg" in load for load in loads), loads


def test_debug_ptx_assembles():
    td = from_dtype(np.dtype("timedelta64[s]"))
    sig = (types.int32, types.int32, td)
    ptx, _ = cuda.compile_ptx(scalars, sig, debug=True, opt=False, cc=CC)
    assert ".loc" in ptx
    assemble(ptx, CC, compile_only=True)


def skips_with_continue(output):
    total = 0
    for i in range(10):
        if i == 5:
            continue  # line: continue
        total = total + i  # line: sum
    output[0] = total


def test_a_value_passed_through_a_block_is_exported_at_its_terminator():
    # (a phi's incoming value from a block that does not assign it: the `continue` block's
    # store to the loop's total is at the continue line, not at the loop's last assignment)
    lines, start = inspect.getsourcelines(skips_with_continue)
    line_of = {tag: start + i for i, text in enumerate(lines) for tag in ("continue", "sum")
               if f"# line: {tag}" in text}
    _, ir = _ir(skips_with_continue, (types.int64[:],))
    lines_of = {m.group(1): int(m.group(2))
                for m in re.finditer(r"^!(\d+) = !DILocation\(column: \d+, line: (\d+)", ir, re.M)}
    stores = [lines_of[m.group(1)] for m in re.finditer(
        r'store i64 %[^,]+, i64\* %"total\.\d+".*!dbg !(\d+)', ir)]
    assert line_of["continue"] in stores, stores
