"""What makes an ``llvmlite.ir`` module acceptable to libNVVM.

* the NVVM 64-bit data layout and the ``nvptx64-nvidia-cuda`` triple (an empty layout is rejected);
* ``!nvvmir.version`` with the IR version libNVVM itself reports;
* kernels marked with ``!nvvm.annotations`` ``!"kernel"`` (understood by both of libNVVM's IR
  readers: the LLVM-7-era one used for compute_75..90 and the modern one for compute_100+, which
  upgrades the annotation to the ``ptx_kernel`` calling convention itself);
* textual, typed-pointer IR printed by ``llvmlite.ir`` (never through ``llvmlite.binding``), with
  attributes newer than LLVM 7 removed (``downgrade_for_llvm7``).
"""

import re

from llvmlite import ir

from . import nvvm
from .nvvm import DATA_LAYOUT, TRIPLE  # noqa: F401 - NVVM's layout and triple, used here


def new_module(name):
    """An empty ``llvmlite.ir.Module`` with NVVM's triple and data layout."""
    module = ir.Module(name)
    module.triple = TRIPLE
    module.data_layout = DATA_LAYOUT
    return module


def add_ir_version(module):
    """Add ``!nvvmir.version`` (from libNVVM's own ``ir_version``) unless the module has it."""
    if "nvvmir.version" in module.namedmetadata:
        return
    i32 = ir.IntType(32)
    node = module.add_metadata([i32(v) for v in nvvm.ir_version()])
    module.add_named_metadata("nvvmir.version").add(node)


def ir_version_text(module, text):
    """``text`` (the printed ``module``) with ``!nvvmir.version`` appended as text, unless the
    module has it: the same as ``add_ir_version`` before printing, without building metadata
    through ``llvmlite.ir`` (``Module.add_metadata``).  The node's number follows the module's
    own numbered nodes (``llvmlite.ir`` numbers them ``!0``, ``!1`` ... in creation order)."""
    if "nvvmir.version" in module.namedmetadata:
        return text
    number = 0
    for node in module.metadata:
        name = str(node.name)
        if name.isdigit():
            number = max(number, int(name) + 1)
    operands = ", ".join(f"i32 {v}" for v in nvvm.ir_version())
    newline = "" if text.endswith("\n") else "\n"
    return f"{text}{newline}!nvvmir.version = !{{ !{number} }}\n!{number} = !{{ {operands} }}"


#: ``launch_bounds`` items -> their NVVM annotations (PTX .maxntid, .minnctapersm, .maxclusterrank)
LAUNCH_BOUND_ANNOTATIONS = ("maxntidx", "minctasm", "cluster_max_blocks")


def mark_kernel(module, function, max_registers=None, keep=(), launch_bounds=None):
    """Mark ``function`` as a kernel entry point (``!nvvm.annotations`` ``!"kernel"``), with a
    ``!"maxnreg"`` annotation (PTX ``.maxnreg``) when ``max_registers`` is given and
    ``!"maxntidx"``/``!"minctasm"``/``!"maxclusterrank"`` for ``launch_bounds``.  ``keep``:
    globals the host looks up by name, kept (``@llvm.used``) through nvJitLink LTO too."""
    annotations = module.add_named_metadata("nvvm.annotations")
    annotations.add(module.add_metadata([function, "kernel", ir.IntType(32)(1)]))
    if max_registers:
        annotations.add(module.add_metadata([function, "maxnreg", ir.IntType(32)(int(max_registers))]))
    for name, value in zip(LAUNCH_BOUND_ANNOTATIONS, launch_bounds or ()):
        annotations.add(module.add_metadata([function, name, ir.IntType(32)(int(value))]))
    # nvJitLink's LTO keeps only what @llvm.used reaches (the annotation is not enough there).
    i8p = ir.IntType(8).as_pointer()
    kept = [function, *keep]
    used_ty = ir.ArrayType(i8p, len(kept))
    used = ir.GlobalVariable(module, used_ty, "llvm.used")
    used.linkage = "appending"
    used.section = "llvm.metadata"
    used.initializer = ir.Constant(used_ty, [g.bitcast(i8p) for g in kept])


#: The named metadata of a module's debug compile units.
DEBUG_CU_MARKER = "!llvm.dbg.cu"


def has_debug_info(modules):
    """True if some ``(name, text)`` module carries a debug compile unit."""
    return any(DEBUG_CU_MARKER in text for _name, text in modules)


def empty_module_text():
    module = new_module("empty")
    add_ir_version(module)
    return str(module)


# Function/parameter attributes introduced after LLVM 7.0; the LLVM-7-era reader of libNVVM
# (compute_75..90) rejects them.  Dropping them is always safe: they are optimisation hints.
_POST_LLVM7_ATTRIBUTES = frozenset((
    "willreturn", "nofree", "nosync", "mustprogress", "immarg", "noundef", "nocallback",
    "nounwind_unwindabi", "nocf_check", "null_pointer_is_valid", "optforfuzzing", "shadowcallstack",
    "speculative_load_hardening", "hot", "noprofile", "vscale_range", "allocsize", "memory",
    "dead_on_unwind", "writable", "initializes", "captures", "nofpclass", "range",
))
_ATTR_GROUP = re.compile(r"^(attributes #\d+ = \{)(.*)(\}\s*)$")
_ATTR_WORD = re.compile(r'"[^"]*"(?:="[^"]*")?|[A-Za-z_][\w.]*(?:\([^)]*\))?|\S+')


def _filter_attr_words(text):
    kept = []
    for word in _ATTR_WORD.findall(text):
        bare = word.split("(", 1)[0]
        if bare in _POST_LLVM7_ATTRIBUTES:
            continue
        kept.append(word)
    return " ".join(kept)


#: The only lines that can carry function/parameter attributes.
_ATTRIBUTE_LINE = re.compile(r"\n(?:attributes #|define |declare )[^\n]*")


def _downgrade_line(match):
    line = match.group(0)[1:]
    if not any(attr in line for attr in _POST_LLVM7_ATTRIBUTES):
        return match.group(0)
    group = _ATTR_GROUP.match(line)
    if group:
        return f"\n{group.group(1)} {_filter_attr_words(group.group(2))} {group.group(3)}"
    if line.startswith(("define ", "declare ")):
        for attr in _POST_LLVM7_ATTRIBUTES:
            if attr in line:
                line = re.sub(rf"(?<![\w\"]){attr}(?:\([^)]*\))?(?![\w\"])", "", line)
    return "\n" + line


def downgrade_for_llvm7(text):
    """Strip attributes the LLVM-7-era NVVM reader does not know from IR text.  Only
    ``attributes #N``, ``define`` and ``declare`` lines are looked at (words such as ``range``
    also appear in metadata).

    ``emissionKind: DebugDirectivesOnly`` (``lineinfo=True``) is left as it is: both of
    libNVVM's readers (CUDA 12 and 13) accept it and emit ``.loc`` line tables with the code
    unchanged.  ``LineTablesOnly`` would make libNVVM emit ``.target sm_XY, debug`` and DWARF
    sections, and ptxas then de-optimises the kernel (more registers, other instructions)."""
    return _ATTRIBUTE_LINE.sub(_downgrade_line, "\n" + text)[1:]
