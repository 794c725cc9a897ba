"""libNVVM's architecture probe verifies an empty module that ``nvvm`` writes itself (``nvvm``
does not import ``nvvmir``): it must be the module ``nvvmir`` builds."""

from numba_cuda.compiler import nvvm, nvvmir


def test_probe_module_is_nvvmirs_empty_module():
    assert nvvm._empty_module_text().strip() == nvvmir.empty_module_text().strip()


def test_nvvmir_uses_nvvms_layout_and_triple():
    module = nvvmir.new_module("m")
    assert module.data_layout == nvvm.DATA_LAYOUT == nvvmir.DATA_LAYOUT
    assert module.triple == nvvm.TRIPLE == nvvmir.TRIPLE
