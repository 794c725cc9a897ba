"""nvvmir.downgrade_for_llvm7: attributes newer than LLVM 7 leave define/declare lines and
attribute groups; everything else (metadata words such as ``range``) is left alone."""

from numba_cuda.compiler.nvvmir import downgrade_for_llvm7

IR = """define i32 @f(i32 noundef %x) nounwind willreturn {
  ret i32 0, !range !0
}
declare float @g(float) memory(none) nofree
attributes #0 = { nounwind willreturn "x"="y" memory(argmem: read) }
!0 = !{i64 0, i64 10}
!1 = !{!"memory range hot"}
"""


def test_post_llvm7_attributes_removed_where_they_are_attributes():
    out = downgrade_for_llvm7(IR)
    lines = out.splitlines()
    assert lines[0].startswith("define i32 @f(i32") and "noundef" not in lines[0]
    assert "willreturn" not in lines[0] and "nounwind" in lines[0]
    assert lines[3].startswith("declare float @g(float)")
    assert "memory" not in lines[3] and "nofree" not in lines[3]
    assert lines[4] == 'attributes #0 = { nounwind "x"="y" }'
    assert "ret i32 0, !range !0" in lines[1]
    assert lines[-1] == '!1 = !{!"memory range hot"}'
    assert out.endswith("\n")


def test_text_without_new_attributes_is_unchanged():
    ir = 'define void @k() {\n  ret void\n}\n!0 = !{i64 1}\n!1 = !{!"range"}\n'
    assert downgrade_for_llvm7(ir) == ir


def test_debug_directives_only_is_left_as_it_is():
    # lineinfo=True: both libNVVM readers accept DebugDirectivesOnly; LineTablesOnly would
    # mark the PTX target for debugging and change the code (see test_lineinfo_codegen).
    ir = "!0 = distinct !DICompileUnit(emissionKind: DebugDirectivesOnly)\n"
    assert downgrade_for_llvm7(ir) == ir
