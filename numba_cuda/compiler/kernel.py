"""Compiled kernels: ``CompiledKernel`` (one signature, IR) and ``KernelImage`` (one cc, PTX).

What the runtime's ``launch_kernel(compiled, griddim, blockdim, stream, sharedmem, args)``
receives is a ``KernelImage``; its attributes are the launch interface:

* ``ptx``           -- PTX text (str) for ``cc``
* ``entry_name``    -- the kernel's (mangled) symbol in that PTX (``.entry``)
* ``argtypes``      -- tuple of Numba types of the kernel's Python arguments, in order; the kernel's
                       LLVM parameters are their flattening by Numba's data model (arrays: 5 + 2*ndim
                       scalars, complex: 2, tuples: recursively, booleans as uint8)
* ``cc``            -- compute capability tuple the PTX was made for
* ``link_files``    -- list of extra files to link (``declare_device(link=...)``), may be empty
* ``cooperative``   -- bool: the kernel synchronises the grid (``cuda.cg``), so it must be
                       launched with ``cuLaunchCooperativeKernel``
* ``debug``, ``lineinfo`` -- bools
* ``max_registers`` -- int or None
* ``error_global``  -- name of the kernel's error record (a ``.global`` of
                       ``device_errors.RECORD_BYTES`` bytes), or None when the kernel does not
                       report exceptions (compiled without ``debug``/``boundscheck``)
* ``exceptions``    -- the ``device_errors.ExceptionTable`` that decodes that record (or None)
* ``nrt_global``    -- name of the kernel's pointer to the device NRT's statistics counters (a
                       ``.global`` ``u64`` the runtime sets when it loads the kernel), or None when
                       the kernel does not use the NRT (see ``compiler.nrt``)
* ``lto``           -- bool: the kernel is LTO-IR (``ltoir``, bytes; ``ptx`` is None) to be
                       linked with its ``link_files`` by nvJitLink with link-time optimisation
* ``kernel``        -- the ``CompiledKernel`` it came from
"""

from numba.core import itanium_mangler, types


class KernelImage:
    """A kernel specialised for one signature and one compute capability (see module docstring)."""

    def __init__(self, kernel, cc, ptx, ltoir=None):
        self.kernel = kernel
        self.cc = cc
        self.ptx = ptx
        self.ltoir = ltoir

    entry_name = property(lambda self: self.kernel.entry_name)
    argtypes = property(lambda self: self.kernel.argtypes)
    link_files = property(lambda self: self.kernel.link_files)
    cooperative = property(lambda self: bool(getattr(self.kernel, "cooperative", False)))
    debug = property(lambda self: self.kernel.options.debug)
    lineinfo = property(lambda self: self.kernel.options.lineinfo)
    max_registers = property(lambda self: self.kernel.options.max_registers)
    lto = property(lambda self: self.ltoir is not None)
    error_global = property(lambda self: getattr(self.kernel, "error_global", None))
    exceptions = property(lambda self: getattr(self.kernel, "exceptions", None))
    nrt_global = property(lambda self: getattr(self.kernel, "nrt_global", None))

    def __repr__(self):
        return f"<KernelImage {self.entry_name} for cc {self.cc[0]}.{self.cc[1]}>"


class CompiledKernel:
    """A kernel compiled to NVVM IR for one signature; PTX is produced per compute capability
    (``image(cc)`` / ``get_ptx(cc)``), each cached.

    Same attributes as ``KernelImage`` except ``ptx``/``cc`` (per cc here).
    """

    cooperative = False
    objectmode = False

    def __init__(self, cres, options):
        from .pipeline import DeviceEntryPoint
        from .target import cuda_target

        self.cres = cres
        self.options = options
        self.signature = cres.signature
        self.argtypes = tuple(cres.signature.args)
        self.entry_point = DeviceEntryPoint(cres.fndesc.qualname + " [kernel]")
        if cres.signature.return_type not in (types.none, types.void):
            raise TypeError(
                f"a CUDA kernel must have void return type, but {cres.fndesc.qualname} returns "
                f"{cres.signature.return_type}; write results into an array argument, or compile "
                "it as a device function (device=True)"
            )
        fndesc = cres.fndesc
        self.entry_name = itanium_mangler.prepend_namespace(fndesc.llvm_func_name, ns="cudapy")
        targetctx = cuda_target.target_context
        library = targetctx.codegen().create_library(f"{fndesc.qualname}.kernel",
                                                     nvvm_options=options.nvvm_options())
        library.add_linking_library(cres.library)
        debug_location = None
        if options.debug or options.lineinfo:
            code = cres.type_annotation.func_id.func.__code__
            debug_location = (code.co_filename, code.co_firstlineno, not options.debug)
        report = options.reports_exceptions
        targetctx.make_kernel(library, fndesc, self.entry_name, options.max_registers,
                              debug_location, report_errors=report,
                              launch_bounds=options.launch_bounds)
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
        """The ``KernelImage`` for ``cc`` (default: current device, else lowest NVVM cc)."""
        from . import capability

        cc = capability.check_cc(cc) if cc is not None else capability.default_cc()
        img = self._images.get(cc)
        if img is None:
            if self.options.lto:
                img = KernelImage(self, cc, None, ltoir=self.library.get_ltoir(cc))
            else:
                img = KernelImage(self, cc, self.library.get_ptx(cc))
            self._images[cc] = img
        return img

    def get_ptx(self, cc=None):
        """PTX for ``cc`` (of an ``lto=True`` kernel too: before link-time optimisation)."""
        if self.options.lto:
            from . import capability

            return self.library.get_ptx(capability.check_cc(cc) if cc is not None else None)
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
        """SASS for ``cc`` (default: current device, else lowest NVVM cc), from the cubin
        nvJitLink links offline, disassembled by the toolkit's nvdisasm (``-gi``)."""
        from ..linking.disassembly import sass
        from . import capability

        return sass(self, capability.check_cc(cc) if cc is not None else capability.default_cc())

    def inspect_sass_cfg(self, cc=None):
        """The SASS control-flow graph (DOT text, ``nvdisasm -cfg``) for ``cc``."""
        from ..linking.disassembly import sass
        from . import capability

        cc = capability.check_cc(cc) if cc is not None else capability.default_cc()
        return sass(self, cc, cfg=True)

    def __repr__(self):
        return f"<CompiledKernel {self.entry_name} {self.signature}>"
