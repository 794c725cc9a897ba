"""Compiled kernels: ``CompiledKernel`` (one signature, IR), made into a ``KernelImage`` (one cc,
PTX or LTO-IR) per compute capability.

``KernelImage`` (:mod:`numba_cuda.common.kernel_image`) is what the runtime loads and launches:
a frozen value whose fields the runtime reads; ``CompiledKernel.image(cc)`` builds it.
"""

from numba.core import itanium_mangler

from ..common.kernel_image import KernelImage
from ..common.unsupported import check_void_return


class CompiledKernel:
    """A kernel compiled to NVVM IR for one signature; PTX is produced per compute capability
    (``image(cc)`` / ``get_ptx(cc)``), each cached.

    The fields of ``KernelImage`` other than ``cc``/``ptx``/``ltoir`` are attributes here too.
    """

    cooperative = False
    objectmode = False

    def __init__(self, cres, options, device_cc=None):
        """``device_cc``: a callable giving the compute capability to use where none is given
        (the dispatch layer passes the current device's); None, or it returning None: the
        lowest the installed libNVVM accepts."""
        from .pipeline import DeviceEntryPoint
        from .target import cuda_target

        self.cres = cres
        self.options = options
        self.signature = cres.signature
        self.argtypes = tuple(cres.signature.args)
        self.entry_point = DeviceEntryPoint(cres.fndesc.qualname + " [kernel]")
        check_void_return(cres.fndesc.qualname, cres.signature.return_type)
        fndesc = cres.fndesc
        self.entry_name = itanium_mangler.prepend_namespace(fndesc.llvm_func_name, ns="cudapy")
        targetctx = cuda_target.target_context
        library = targetctx.codegen().create_library(f"{fndesc.qualname}.kernel",
                                                     nvvm_options=options.nvvm_options())
        library.add_linking_library(cres.library)
        debug_location = None
        if options.debug or options.lineinfo:
            from .source_files import def_line

            func = cres.type_annotation.func_id.func
            code = func.__code__
            # the ``def`` line, as the function's own subprogram (not the first decorator's)
            line = def_line(func) or code.co_firstlineno
            debug_location = (code.co_filename, line, not options.debug)
        report = options.reports_exceptions
        targetctx.make_kernel(library, fndesc, self.entry_name, options.max_registers,
                              debug_location, report_errors=report,
                              launch_bounds=options.launch_bounds)
        library.device_cc = self.device_cc = device_cc
        from . import nrt

        if any(getattr(item, "nrt", False) for item in library.all_link_files()):
            # linked code calling the NRT (``nrt=True``): it is linked, its functions visible
            library.add_linking_library(nrt.nrt_library())
            library.exported_names.update(nrt.NRT_FUNCTIONS)
        self.nrt_global = None
        if nrt.uses_nrt(library):
            self.nrt_global = nrt.MEMSYS_GLOBAL
            library.exported_names.add(nrt.MEMSYS_GLOBAL)
        library.finalize()
        self.library = library
        self.error_global = self.exceptions = None
        if report:
            from . import device_errors

            self.error_global = device_errors.error_global_name(self.entry_name)
            self.exceptions = device_errors.kernel_exception_table(library, fndesc.qualname)
        # set by numba_cuda.lang.cg when the code (or a device function it links) syncs the grid
        self.cooperative = any(getattr(lib, "uses_grid_sync", False)
                               for lib in library.all_libraries())
        #: link-time optimisation: ``lto=`` when given, else whether some link input is LTO-IR
        #: (``link=``, or added by an extension's lowering): nvJitLink links those only with it
        if options.lto is None:
            link_files = self.link_files
            if link_files:  # (the linking package is imported only for kernels that link)
                from ..linking.linkable import is_ltoir

                self.lto = any(is_ltoir(item) for item in link_files)
            else:
                self.lto = False
        else:
            self.lto = bool(options.lto)
        self._images = {}

    @property
    def link_files(self):
        return self.library.all_link_files()

    @property
    def debug(self):
        return self.options.debug

    @property
    def lineinfo(self):
        return self.options.lineinfo

    @property
    def max_registers(self):
        return self.options.max_registers

    @property
    def type_annotation(self):
        return self.cres.type_annotation

    def image(self, cc=None):
        """The ``KernelImage`` for ``cc`` (default: ``device_cc()``, else the lowest NVVM cc)."""
        from . import capability

        cc = capability.resolve_cc(cc, self.device_cc)
        img = self._images.get(cc)
        if img is None:
            if self.lto:
                code = {"ltoir": self.library.get_ltoir(cc)}
            else:
                code = {"ptx": self.library.get_ptx(cc)}
            img = self._images[cc] = KernelImage(
                entry_name=self.entry_name, argtypes=self.argtypes, cc=cc,
                link_files=tuple(self.link_files), cooperative=self.cooperative,
                debug=bool(self.options.debug), lineinfo=bool(self.options.lineinfo),
                max_registers=self.options.max_registers, error_global=self.error_global,
                exceptions=self.exceptions, nrt_global=self.nrt_global, **code)
        return img

    def get_ptx(self, cc=None):
        """PTX for ``cc`` (of an LTO kernel too: before link-time optimisation)."""
        if self.lto:
            return self.library.get_ptx(cc)
        return self.image(cc).ptx

    def get_ltoir(self, cc=None):
        return self.library.get_ltoir(cc)

    def inspect_llvm(self):
        return self.library.get_llvm_str()

    def inspect_asm(self, cc=None):
        return self.get_ptx(cc)

    def inspect_types(self):
        return str(self.cres.type_annotation)

    def inspect_sass(self, cc=None):
        """SASS for ``cc`` (default: ``device_cc()``, else the lowest NVVM cc), from the cubin
        nvJitLink links offline, disassembled by the toolkit's nvdisasm (``-gi``)."""
        from ..linking.disassembly import sass
        from . import capability

        return sass(self, capability.resolve_cc(cc, self.device_cc))

    def inspect_lto_ptx(self, cc=None):
        """The PTX of link-time optimisation for ``cc`` (default as ``get_ptx``'s): the kernel's
        LTO-IR and the LTO-IR and CUDA C/C++ it links, optimised together by nvJitLink (NVIDIA's
        ``inspect_lto_ptx``; here for any kernel, not only ``lto=True`` ones).  Linked PTX and
        cubins take no part in LTO and are not in it.  Needs nvJitLink, no GPU."""
        from ..linking.nvjitlink import lto_ptx
        from . import capability

        cc = capability.resolve_cc(cc, self.device_cc)
        options = self.options
        return lto_ptx(cc, self.get_ltoir(cc), f"{self.entry_name}.ltoir", self.link_files,
                       max_registers=options.max_registers, debug=bool(options.debug),
                       lineinfo=bool(options.lineinfo))

    def inspect_sass_cfg(self, cc=None):
        """The SASS control-flow graph (DOT text, ``nvdisasm -cfg``) for ``cc``."""
        from ..linking.disassembly import sass
        from . import capability

        return sass(self, capability.resolve_cc(cc, self.device_cc), cfg=True)

    def __repr__(self):
        return f"<CompiledKernel {self.entry_name} {self.signature}>"
