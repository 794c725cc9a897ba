"""Which variables Numba's ``Lower`` keeps in registers rather than stack slots.

``singly_assigned_variables(blocks)`` answers what ``Lower._find_singly_assigned_variable``
computes -- the variables assigned exactly once, in one block, and never read before their
assignment in any block (``compute_use_defs``), and not forced onto the stack
(``must_use_alloca``) -- in one sweep over the statements.  Numba builds the per-block use and
definition sets through ``Inst.list_vars``, a recursive walk creating a list per node and an
``isinstance`` test per attribute of every statement (a third of the lowering set-up of a
small kernel).  The variables a statement names are the same here: the walk below visits what
``Inst._rec_list_vars`` visits (a statement's ``__dict__``, an expression's ``_kws``, lists,
tuples and dict values) and calls ``list_vars`` on any node that defines its own.

``None`` means "ask Numba": a statement of a class registered with
``analysis.ir_extension_usedefs`` or ``ir_extension_use_alloca`` (parfors), or a right-hand side
Numba's analysis does not know.
"""

from numba.core import analysis, ir

_Var = ir.Var
_Inst = ir.Inst
_Expr = ir.Expr
_Assign = ir.Assign
_Del = ir.Del
_STMT_LIST_VARS = ir.Stmt.list_vars
_EXPR_LIST_VARS = ir.Expr.list_vars
#: right-hand sides naming no variable (``compute_use_defs``: ``rhs_set = ()``)
_NO_VARS = (ir.Arg, ir.Const, ir.Global, ir.FreeVar)
#: their exact classes (tested first)
_CONSTANTS = frozenset(_NO_VARS)
#: attribute values that are certainly neither variables, IR nodes nor containers
_LEAVES = frozenset((str, int, float, bool, complex, type(None), ir.Loc, type(ir.UNDEFINED),
                     type(len), slice))


def _add_names(val, out):
    """Add to ``out`` the names of the variables ``Inst._rec_list_vars(val)`` lists."""
    kind = type(val)
    if kind is _Var:
        out.add(val.name)
    elif kind in _LEAVES:
        return
    elif kind is list or kind is tuple:
        for item in val:
            _add_names(item, out)
    elif kind is _Expr:
        for item in val._kws.values():
            _add_names(item, out)
    elif isinstance(val, _Var):
        out.add(val.name)
    elif isinstance(val, _Inst):
        _add_node_names(val, out)
    elif isinstance(val, (list, tuple)):
        for item in val:
            _add_names(item, out)
    elif isinstance(val, dict):
        for item in val.values():
            _add_names(item, out)


def _add_node_names(node, out):
    """Add the names of ``node.list_vars()``."""
    list_vars = type(node).list_vars
    if list_vars is _EXPR_LIST_VARS:
        for item in node._kws.values():
            _add_names(item, out)
    elif list_vars is _STMT_LIST_VARS:
        for item in node.__dict__.values():
            _add_names(item, out)
    else:
        out.update(var.name for var in node.list_vars())


def singly_assigned_variables(blocks):
    """The set ``Lower._find_singly_assigned_variable`` computes for ``blocks`` (a non-generator
    function), or ``None`` where only Numba's analysis can answer."""
    extended = analysis.ir_extension_usedefs.keys() | analysis.ir_extension_use_alloca.keys()
    defining_block = {}    # variable -> the block defining it (compute_use_defs' defmap)
    multiply_defined = set()
    read_first = set()     # variables in some block's use map
    assignments = {}       # (block, variable) -> assignments to the variable in the block
    for offset, block in blocks.items():
        defined = set()
        for stmt in block.body:
            kind = type(stmt)
            if kind is _Del:
                continue  # names its variable as a string: lists no variable
            if kind in extended:
                return None
            if isinstance(stmt, _Assign):
                if kind is not _Assign or len(stmt.__dict__) != 3:
                    return None  # a subclass, or extra attributes: may list other variables
                target = stmt.target.name
                value = stmt.value
                rhs = set()
                if type(value) is _Expr:
                    for item in value._kws.values():
                        if type(item) is _Var:
                            rhs.add(item.name)
                        elif type(item) not in _LEAVES:
                            _add_names(item, rhs)
                elif type(value) in _CONSTANTS:
                    pass
                elif isinstance(value, _Inst):
                    _add_node_names(value, rhs)
                elif isinstance(value, _Var):
                    rhs.add(value.name)
                elif not isinstance(value, _NO_VARS):
                    return None  # Numba's analysis fails on it: let it say so
                if target not in rhs:
                    defined.add(target)
                # the statement's variables are its target and its right-hand side's
                if target not in defined:
                    read_first.add(target)
                for name in rhs:
                    if name not in defined:
                        read_first.add(name)
                key = (offset, target)
                assignments[key] = assignments.get(key, 0) + 1
                continue
            names = set()
            _add_node_names(stmt, names)
            for name in names:
                if name not in defined:
                    read_first.add(name)
        for name in defined:
            if name in defining_block:
                multiply_defined.add(name)
            else:
                defining_block[name] = offset
    return {name for name, offset in defining_block.items()
            if name not in multiply_defined and name not in read_first
            and assignments[(offset, name)] == 1}
