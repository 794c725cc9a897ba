"""``KernelImage``: a kernel compiled for one signature and one compute capability, as the
runtime loads and launches it.

The compiler builds it (``CompiledKernel.image(cc)``), the disk cache builds the same value
from an entry on disk (``CachedKernel.image(cc)``), and the runtime (``numba_cuda.runtime.launch``)
reads its fields -- nothing else crosses from compiler to runtime.  It is frozen: one image is
one set of facts, so the runtime may key the kernels it loaded by it (by identity).

Fields:

* ``entry_name``    -- the kernel's (mangled) symbol, the ``.entry`` of its PTX
* ``argtypes``      -- tuple of the Numba types of the kernel's Python arguments, in order; its
                       parameters are their flattening by Numba's data model
* ``cc``            -- the compute capability tuple the code was made for
* ``ptx``           -- PTX text (str), or None when the kernel is LTO-IR
* ``ltoir``         -- LTO-IR (bytes) of an ``lto=True`` kernel (``ptx`` is None then), else None
* ``link_files``    -- tuple of extra files to link (``link=`` of ``cuda.jit``/``declare_device``)
* ``cooperative``   -- the kernel synchronises the grid (``cuda.cg``): launched with
                       ``cuLaunchCooperativeKernel``
* ``debug``, ``lineinfo`` -- bools, passed on to the linker
* ``max_registers`` -- int or None
* ``error_global``  -- name of the kernel's error record (a ``.global`` laid out as
                       :mod:`numba_cuda.common.error_record` says), or None when the kernel
                       reports no exceptions
* ``exceptions``    -- the table that decodes that record (the compiler's ``ExceptionTable``),
                       or None
* ``nrt_global``    -- name of the kernel's pointer to the device NRT's statistics counters (a
                       ``.global`` ``u64`` the runtime sets when it loads the kernel), or None when
                       the kernel does not use the NRT
"""

from .records import FrozenRecord


class KernelImage(FrozenRecord):
    """A kernel for one signature and one compute capability (see the module docstring)."""

    # hashed and compared by identity: the runtime keys the kernels it loaded by the image
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(self, entry_name, argtypes, cc, ptx=None, ltoir=None, link_files=(),
                 cooperative=False, debug=False, lineinfo=False, max_registers=None,
                 error_global=None, exceptions=None, nrt_global=None):
        if (ptx is None) == (ltoir is None):
            raise ValueError(f"a KernelImage of {entry_name} holds exactly one of ptx and "
                             "ltoir (LTO-IR): pass one of them")
        # the containers normalised, so that the value is immutable all the way down
        vars(self).update(
            entry_name=entry_name, argtypes=tuple(argtypes), cc=tuple(cc), ptx=ptx,
            ltoir=ltoir, link_files=tuple(link_files), cooperative=cooperative, debug=debug,
            lineinfo=lineinfo, max_registers=max_registers, error_global=error_global,
            exceptions=exceptions, nrt_global=nrt_global)

    @property
    def lto(self):
        """The code is LTO-IR, linked with ``link_files`` by nvJitLink with link-time optimisation."""
        return self.ltoir is not None

    def __repr__(self):
        return f"<KernelImage {self.entry_name} for cc {self.cc[0]}.{self.cc[1]}>"
