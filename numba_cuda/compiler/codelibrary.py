"""Code libraries holding NVVM IR, and the codegen that creates them.

A ``CUDACodeLibrary`` keeps ``llvmlite.ir`` modules (printed to text once, at ``finalize``) and
references to the libraries it links (device functions).  PTX is produced by libNVVM per compute
capability and cached.  Nothing here ever runs an in-process LLVM backend.

Linkage: when a library is compiled, only its *exported* names (kernels, C-ABI wrappers, the
device function itself for ``compile_ptx(device=True)``) stay externally visible; every other
function or global defined in it or in linked libraries becomes ``linkonce_odr`` so that the
same device function linked through several paths is defined once and does not show up as a
``.visible .func`` in the PTX.
"""

import re
import threading

from llvmlite import ir
from numba.core.codegen import CodeLibrary, Codegen

from . import ir_printer, nvvmir

_LINKAGES = frozenset((
    "private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
    "extern_weak", "linkonce_odr", "weak_odr", "external",
))
_DEFINE = re.compile(r'define (?P<rest>[^\n]*?@(?P<name>"[^"\n]+"|[\w.$-]+)\()')
_GLOBAL_DEF = re.compile(r'@(?P<name>"[^"\n]+"|[\w.$-]+) = (?P<first>[^ \n]*)')


def _strip_quotes(name):
    return name[1:-1] if name.startswith('"') else name


def _line_starts(text, prefix):
    """Offsets of the lines of ``text`` that start with ``prefix`` (found with ``str.find``:
    much cheaper than splitting a module into lines)."""
    starts = [0] if text.startswith(prefix) else []
    needle = "\n" + prefix
    at = text.find(needle)
    while at >= 0:
        starts.append(at + 1)
        at = text.find(needle, at + 1)
    return starts


class Definitions:
    """What a module text defines: ``names`` (unquoted) of its functions and global variables,
    and ``unlinked``, ``(offset, name)`` of each definition written without a linkage (the
    offset is where a linkage would go)."""

    __slots__ = ("names", "unlinked")

    def __init__(self, text):
        names, unlinked = set(), []
        for start in _line_starts(text, "define "):
            match = _DEFINE.match(text, start)
            if match:
                name = _strip_quotes(match.group("name"))
                names.add(name)
                if match.group("rest").split(" ", 1)[0] not in _LINKAGES:
                    unlinked.append((start + len("define "), name))
        for start in _line_starts(text, "@"):
            match = _GLOBAL_DEF.match(text, start)
            if match:
                name = _strip_quotes(match.group("name"))
                names.add(name)
                if match.group("first") not in _LINKAGES:
                    unlinked.append((match.start("first"), name))
        unlinked.sort()
        self.names = frozenset(names)
        self.unlinked = tuple(unlinked)


def release_module(module):
    """Empty a printed ``llvmlite.ir`` module nobody else uses, breaking its reference cycles
    (every global, block, argument and metadata node points back at what holds it, every loop
    in a function's control flow is a cycle through its branches, and a phi node taking a value
    computed from it is one too), so that reference counting frees its objects at once instead
    of the cyclic garbage collector after the compile (a collection of a compile's garbage
    costs about half as much without them).

    Afterwards the module has no globals, metadata or named metadata, its functions no blocks,
    its blocks no instructions (nor terminator) and its phi nodes no incoming values; the
    objects themselves are left as they are."""
    phi = ir.PhiInstr
    for value in module.globals.values():
        if isinstance(value, ir.Function):
            for block in value.blocks:
                instructions = block.instructions
                for instr in instructions:  # phi nodes come first in a block
                    if type(instr) is not phi:
                        break
                    instr.incomings = []
                instructions.clear()
                block.terminator = None
            value.blocks.clear()
            for arg in value.args:
                arg.parent = None
            value.return_value.parent = None
    module.globals.clear()
    module.metadata.clear()
    module.namedmetadata.clear()
    cache = getattr(module, "_metadatacache", None)  # llvmlite's node de-duplication
    if isinstance(cache, dict):
        cache.clear()


def _defines(text, name):
    """True if module ``text`` has a ``define`` of the function ``name`` (the parser behind
    ``Definitions``, stopping at the first match)."""
    for start in _line_starts(text, "define "):
        match = _DEFINE.match(text, start)
        if match and _strip_quotes(match.group("name")) == name:
            return True
    return False


def _relink(text, exported, definitions=None):
    """Give ``linkonce_odr`` linkage to every definition in ``text`` without a linkage and not
    named in ``exported`` (``definitions``: ``Definitions(text)``, if already known)."""
    if definitions is None:
        definitions = Definitions(text)
    out, pos = [], 0
    for offset, name in definitions.unlinked:
        if name not in exported:
            out.append(text[pos:offset])
            out.append("linkonce_odr ")
            pos = offset
    if out:
        out.append(text[pos:])
        text = "".join(out)
    return text if text.endswith("\n") else text + "\n"


class CUDACodeLibrary(CodeLibrary):
    """NVVM IR for one compiled function plus the libraries it links.

    Attributes used by the rest of the compiler:

    * ``kernel_names`` / ``exported_names`` -- symbols kept externally visible;
    * ``link_files`` -- external files (PTX, cubin, LTO-IR ...) that the runtime must link;
    * ``nvvm_options`` -- libNVVM options (``-opt=3`` ...), set by the pipeline;
    * ``exceptions`` -- exception ids its code returns (see ``device_errors``);
    * ``device_cc`` -- a callable giving the compute capability of ``get_ptx()`` without ``cc``
      (set by whoever owns the library: a kernel made by the dispatch layer passes the current
      device's), or None: the lowest the installed libNVVM accepts.
    """

    device_cc = None

    def __init__(self, codegen, name, nvvm_options=()):
        super().__init__(codegen, name)
        self._modules = []  # llvmlite.ir modules and (name, text) pairs, in order added
        self._owned = []  # the llvmlite.ir modules this library alone uses (see add_ir_module)
        self._texts = None
        self._defined = None  # Definitions of each text (see _relinked_texts)
        self._defined_names = frozenset()
        self._relink_cache = {}
        self._ir_modules = None  # (key, modules) of the last ir_modules()
        #: {module name: the function it calls} of this library's kernel wrappers written by
        #: ``kernel_wrapper.pass_through_text`` (spliced for libNVVM: ``program_modules``)
        self.spliceable_wrappers = {}
        self._linking_libraries = []
        self.link_files = []
        self.kernel_names = set()
        self.exported_names = set()
        self.nvvm_options = tuple(nvvm_options)
        # exception id -> (class, args, location) of what this library's code can raise
        self.exceptions = {}
        # (feature, lowest compute capability, source location) of features without a
        # fallback (see require_cc); `lowering_loc` is where lowering is (set by CUDALower)
        self.cc_requirements = []
        self.lowering_loc = None
        self._ptx_cache = {}
        self._lock = threading.Lock()

    # ---- building -------------------------------------------------------------------
    def create_ir_module(self, name):
        """A new ``llvmlite.ir`` module for this library (owned by it: see ``add_ir_module``)."""
        self._raise_if_finalized()
        module = self._codegen._create_empty_module(name)
        self._owned.append(module)
        return module

    def add_ir_module(self, ir_module, owned=False):
        """Add an ``llvmlite.ir`` module; it is printed at ``finalize`` (with
        ``!nvvmir.version`` added then, if it has none).

        A module this library owns -- made by its ``create_ir_module``, or added with
        ``owned=True`` by code that made it for this library alone -- is emptied once printed
        (``release_module``): nothing may use it after ``finalize``."""
        self._raise_if_finalized()
        self._modules.append(ir_module)
        if owned:
            self._owned.append(ir_module)

    def add_ir_text(self, name, text):
        """Add a module as NVVM IR text that is ready for libNVVM as it is (NVVM data layout,
        ``!nvvmir.version``, nothing newer than LLVM 7: see ``nvvmir``)."""
        self._raise_if_finalized()
        self._modules.append((name, text))

    def add_linking_library(self, library):
        if library is self:
            return
        if not isinstance(library, CUDACodeLibrary):
            raise TypeError(f"cannot link {library!r} into CUDA code (it is not CUDA code)")
        library._ensure_finalized()
        if library not in self._linking_libraries:
            self._linking_libraries.append(library)

    def require_cc(self, feature, cc, loc=None):
        """Code of this library uses ``feature``, which needs compute capability ``cc`` or newer
        (at ``loc``, default: where lowering is)."""
        entry = (feature, tuple(cc[:2]), loc if loc is not None else self.lowering_loc)
        if entry not in self.cc_requirements:
            self.cc_requirements.append(entry)

    def check_cc_requirements(self, cc):
        """Raise a TypingError when code of this program needs a newer compute capability
        than ``cc``, naming the feature, the compute capability it needs and the line."""
        from numba.core.errors import TypingError

        target = tuple(cc[:2])
        for lib in self.all_libraries():
            for feature, needed, loc in lib.cc_requirements:
                if target < needed:
                    raise TypingError(
                        f"{feature} needs compute capability {needed[0]}.{needed[1]} or newer; "
                        f"this code is being compiled for compute capability {target[0]}.{target[1]}. "
                        "Compile for a newer GPU (cc=...) or avoid it on this one.",
                        loc=loc,
                    )

    def add_linking_file(self, path):
        if path not in self.link_files:
            self.link_files.append(path)

    def finalize(self):
        if self._finalized:
            return
        texts = []
        for module in self._modules:
            if isinstance(module, tuple):
                texts.append(module)
            else:
                text = nvvmir.ir_version_text(module, ir_printer.module_text(module))
                texts.append((module.name, nvvmir.downgrade_for_llvm7(text)))
        self._texts = texts
        owned = self._owned
        for module in self._modules:
            if not isinstance(module, tuple) and any(module is mine for mine in owned):
                release_module(module)
        self._modules = self._owned = None  # the text is the library now
        self._finalized = True

    def get_function(self, name):
        raise NotImplementedError("CUDA code libraries hold IR text; there are no LLVM functions to get")

    # ---- linked view ------------------------------------------------------------------
    def all_libraries(self):
        """This library and every library it links, each once, this one first."""
        seen, order, stack = set(), [], [self]
        while stack:
            lib = stack.pop(0)
            if id(lib) in seen:
                continue
            seen.add(id(lib))
            order.append(lib)
            stack.extend(lib._linking_libraries)
        return order

    def all_link_files(self):
        files = []
        for lib in self.all_libraries():
            for path in lib.link_files:
                if path not in files:
                    files.append(path)
        return files

    def ir_modules(self):
        """``(name, text)`` of every module to hand to libNVVM, linkage already adjusted; with
        debug info, one merged module (a single compile unit, see ``module_merge``)."""
        self._ensure_finalized()
        exported = frozenset(self.kernel_names | self.exported_names)
        libraries = self.all_libraries()
        # Runtime libraries (the device NRT) go last: libNVVM links a linkonce_odr definition
        # only when a module before it refers to it, and several libraries link the runtime.
        libraries = ([lib for lib in libraries if not getattr(lib, "is_nrt", False)]
                     + [lib for lib in libraries if getattr(lib, "is_nrt", False)])
        key = (exported, tuple(map(id, libraries)))
        if self._ir_modules is not None and self._ir_modules[0] == key:
            return list(self._ir_modules[1])
        modules = []
        for lib in libraries:
            lib._ensure_finalized()
            modules.extend(lib._relinked_texts(exported))
        if len(modules) > 1 and nvvmir.has_debug_info(modules):
            # libNVVM allows one debug compile unit per program (see module_merge; imported
            # only here: compiling its patterns costs a first compile without debug info ~2 ms)
            from . import module_merge

            modules = [module_merge.merge(modules, f"{self.name}:debug")]
        self._ir_modules = (key, tuple(modules))
        return list(modules)

    def program_modules(self):
        """What libNVVM compiles: ``ir_modules()`` with each pass-through kernel wrapper of this
        library spliced into the module defining the function it calls
        (``kernel_wrapper.splice``; where that is not certain to give the same program, the two
        stay apart)."""
        modules = self.ir_modules()
        if not self.spliceable_wrappers or len(modules) < 2:
            return modules
        from . import kernel_wrapper

        for name, callee in self.spliceable_wrappers.items():
            qualified = f"{self.name}:{name}"
            index = next((i for i, (n, _t) in enumerate(modules) if n == qualified), None)
            if index is None:
                continue
            wrapper = modules[index][1]
            for other, (other_name, text) in enumerate(modules):
                if other != index and _defines(text, callee):
                    merged = kernel_wrapper.splice(wrapper, callee, text)
                    if merged is not None:
                        modules[other] = (other_name, merged)
                        del modules[index]
                    break
        return modules

    def _relinked_texts(self, exported):
        """``(library:module name, text)`` of this library's modules with linkage adjusted for
        a program exporting ``exported`` (see ``_relink``).  Cached per set of exported names
        that this library defines: a device function linked into many kernels is relinked once."""
        if self._defined is None:
            self._defined = [Definitions(text) for _name, text in self._texts]
            self._defined_names = frozenset().union(*(d.names for d in self._defined))
        key = exported & self._defined_names
        texts = self._relink_cache.get(key)
        if texts is None:
            texts = tuple((f"{self.name}:{name}", _relink(text, exported, definitions))
                          for (name, text), definitions in zip(self._texts, self._defined))
            self._relink_cache[key] = texts
        return texts

    def get_llvm_str(self):
        return "\n".join(text for _name, text in self.ir_modules())

    @property
    def llvm_strs(self):
        """The NVVM IR text of each module to compile (NVIDIA's attribute; ``ir_modules`` without
        the names)."""
        return [text for _name, text in self.ir_modules()]

    def get_asm_str(self, cc=None):
        """PTX for compute capability ``cc`` (default: ``device_cc()``, else the lowest cc)."""
        return self.get_ptx(cc)

    def get_asm_strs(self, cc=None):
        """``[PTX]`` (NVIDIA's form: a list, one program for every module)."""
        return [self.get_ptx(cc)]

    @property
    def _linking_files(self):
        """NVIDIA's attribute: the files to link (``all_link_files``), read-only here (add with
        ``add_linking_file``)."""
        return frozenset(self.all_link_files())

    def get_ptx(self, cc=None):
        from . import capability, nvvm

        cc = capability.forced_cc() or capability.resolve_cc(cc, self.device_cc)
        with self._lock:
            ptx = self._ptx_cache.get(cc)
            if ptx is None:
                self.check_cc_requirements(cc)
                ptx = nvvm.compile_ir(self.program_modules(), capability.arch_name(cc),
                                      self.nvvm_options)
                self._ptx_cache[cc] = ptx
        return ptx

    def get_ltoir(self, cc=None):
        from . import capability, nvvm

        cc = capability.forced_cc() or capability.resolve_cc(cc, self.device_cc)
        key = ("ltoir", cc)
        with self._lock:
            data = self._ptx_cache.get(key)
            if data is None:
                self.check_cc_requirements(cc)
                data = nvvm.compile_ir(
                    self.program_modules(), capability.arch_name(cc), self.nvvm_options,
                    gen_lto=True)
                self._ptx_cache[key] = data
        return data


class CUDACodegen(Codegen):
    """Creates NVVM-ready modules and ``CUDACodeLibrary`` objects; no execution engine."""

    _library_class = CUDACodeLibrary

    def __init__(self, module_name):
        self._module_name = module_name
        self._data_layout = nvvmir.DATA_LAYOUT
        self._target_data = None

    def _create_empty_module(self, name):
        return nvvmir.new_module(name)

    def insert_unresolved_ref(self, builder, fnty, name):
        """A call target defined by a library linked later (recursion: see ``recursion``)."""
        from .recursion import declare

        return declare(builder, fnty, name)

    def _add_module(self, module):
        raise NotImplementedError("CUDA code is never added to an in-process execution engine")

    @property
    def target_data(self):
        if self._target_data is None:
            import llvmlite.binding as ll

            self._target_data = ll.create_target_data(self._data_layout)
        return self._target_data

    def magic_tuple(self):
        return ("nvptx64-nvidia-cuda", "cuda", "")
