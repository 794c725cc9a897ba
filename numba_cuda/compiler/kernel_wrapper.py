"""Kernel wrappers, reused as text templates.

The NVVM IR of a kernel wrapper (see ``CUDATargetContext.make_kernel``) is decided by the
kernel's argument and return types, ``max_registers`` and whether it reports errors; only two
symbol names differ between kernels: the kernel entry point and the device function it calls
(plus the error record, named after the entry point).  Building the wrapper with ``llvmlite.ir``
and printing it costs about 1 ms, so it is built once per such key with placeholder names, and
each kernel gets that text with its own names written in (``WrapperTemplate.render``).  The
template of a wrapper that reports no errors is not even built: ``pass_through_text`` writes the
text ``llvmlite.ir`` would print (tests compare the two); the others are built and printed.

Wrappers with debug info (``debug``/``lineinfo``) name source lines and are always built
directly.

A pass-through wrapper's text is also *spliced* into the module that defines the function it
calls before libNVVM compiles the kernel (``splice``): one module fewer for libNVVM to parse and
link, about 1 ms a kernel (7% of libNVVM's time over the compile corpus), the same PTX (tests
compare the two for every corpus kernel).  ``ir_modules()`` still shows the two modules.

The placeholders are symbol names containing a ``\\x01`` byte.  ``llvmlite.ir`` prints every
global reference as ``@"name"`` (escaping only ``\\`` and ``"``), so each placeholder shows up
raw inside such a reference and nowhere else: nothing else in a wrapper (types, constants,
local names made by Numba's data models) can contain that byte.  The template checks this
when it is made; rendering escapes the real names exactly as ``llvmlite.ir`` does.
"""

import re

from .nvvmir import LAUNCH_BOUND_ANNOTATIONS

ENTRY = "\x01entry\x01"
CALLEE = "\x01callee\x01"
_MARK = "\x01"
_SLOTS = frozenset(("entry", "callee"))
_MODULE_ID = "; ModuleID = "


def module_name(entry_name):
    """Name of the ``llvmlite.ir`` module (and libNVVM module) holding ``entry_name``'s wrapper."""
    return f"{entry_name}.kernel"


def global_reference(name):
    """``@"name"`` as ``llvmlite.ir`` prints a reference to the global ``name``."""
    if "\\" in name or '"' in name:
        name = name.replace("\\", "\\5c").replace('"', "\\22")
    return f'@"{name}"'


class WrapperTemplate:
    """NVVM IR text of a wrapper built with the placeholder names ``ENTRY``/``CALLEE``.

    ``text`` is the printed module; ``ll_args`` the wrapper's flattened LLVM argument types.
    """

    __slots__ = ("_parts", "ll_args", "spliceable")

    def __init__(self, text, ll_args, spliceable=False):
        header, sep, body = text.partition("\n")
        if not sep or header != f'{_MODULE_ID}"{module_name(ENTRY)}"':
            raise ValueError(f"kernel wrapper text does not start with its module id: {header!r}")
        pieces = body.split(_MARK)
        if len(pieces) % 2 == 0:
            raise ValueError("kernel wrapper text has an unpaired placeholder byte")
        parts = [pieces[0]]
        for index in range(1, len(pieces), 2):
            slot, after = pieces[index], pieces[index + 1]
            # Every placeholder must be a whole global name: @"<placeholder>" (the error
            # record is @"<entry>__errors").
            if slot not in _SLOTS or not parts[-1].endswith('@"'):
                raise ValueError(f"kernel wrapper text uses a placeholder outside a global name: {slot!r}")
            if not (after.startswith('"') or (slot == "entry" and after.startswith('__errors"'))):
                raise ValueError(f"kernel wrapper text uses a placeholder inside a longer name: {slot!r}")
            parts[-1] = parts[-1][:-2]  # the reference, quotes included, is written by render
            end = after.index('"') + 1
            parts.append((slot, after[:end - 1]))
            parts.append(after[end:])
        self._parts = tuple(parts)
        self.ll_args = tuple(ll_args)
        #: the text is ``pass_through_text``'s, whose layout ``splice`` knows
        self.spliceable = spliceable

    def render(self, entry_name, callee_name):
        """The wrapper's text for kernel ``entry_name`` calling device function ``callee_name``,
        identical to what building it with those names and printing it gives."""
        names = {"entry": entry_name, "callee": callee_name}
        out = [f'{_MODULE_ID}"{module_name(entry_name)}"\n']
        parts = self._parts
        out.append(parts[0])
        for index in range(1, len(parts), 2):
            slot, suffix = parts[index]
            out.append(global_reference(names[slot] + suffix))
            out.append(parts[index + 1])
        return "".join(out)


def pass_through_text(ll_args, callee_type, max_registers=None, launch_bounds=None, *,
                      triple, data_layout, ir_version):
    """The text ``llvmlite.ir`` prints for the pass-through wrapper (no debug info, no error
    record: ``CUDATargetContext.build_kernel_wrapper``) named ``ENTRY`` calling ``CALLEE``, with
    ``!nvvmir.version`` added: written directly, without building the module (~0.25 ms a
    template, most of a corpus's template cost).  ``ll_args``: the kernel's flattened LLVM
    argument types; ``callee_type``: the device function's ``ir.FunctionType`` (the return slot,
    then ``ll_args``).  None where this writer does not know the text llvmlite would print
    (a parameter that is not ``ll_args``, a return slot that is not a pointer, a named struct
    type, which llvmlite defines at the top of the module); the caller then builds the module.
    Tests compare the two for every corpus signature and every option."""
    arg_texts = [str(t) for t in ll_args]
    callee_params = [str(t) for t in callee_type.args]
    if callee_params[1:] != arg_texts or not callee_params:
        return None
    slot_ptr = callee_params[0]
    if not slot_ptr.endswith("*"):
        return None
    slot = slot_ptr[:-1]
    if not slot.endswith("*") or any("%" in t for t in (slot_ptr, *arg_texts)):
        return None  # the slot's null value is ``null`` only for a pointer slot
    status = str(callee_type.return_type)
    n = len(arg_texts)
    params = ", ".join(f'{t} %".{i}"' for i, t in enumerate(arg_texts, 1))
    call_args = ", ".join([f'{slot_ptr} %".{n + 2}"',
                           *(f'{t} %".{i}"' for i, t in enumerate(arg_texts, 1))])
    declared = ", ".join(f'{t} %".{i}"' for i, t in enumerate(callee_params, 1))
    fnptr = f"void ({', '.join(arg_texts)})*"
    entry = global_reference(ENTRY)
    annotations = [("kernel", 1)]
    if max_registers:
        annotations.append(("maxnreg", int(max_registers)))
    annotations += [(name, int(value))
                    for name, value in zip(LAUNCH_BOUND_ANNOTATIONS, launch_bounds or ())]
    version = len(annotations)
    lines = [
        f'{_MODULE_ID}"{module_name(ENTRY)}"',
        f'target triple = "{triple}"',
        f'target datalayout = "{data_layout}"',
        "",
        f"define void {entry}({params})",
        "{",
        "entry:",
        f'  %".{n + 2}" = alloca {slot}',
        f'  store {slot} null, {slot_ptr} %".{n + 2}"',
        f'  store {slot} null, {slot_ptr} %".{n + 2}"',
        f'  %".{n + 5}" = call {status} {global_reference(CALLEE)}({call_args})',
        "  ret void",
        "}",
        "",
        f"declare {status} {global_reference(CALLEE)}({declared})",
        "",
        f'@"llvm.used" = appending global [1 x i8*] [i8* bitcast ({fnptr} {entry} to i8*)], '
        'section "llvm.metadata"',
        f"!nvvm.annotations = !{{ {', '.join(f'!{i}' for i in range(len(annotations)))} }}",
        f"!nvvmir.version = !{{ !{version} }}",
        *(f'!{i} = !{{ {fnptr} {entry}, !"{name}", i32 {value} }}'
          for i, (name, value) in enumerate(annotations)),
        f"!{version} = !{{ {', '.join(f'i32 {v}' for v in ir_version)} }}",
    ]
    return "\n".join(lines)


_METADATA_NODE = re.compile(r"!(\d+) = ")
_IR_VERSION = re.compile(r"!nvvmir\.version = !\{ !(\d+) \}")


def _numbered_nodes(text):
    """``{number: line}`` of the numbered metadata nodes of module ``text`` (lines
    ``!<n> = ...``), found with ``str.find``: a regular expression anchored at line starts
    costs ~0.1 ms over a small kernel's module."""
    starts = [0] if text.startswith("!") else []
    at = text.find("\n!")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n!", at + 1)
    nodes = {}
    for start in starts:
        match = _METADATA_NODE.match(text, start)
        if match:
            end = text.find("\n", start)
            nodes[match.group(1)] = text[match.end():end if end >= 0 else None]
    return nodes


def splice(wrapper_text, callee_name, module_text):
    """``module_text`` (a module defining ``callee_name``) with the kernel of ``wrapper_text`` (a
    ``pass_through_text`` wrapper calling ``callee_name``, as rendered) added: its definition, its
    ``@llvm.used`` entry and its ``!nvvm.annotations`` (renumbered after the module's metadata
    nodes), without its declaration of the callee or its ``!nvvmir.version``.  None where that
    is not certain to be the same program: the wrapper is not laid out as ``pass_through_text``
    writes it, or the module has an ``@llvm.used`` or ``!nvvm.annotations`` of its own, another
    triple, data layout or IR version, or mentions the kernel's name; the two modules are then
    compiled as they are."""
    lines = wrapper_text.rstrip("\n").split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("define void @"))
        end = lines.index("}", start)
    except (StopIteration, ValueError):
        return None
    entry = lines[start][len("define void "):lines[start].find("(")]
    callee = global_reference(callee_name)
    tail = lines[end + 1:]
    if (len(tail) < 8 or tail[0] or tail[2] or not tail[1].startswith("declare ")
            or f" {callee}(" not in tail[1] or not tail[3].startswith('@"llvm.used" = appending ')
            or not tail[4].startswith("!nvvm.annotations = !{ ") or not tail[4].endswith(" }")):
        return None
    header = [line for line in lines[1:start] if line]
    if any(f"\n{line}\n" not in module_text for line in header):
        return None  # another triple or data layout
    if ('@"llvm.used"' in module_text or "!nvvm.annotations" in module_text
            or entry in module_text):
        return None
    version = _IR_VERSION.fullmatch(tail[5])
    nodes = {}
    for line in tail[6:]:
        match = _METADATA_NODE.match(line)
        if match is None:
            return None
        nodes[match.group(1)] = line[match.end():]
    at = module_text.find("\n!nvvmir.version = ")
    body_version = _IR_VERSION.match(module_text, at + 1) if at >= 0 else None
    if version is None or body_version is None:
        return None
    wanted = nodes.pop(version.group(1), None)
    body_nodes = _numbered_nodes(module_text)
    if wanted is None or body_nodes.get(body_version.group(1)) != wanted:
        return None  # another IR version
    annotations = [ref.strip() for ref in tail[4][len("!nvvm.annotations = !{ "):-2].split(",")]
    if sorted(annotations) != sorted(f"!{key}" for key in nodes):
        return None
    if any(re.search(r"!\d", content) for content in nodes.values()):
        return None  # an annotation referring to another node (pass_through_text writes none)
    base = max(map(int, body_nodes), default=-1) + 1
    renumbered = {ref: f"!{base + index}" for index, ref in enumerate(annotations)}
    out = [module_text if module_text.endswith("\n") else module_text + "\n", "\n",
           "\n".join(lines[start:end + 1]), "\n\n", tail[3], "\n",
           f"!nvvm.annotations = !{{ {', '.join(renumbered[ref] for ref in annotations)} }}\n"]
    out += [f"{renumbered[ref]} = {nodes[ref[1:]]}\n" for ref in annotations]
    return "".join(out)
