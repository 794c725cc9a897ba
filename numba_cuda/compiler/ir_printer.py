"""Printing ``llvmlite.ir`` modules to text: the same text as ``str(module)``, in less time.

``str(module)`` is the largest piece of a compile outside Numba's passes and libNVVM: llvmlite
prints every instruction through several layers of small methods (``__str__`` with its cache,
``_to_string``, ``descr`` appending to a buffer, ``_stringify_metadata``, ``str.format`` calling
``__str__`` on each type and operand).  ``module_text(module)`` walks the same objects and
builds each instruction's line with one function per instruction class, writing the very format
llvmlite writes (down to its spacing quirks: ``select`` with no flags prints two spaces, a cast
or ``icmp`` without metadata ends in a space that the final ``rstrip`` removes ...).

It is used only where it is known to give llvmlite's text:

* the module, its functions and blocks are exactly llvmlite's classes (a subclass may print
  differently: it and everything in it are printed by llvmlite);
* an instruction whose class is not exactly one of those below, or whose line llvmlite already
  computed (its string cache, which llvmlite prints even if the instruction changed since), is
  printed by llvmlite (``str(instr)``), and so are global variables, identified types and
  metadata nodes other than ``MDValue`` and ``DIValue``;
* operand references and type names are llvmlite's own (``get_reference()``, ``str(type)``),
  looked up once per object and module; where llvmlite has not cached them yet, they are
  computed without the exception its cache lookup raises then (``_reference``,
  ``_type_text``), which costs more than the rest of printing an operand.

``tests/compiler/test_ir_printer.py`` compares the text with ``str(module)`` on every corpus
entry (also with line info and debug info) and on modules holding every instruction kind.
"""

from llvmlite import ir
from llvmlite.ir import _utils
from llvmlite.ir import instructions as _ins
from llvmlite.ir import values as _val

#: llvmlite's per-object caches of the printed value (``_StrCaching``) and of its reference
#: (``_StringReferenceCaching``), by their mangled attribute names
_CACHED_STR = "_StrCaching__cached_str"
_CACHED_REF = "_StringReferenceCaching__cached_refstr"

_VOID = ir.VoidType
_CACHING_STR = _utils._StrCaching.__str__
_CACHING_GET_REFERENCE = _utils._StringReferenceCaching.get_reference


def module_text(module):
    """The text of ``module``: ``str(module)``, faster where that is known to be the same."""
    if type(module) is not ir.Module:
        return str(module)
    printer = _Printer()
    lines = [
        '; ModuleID = "%s"' % (module.name,),
        'target triple = "%s"' % (module.triple,),
        'target datalayout = "%s"' % (module.data_layout,),
        '']
    lines += [it.get_declaration() for it in module.get_identified_types().values()]
    function_text = printer.function_text
    for value in module.globals.values():
        if type(value) is _val.Function:
            lines.append(function_text(value))
        else:
            lines.append(str(value))
    lines += printer.metadata_lines(module)
    return "\n".join(lines)


class _Printer:
    """Printing state for one module: the references and type names already looked up (by
    object identity; every object stays alive while its module is printed)."""

    __slots__ = ("_refs", "_types")

    def __init__(self):
        self._refs = {}
        self._types = {}

    def ref(self, value):
        refs = self._refs
        key = id(value)
        text = refs.get(key)
        if text is None:
            text = refs[key] = _reference(value)
        return text

    def ty(self, typ):
        types = self._types
        key = id(typ)
        text = types.get(key)
        if text is None:
            text = types[key] = _type_text(typ)
        return text

    def typed(self, value):
        """``"<type> <reference>"`` of an operand (``ty`` and ``ref``, inlined)."""
        typ = value.type
        types = self._types
        type_text = types.get(id(typ))
        if type_text is None:
            type_text = types[id(typ)] = _type_text(typ)
        refs = self._refs
        ref_text = refs.get(id(value))
        if ref_text is None:
            ref_text = refs[id(value)] = _reference(value)
        return f"{type_text} {ref_text}"

    def metadata(self, instr):
        """``_stringify_metadata(leading_comma=True)``."""
        metadata = instr.metadata
        if not metadata:
            return ""
        ref = self.ref
        return "".join([f", !{key} {ref(node)}" for key, node in metadata.items()])

    def metadata_lines(self, module):
        """``Module._get_metadata_lines``: named metadata, then every node."""
        ref = self.ref
        lines = [f"!{name} = !{{ {', '.join([ref(node) for node in named.operands])} }}"
                 for name, named in module.namedmetadata.items()]
        md_value, di_value = _val.MDValue, _val.DIValue
        for node in module.metadata:
            cls = type(node)
            text = getattr(node, _CACHED_STR, None) if cls is md_value or cls is di_value else None
            if text is None:
                if cls is di_value:
                    text = f"{ref(node)} = {self.di_value(node)}".rstrip()
                elif cls is md_value:
                    text = f"{ref(node)} = {self.md_value(node)}".rstrip()
                else:
                    text = str(node)
            lines.append(text)
        return lines

    def md_value(self, node):
        """``MDValue.descr``."""
        ref, typed = self.ref, self.typed
        metadata_type, constant = ir.MetaDataType, _val.Constant
        operands = []
        for op in node.operands:
            if isinstance(op.type, metadata_type):
                if isinstance(op, constant) and op.constant is None:
                    operands.append("null")
                else:
                    operands.append(ref(op))
            else:
                operands.append(typed(op))
        return f"!{{ {', '.join(operands)} }}\n"

    def di_value(self, node):
        """``DIValue.descr``."""
        operands = []
        for key, value in node.operands:
            if value is None:
                text = "null"
            elif value is True:
                text = "true"
            elif value is False:
                text = "false"
            elif isinstance(value, _val.DIToken):
                text = value.value
            elif isinstance(value, str):
                text = f'"{_val._escape_string(value)}"'
            elif isinstance(value, int):
                text = str(value)
            elif isinstance(value, _val.Constant):
                text = str(value)
            elif isinstance(value, _val.NamedValue):
                text = self.ref(value)
            else:
                return "".join(_descr(node))  # llvmlite's error for it
            operands.append(f"{key}: {text}")
        distinct = "distinct " if node.is_distinct else ""
        return f"{distinct}!{node.kind}({', '.join(operands)})\n"

    def function_text(self, function):
        """``str(function)`` (``Function.__str__`` does not cache)."""
        buf = [self.prototype(function)]
        blocks = function.blocks
        if blocks:
            buf.append("{\n")
            describers = _DESCRIBE
            ref = self.ref
            append = buf.append
            for block in blocks:
                if type(block) is not _val.Block:
                    block.descr(buf)
                    continue
                append(f"{block._format_name()}:\n")
                for instr in block.instructions:
                    # str(instr): "<ref> = " unless void, then descr, right-stripped
                    describe = describers.get(type(instr))
                    if describe is None:
                        text = str(instr)
                    else:
                        text = getattr(instr, _CACHED_STR, None)
                        if text is None:
                            text = describe(self, instr)
                            if not isinstance(instr.type, _VOID):
                                text = f"{ref(instr)} = {text}"
                            text = text.rstrip()
                    append(f"  {text}\n")
            append("}\n")
        return "".join(buf)

    def prototype(self, fn):
        """``Function.descr_prototype``: the ``define``/``declare`` line."""
        ty, ref = self.ty, self.ref
        args = []
        for arg in fn.args:
            if type(arg) is _val.Argument:
                attrs = arg.attributes._to_list(arg.type)
                if attrs:
                    args.append(f"{ty(arg.type)} {' '.join(attrs)} {ref(arg)}")
                else:
                    args.append(f"{ty(arg.type)} {ref(arg)}")
            else:
                args.append(str(arg))
        args = ", ".join(args)
        ftype = fn.ftype
        attrs = (" " + " ".join(fn.attributes._to_list(ftype.return_type))
                 if fn.attributes else "")
        if any(fn.args):
            vararg = ", ..." if ftype.var_arg else ""
        else:
            vararg = "..." if ftype.var_arg else ""
        state = "define" if fn.blocks else "declare"
        prefix = " ".join(str(x) for x in [state, fn.linkage, fn.calling_convention,
                                            fn.return_value] if x)
        metadata = fn._stringify_metadata()
        metadata = f" {metadata}" if metadata else ""
        section = f' section "{fn.section}"' if fn.section else ""
        return f"{prefix} {ref(fn)}({args}{vararg}){attrs}{section}{metadata}\n"

    # ---- one method per instruction class: llvmlite's ``descr`` formats ------------------
    def generic(self, instr):
        opname = instr.opname
        if instr.flags:
            opname = " ".join([opname] + instr.flags)
        ref = self.ref
        operands = ", ".join([ref(op) for op in instr.operands])
        return f"{opname} {self.ty(instr.type)} {operands}{self.metadata(instr)}\n"

    def terminator(self, instr):
        typed = self.typed
        operands = ", ".join([typed(op) for op in instr.operands])
        return f"{instr.opname} {operands}{self.metadata(instr)}"

    def ret(self, instr):
        value = instr.return_value
        if value is not None:
            return f"{instr.opname} {self.typed(value)}{self.metadata(instr)}\n"
        return f"{instr.opname}{self.metadata(instr)}\n"

    def select(self, instr):
        typed = self.typed
        return (f"select {' '.join(instr.flags)} {typed(instr.cond)}, {typed(instr.lhs)}, "
                f"{typed(instr.rhs)} {self.metadata(instr)}\n")

    def compare(self, instr):
        lhs, rhs = instr.operands[0], instr.operands[1]
        flags = "".join([" " + flag for flag in instr.flags])
        return (f"{instr.opname}{flags} {instr.op} {self.ty(lhs.type)} {self.ref(lhs)}, "
                f"{self.ref(rhs)} {self.metadata(instr)}\n")

    def cast(self, instr):
        return (f"{instr.opname} {self.typed(instr.operands[0])} to {self.ty(instr.type)} "
                f"{self.metadata(instr)}\n")

    def load(self, instr):
        [value] = instr.operands
        align = ", align %d" % (instr.align,) if instr.align is not None else ""
        return f"load {self.ty(instr.type)}, {self.typed(value)}{align}{self.metadata(instr)}\n"

    def store(self, instr):
        value, pointer = instr.operands
        align = ", align %d" % (instr.align,) if instr.align is not None else ""
        return (f"store {self.typed(value)}, {self.typed(pointer)}{align}"
                f"{self.metadata(instr)}\n")

    def alloca(self, instr):
        text = f"{instr.opname} {self.ty(instr.allocated_type)}"
        if instr.operands:
            [count] = instr.operands
            text += f", {self.typed(count)}"
        if instr.align is not None:
            text += ", align {0}".format(instr.align)
        if instr.metadata:
            text += self.metadata(instr)
        return text

    def gep(self, instr):
        typed = self.typed
        indices = ", ".join([typed(index) for index in instr.indices])
        op = "getelementptr inbounds" if instr.inbounds else "getelementptr"
        return (f"{op} {self.ty(instr.source_etype)}, {typed(instr.pointer)}, {indices} "
                f"{self.metadata(instr)}\n")

    def extract_value(self, instr):
        indices = ", ".join([str(index) for index in instr.indices])
        return (f"extractvalue {self.typed(instr.aggregate)}, {indices} "
                f"{self.metadata(instr)}\n")

    def insert_value(self, instr):
        indices = ", ".join([str(index) for index in instr.indices])
        return (f"insertvalue {self.typed(instr.aggregate)}, {self.typed(instr.value)}, "
                f"{indices} {self.metadata(instr)}\n")

    def phi(self, instr):
        ref = self.ref
        incomings = ", ".join([f"[{ref(value)}, {ref(block)}]"
                               for value, block in instr.incomings])
        return (f"phi {' '.join(instr.flags)} {self.ty(instr.type)} {incomings} "
                f"{self.metadata(instr)}\n")

    def switch(self, instr):
        ref, typed = self.ref, self.typed
        cases = " ".join([f"{typed(value)}, label {ref(block)}" for value, block in instr.cases])
        return (f"switch {typed(instr.value)}, label {ref(instr.default)} [{cases}]  "
                f"{self.metadata(instr)}\n")

    def unreachable(self, instr):
        return f"{instr.opname}\n"

    def call(self, instr):
        """``CallInstr._descr(buf, add_metadata=True)``."""
        ty, ref = self.ty, self.ref
        arg_attributes = instr.arg_attributes
        args = []
        for i, arg in enumerate(instr.args):
            if i in arg_attributes:
                attrs = " ".join(arg_attributes[i]._to_list(arg.type)) + " "
            else:
                attrs = ""
            args.append(f"{ty(arg.type)} {attrs}{ref(arg)}")
        callee = instr.callee
        fnty = callee.function_type
        callee_ref = f"{ty(fnty if fnty.var_arg else fnty.return_type)} {ref(callee)}"
        if instr.cconv:
            callee_ref = f"{instr.cconv} {callee_ref}"
        tail = f"{instr.tail} " if instr.tail else ""
        attributes = instr.attributes
        fn_attrs = (" " + " ".join(attributes._to_list(fnty.return_type))) if attributes else ""
        fastmath = instr.fastmath
        fm_attrs = (" " + " ".join(fastmath._to_list(fnty.return_type))) if fastmath else ""
        return (f"{tail}{instr.opname}{fm_attrs} {callee_ref}({', '.join(args)}){fn_attrs}"
                f"{self.metadata(instr)}\n")


def _reference(value):
    """``value.get_reference()``.  llvmlite computes a reference the first time through an
    exception (its cache lookup failing), about 1 us; the two commonest kinds are written here
    directly: named values of the classes in ``_NAMED`` (``%"name"``, ``@"name"``) and integer
    constants.  A reference llvmlite already cached is used as it is."""
    text = getattr(value, _CACHED_REF, None)
    if text is not None:
        return text
    cls = type(value)
    prefix = _NAMED.get(cls)
    if prefix is not None:
        name = value._name
        if "\\" not in name and '"' not in name:
            return f'{prefix}"{name}"'
    elif cls is _val.Constant:
        constant = value.constant
        if type(constant) is int and type(value.type) is ir.IntType:
            return str(constant)  # IntType.format_constant (bools print as true/false)
    if cls.get_reference is _CACHING_GET_REFERENCE:
        return value._get_reference()  # what the cache would be filled with
    return value.get_reference()


def _descr(value):
    buf = []
    value.descr(buf)
    return buf


def _type_text(typ):
    """``str(typ)``, without llvmlite's first-call exception (see ``_reference``)."""
    text = getattr(typ, _CACHED_STR, None)
    if text is not None:
        return text
    if type(typ).__str__ is _CACHING_STR:
        return typ._to_string()  # what the cache would be filled with
    return str(typ)


def _named_classes():
    """llvmlite's named-value classes whose reference is ``NamedValue``'s own: their name
    prefix followed by the quoted name (``\\`` and ``"`` escaped), cached by
    ``_StringReferenceCaching`` -> the prefix."""
    import inspect

    named = {}
    for module in (_val, _ins):
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if (issubclass(cls, _val.NamedValue)
                    and cls._get_reference is _val.NamedValue._get_reference
                    and cls.get_reference is _val.NamedValue.get_reference
                    and cls.name is _val.NamedValue.name
                    and cls.name_prefix in ("%", "@")):
                named[cls] = cls.name_prefix
    return named


_NAMED = _named_classes()

#: instruction class (exactly) -> its printer; any other class is printed by llvmlite
_DESCRIBE = {
    _ins.Instruction: _Printer.generic,
    _ins.Branch: _Printer.terminator,
    _ins.ConditionalBranch: _Printer.terminator,
    _ins.Ret: _Printer.ret,
    _ins.SelectInstr: _Printer.select,
    _ins.ICMPInstr: _Printer.compare,
    _ins.FCMPInstr: _Printer.compare,
    _ins.CastInstr: _Printer.cast,
    _ins.LoadInstr: _Printer.load,
    _ins.StoreInstr: _Printer.store,
    _ins.AllocaInstr: _Printer.alloca,
    _ins.GEPInstr: _Printer.gep,
    _ins.ExtractValue: _Printer.extract_value,
    _ins.InsertValue: _Printer.insert_value,
    _ins.PhiInstr: _Printer.phi,
    _ins.SwitchInstr: _Printer.switch,
    _ins.Unreachable: _Printer.unreachable,
    _ins.CallInstr: _Printer.call,
}
