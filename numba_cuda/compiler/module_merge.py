"""Merging the NVVM IR text modules of one program into a single module with one debug
compile unit.

Every ``llvmlite.ir`` module that Numba's ``DIBuilder`` fills has its own ``DICompileUnit``.
libNVVM links the modules of a program, and compile units are ``distinct`` nodes, so linking
never unifies them; the modern IR reader of CUDA 13's libNVVM (compute_100 and newer) then
refuses ``-g`` and ``-generate-line-info`` ("number of debug compile units is more than 1").
A module may not simply leave its compile unit out of ``!llvm.dbg.cu`` either: the verifier
calls that broken debug info and libNVVM silently drops the module's line table.

So, when debug info is on, the program's modules are merged here, textually, into one module:
the first compile unit is kept and every other module's subprograms point at it (each keeps
its own ``file:``, so line info still names the right source).  The merge works on the
typed-pointer text that ``llvmlite.ir`` prints (never through ``llvmlite.binding``, whose
LLVM 22 output the LLVM-7-era reader used for compute_75..90 cannot read), with the
linker's rules for what it meets:

* metadata ``!N`` and attribute groups ``#N`` of each module are renumbered past the previous
  ones;
* ``linkonce``/``weak`` definitions met again are dropped (one definition rule), ``declare``\\ s
  of something defined or declared already are dropped;
* ``private``/``internal`` definitions whose names an earlier module also defines are renamed
  in their module;
* ``appending`` globals (``@llvm.used``) are concatenated; named metadata is concatenated,
  except ``!llvm.dbg.cu`` (the single unit), ``!llvm.module.flags`` (one node per flag name)
  and ``!nvvmir.version`` (one node).

Anything else that two modules define twice (two strong definitions of one symbol, two
different bodies for one named type) is a real conflict and raises ``NvvmError``.
"""

import re

from ..errors import NvvmError

_TOKEN = re.compile(r'"[^"]*"|!(\d+)\b|#(\d+)\b|@("[^"]*"|[-\w.$]+)')
_META_DEF = re.compile(r"^!(\d+) = ")
_NAMED_META = re.compile(r"^!(?P<name>[-\w.$]+|\"[^\"]*\") = !\{(?P<ops>.*)\}\s*$")
_DEFINE_NAME = re.compile(r'@("[^"]*"|[-\w.$]+)\(')
_GLOBAL_NAME = re.compile(r'^@("[^"]*"|[-\w.$]+) = ')
_TYPE_DEF = re.compile(r'^(%"[^"]*"|%[-\w.$]+) = type ')
_COMDAT = re.compile(r'^\$("[^"]*"|[-\w.$]+) = comdat ')
_LOCAL = ("private", "internal")
_DISCARDABLE = ("linkonce", "linkonce_odr", "weak", "weak_odr", "available_externally", "common")
_EMISSION_KIND = re.compile(r"emissionKind: (\w+)")
_EMISSION_ORDER = ("NoDebug", "DebugDirectivesOnly", "LineTablesOnly", "FullDebug")
_FLAG_NAME = re.compile(r'!"([^"]*)"')


class _Entity:
    """One top-level item of a module: kind, symbol name (or None) and its lines."""

    __slots__ = ("kind", "name", "linkage", "lines")

    def __init__(self, kind, name, linkage, lines):
        self.kind, self.name, self.linkage, self.lines = kind, name, linkage, lines


def _unquote(name):
    return name[1:-1] if name.startswith('"') else name


def _linkage(rest):
    first = rest.split(" ", 1)[0]
    return first if first in _LOCAL + _DISCARDABLE + ("appending", "external", "extern_weak") else ""


def _parse(module_name, text):
    entities = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith(";") or line.startswith(("target ", "source_filename")):
            entities.append(_Entity("header", None, "", [line]))
        elif line.startswith("define "):
            body = [line]
            while lines[i].rstrip() != "}":
                i += 1
                if i == len(lines):
                    raise NvvmError(f"cannot merge NVVM IR module {module_name}: unterminated function")
                body.append(lines[i])
            name = _DEFINE_NAME.search(line)
            entities.append(_Entity("define", _unquote(name.group(1)), _linkage(line[7:]), body))
        elif line.startswith("declare "):
            name = _DEFINE_NAME.search(line)
            entities.append(_Entity("declare", _unquote(name.group(1)), "", [line]))
        elif line.startswith("@"):
            match = _GLOBAL_NAME.match(line)
            if not match:
                raise NvvmError(f"cannot merge NVVM IR module {module_name}: unexpected line {line!r}")
            rest = line[match.end():]
            linkage = _linkage(rest)
            # llvmlite.ir spells out ``external`` only for declarations (no initializer)
            kind = "declare" if linkage in ("external", "extern_weak") else "global"
            entities.append(_Entity(kind, _unquote(match.group(1)), linkage, [line]))
        elif line.startswith("%"):
            match = _TYPE_DEF.match(line)
            if not match:
                raise NvvmError(f"cannot merge NVVM IR module {module_name}: unexpected line {line!r}")
            entities.append(_Entity("type", match.group(1), "", [line]))
        elif line.startswith("$"):
            match = _COMDAT.match(line)
            entities.append(_Entity("comdat", match.group(1) if match else line, "", [line]))
        elif _META_DEF.match(line):
            entities.append(_Entity("metadata", None, "", [line]))
        elif line.startswith("!"):
            if not _NAMED_META.match(line):
                raise NvvmError(f"cannot merge NVVM IR module {module_name}: unexpected line {line!r}")
            entities.append(_Entity("named", None, "", [line]))
        elif line.startswith(("attributes #", "module asm")):
            entities.append(_Entity("other", None, "", [line]))
        else:
            raise NvvmError(f"cannot merge NVVM IR module {module_name}: unexpected line {line!r}")
        i += 1
    return entities


def _max_number(text, group):
    found = [int(m.group(group)) for m in _TOKEN.finditer(text) if m.group(group)]
    return max(found, default=-1)


def _rewrite(lines, meta_offset, attr_offset, meta_map, renames):
    def sub(match):
        if match.group(1) is not None:
            number = int(match.group(1)) + meta_offset
            return f"!{meta_map.get(number, number)}"
        if match.group(2) is not None:
            return f"#{int(match.group(2)) + attr_offset}"
        if match.group(3) is not None:
            new = renames.get(_unquote(match.group(3)))
            return f'@"{new}"' if new is not None else match.group(0)
        return match.group(0)

    return [_TOKEN.sub(sub, line) for line in lines]


def _appending_elements(line):
    """``(type, [elements], tail)`` of ``@x = appending global [N x T] [e1, e2], tail``."""
    head, _, rest = line.partition(" global ")
    ty_end = rest.index("]") + 1
    element_type = rest[1:ty_end - 1].split(" x ", 1)[1]
    body = rest[ty_end:].lstrip()
    depth, start, elements = 0, 1, []
    for pos, char in enumerate(body):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
            if depth == 0:
                last = body[start:pos].strip()
                if last:
                    elements.append(last)
                return head, element_type, elements, body[pos + 1:]
        elif char == "," and depth == 1:
            elements.append(body[start:pos].strip())
            start = pos + 1
    raise NvvmError(f"cannot merge appending global: {line!r}")


def merge(modules, name="merged"):
    """Merge ``(name, text)`` NVVM IR modules into one ``(name, text)`` module with a single
    ``DICompileUnit`` (see the module docstring)."""
    parsed = [(module_name, _parse(module_name, text)) for module_name, text in modules]

    # Local symbols whose names an earlier module defines are renamed in their own module.
    defined_in = {}
    for index, (_module_name, entities) in enumerate(parsed):
        for entity in entities:
            if entity.kind in ("define", "global"):
                defined_in.setdefault(entity.name, []).append(index)
    per_module_renames = [{} for _ in parsed]
    for index, (_module_name, entities) in enumerate(parsed):
        for entity in entities:
            if (entity.kind in ("define", "global") and entity.linkage in _LOCAL
                    and defined_in[entity.name][0] != index):
                per_module_renames[index][entity.name] = f"{entity.name}.merged{index}"

    out_header, out_body, out_metadata, out_other = [], [], [], []
    named = {}  # name -> list of operand strings, in order
    seen_symbols = {}  # name -> linkage of the kept definition, "declare" for declarations
    kept_positions = {}  # symbol -> index in out_body of its declaration (replaced by a definition)
    appending = {}  # name -> index in out_body
    types = {}
    comdats = set()
    first_cu = first_cu_position = None
    emission_kinds = []
    meta_offset = attr_offset = 0
    for index, (module_name, entities) in enumerate(parsed):
        all_text = "\n".join(line for entity in entities for line in entity.lines)
        meta_map = {}
        renames = per_module_renames[index]
        # this module's compile unit(s): the first one seen is the program's only one
        for entity in entities:
            if entity.kind == "metadata" and "!DICompileUnit(" in entity.lines[0]:
                number = int(_META_DEF.match(entity.lines[0]).group(1)) + meta_offset
                kind = _EMISSION_KIND.search(entity.lines[0])
                emission_kinds.append(kind.group(1) if kind else "FullDebug")
                if first_cu is None:
                    first_cu = number
                else:
                    meta_map[number] = first_cu
        for entity in entities:
            lines = _rewrite(entity.lines, meta_offset, attr_offset, meta_map, renames)
            kind = entity.kind
            symbol = renames.get(entity.name, entity.name) if entity.name is not None else None
            if kind == "header":
                if index == 0 and lines[0].strip():
                    out_header.append(lines[0])
            elif kind == "metadata":
                number = int(_META_DEF.match(entity.lines[0]).group(1)) + meta_offset
                if number in meta_map:
                    continue  # a later module's compile unit, replaced by the first one
                if number == first_cu:
                    first_cu_position = len(out_metadata)
                out_metadata.append(lines[0])
            elif kind == "named":
                match = _NAMED_META.match(lines[0])
                ops = [op.strip() for op in match.group("ops").split(",") if op.strip()]
                named.setdefault(match.group("name"), []).extend(ops)
            elif kind == "other":
                out_other.append(lines[0])
            elif kind == "type":
                if symbol in types:
                    if types[symbol] != lines[0]:
                        raise NvvmError(f"cannot merge NVVM IR modules: type {symbol} is defined "
                                        f"differently in {module_name}")
                    continue
                types[symbol] = lines[0]
                out_header.append(lines[0])
            elif kind == "comdat":
                if symbol not in comdats:
                    comdats.add(symbol)
                    out_header.append(lines[0])
            elif kind == "declare":
                if symbol not in seen_symbols:
                    seen_symbols[symbol] = "declare"
                    kept_positions[symbol] = len(out_body)
                    out_body.append(lines)
            elif entity.linkage == "appending":
                if symbol in appending:
                    position = appending[symbol]
                    head, element_type, elements, tail = _appending_elements(out_body[position][0])
                    _head, _ty, more, _tail = _appending_elements(lines[0])
                    elements += more
                    out_body[position] = [
                        f"{head} global [{len(elements)} x {element_type}] [{', '.join(elements)}]{tail}"
                    ]
                else:
                    appending[symbol] = len(out_body)
                    out_body.append(lines)
            else:  # a definition
                previous = seen_symbols.get(symbol)
                if previous is None:
                    seen_symbols[symbol] = entity.linkage
                    out_body.append(lines)
                elif previous == "declare":
                    seen_symbols[symbol] = entity.linkage
                    out_body[kept_positions[symbol]] = lines
                elif previous in _DISCARDABLE and entity.linkage in _DISCARDABLE:
                    continue  # one definition rule: the first one stays
                else:
                    raise NvvmError(f"cannot merge NVVM IR modules: symbol {symbol!r} is defined "
                                    f"twice (again in {module_name})")
        meta_offset = max(meta_offset, _max_number(all_text, 1) + meta_offset + 1)
        attr_offset = max(attr_offset, _max_number(all_text, 2) + attr_offset + 1)

    if first_cu_position is not None:
        # the unit describes every function: the most complete emission kind among the units
        # (a line-tables-only kernel may call full-debug device functions, whose variable
        # records a line-tables-only unit cannot hold)
        richest = max(emission_kinds, key=_EMISSION_ORDER.index)
        line = out_metadata[first_cu_position]
        if _EMISSION_KIND.search(line):
            line = _EMISSION_KIND.sub(f"emissionKind: {richest}", line)
        out_metadata[first_cu_position] = line

    out_named = []
    for meta_name, ops in named.items():
        if meta_name == "llvm.dbg.cu":
            ops = [f"!{first_cu}"]
        elif meta_name == "nvvmir.version":
            ops = ops[:1]
        elif meta_name == "llvm.module.flags":
            ops = _unique_flags(ops, out_metadata)
        out_named.append(f"!{meta_name} = !{{ {', '.join(ops)} }}")

    parts = out_header + [""]
    for lines in out_body:
        parts.extend(lines)
        parts.append("")
    parts.extend(out_named)
    parts.extend(out_metadata)
    parts.extend(out_other)
    return name, "\n".join(parts) + "\n"


def _unique_flags(ops, metadata_lines):
    """Keep one module flag node per flag name (the verifier refuses repeated names)."""
    by_number = {}
    for line in metadata_lines:
        match = _META_DEF.match(line)
        by_number[f"!{match.group(1)}"] = line
    kept, names = [], set()
    for op in ops:
        flag = _FLAG_NAME.search(by_number.get(op, ""))
        key = flag.group(1) if flag else op
        if key not in names:
            names.add(key)
            kept.append(op)
    return kept
