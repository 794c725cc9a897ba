"""SASS of a compiled kernel: ``inspect_sass()`` / ``inspect_sass_cfg()``.

The kernel's PTX (LTO-IR for ``lto=True``) and its ``link=`` files are linked into a cubin for
``sm_XY`` by nvJitLink, offline (no GPU needed), and the cubin is disassembled by the toolkit's
``nvdisasm`` (an optional component: CUDA 13 wheel ``nvidia-cuda-nvdisasm``, conda
``cuda-nvdisasm``, or a CUDA toolkit install; see ``numba_cuda.toolkit``).  ``inspect_sass``
passes ``-gi`` (source line information, as Numba does), ``inspect_sass_cfg`` passes ``-cfg``
(the control-flow graph in DOT).
"""

import os
import re
import subprocess
import tempfile

from ..errors import ToolkitError

SASS_FLAGS = ("-gi",)
CFG_FLAGS = ("-cfg",)

_PTX_TARGET = re.compile(r"^\s*\.target\s+(sm_\w+)", re.M)


def nvdisasm():
    """The path of the toolkit's nvdisasm; ToolkitError naming the component and the fix."""
    from .. import toolkit

    path = toolkit.nvdisasm_path()
    if path is None:
        comp = toolkit.get_toolkit().components.get("nvdisasm")
        detail = comp.message if comp is not None and comp.message else "nvdisasm was not found"
        err = ToolkitError("inspect_sass() and inspect_sass_cfg() disassemble the kernel with "
                           f"nvdisasm, which is not available.\n{detail}")
        err.component = "nvdisasm"
        raise err
    return path


def cubin(kernel, cc):
    """The cubin of ``kernel`` (a ``CompiledKernel``) for compute capability ``cc``."""
    from .linkable import LTOIR
    from .nvjitlink import Linker

    options = kernel.options
    lto = kernel.lto
    ptx = None if lto else kernel.get_ptx(cc)
    target = _PTX_TARGET.search(ptx) if ptx else None
    arch = target.group(1) if target and target.group(1)[-1] in "af" else None

    class KernelLinker(Linker):
        # arch-specific PTX (sm_90a ...) links for exactly that arch
        @property
        def arch(self):
            return arch or super().arch

    linker = KernelLinker(cc, lto=lto, max_registers=options.max_registers,
                          debug=bool(options.debug), lineinfo=bool(options.lineinfo))
    if lto:
        linker.add(LTOIR(kernel.get_ltoir(cc), name=f"{kernel.entry_name}.ltoir"))
    else:
        linker.add_ptx(ptx, f"{kernel.entry_name}.ptx")
    for item in kernel.link_files:
        linker.add(item)
    return linker.link()


def disassemble(cubin_bytes, flags):
    """nvdisasm's output for ``cubin_bytes`` (it reads only files)."""
    exe = nvdisasm()
    with tempfile.TemporaryDirectory(prefix="numba-cuda-sass-") as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin_bytes)
        proc = subprocess.run([exe, *flags, path], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise ToolkitError(f"nvdisasm ({exe}) failed with exit status {proc.returncode}:\n"
                           f"{proc.stderr.strip()}")
    return proc.stdout


def sass(kernel, cc, cfg=False):
    """SASS text (``cfg=True``: the control-flow graph, DOT) of ``kernel`` for ``cc``."""
    nvdisasm()  # a missing nvdisasm fails before any linking
    return disassemble(cubin(kernel, cc), CFG_FLAGS if cfg else SASS_FLAGS)
