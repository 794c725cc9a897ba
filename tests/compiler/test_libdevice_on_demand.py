"""libdevice is handed to libNVVM only for programs that call a ``__nv_*`` function."""

import math

from numba import float32, int32, void


def _plain(a):
    a[0] = a[0] + 1


def _math(a):
    a[0] = math.sin(a[0])


def _count_libdevice_adds(monkeypatch):
    from numba_cuda.compiler import nvvm

    added = []
    nv = nvvm.bindings()
    original = nv.lazy_add_module_to_program

    class Spy:
        def __getattr__(self, name):
            return getattr(nv, name)

        @staticmethod
        def lazy_add_module_to_program(prog, data, size, name):
            added.append(name)
            return original(prog, data, size, name)

    monkeypatch.setattr(nvvm, "bindings", lambda: Spy())
    return added


def test_libdevice_added_only_when_referenced(cuda, monkeypatch):
    added = _count_libdevice_adds(monkeypatch)
    ptx, _ = cuda.compile_ptx(_plain, void(int32[::1]), cc=(8, 0))
    assert ".entry" in ptx and added == []
    ptx, _ = cuda.compile_ptx(_math, void(float32[::1]), cc=(8, 0))
    assert added == ["libdevice"]
    assert "__nv_sinf" not in ptx  # linked and inlined, not left as an external call


def test_references_libdevice_text_and_bytes():
    from numba_cuda.compiler.nvvm import _references_libdevice

    decl = 'declare float @"__nv_sinf"(float)\n'
    assert _references_libdevice([("a", "x"), ("b", decl)])
    assert _references_libdevice([("b", decl.encode())])
    assert not _references_libdevice([("a", "define void @f() { ret void }\n")])
