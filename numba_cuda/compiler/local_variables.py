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

``singly_assigned_variables(blocks, across_blocks=True)`` adds the variables assigned once, in a
block that dominates every other block reading or deleting them and is lowered before each of
them: a kernel's arguments, ``i = cuda.grid(1)`` read after an ``if`` ...  Numba gives each of
those a stack slot, a store where it is assigned, a load wherever it is read and a zero-fill
where it is deleted (whole array structures, for an array), which libNVVM's optimizer then
removes again; used directly, the value makes a smaller module to print and to optimize (21%
less NVVM IR over the test corpus, ~6% less libNVVM time) and the same PTX.  ``CUDALower`` asks
for them when it compiles without debug information (which describes variables by their
stack slots).

``None`` means "ask Numba": a statement of a class registered with
``analysis.ir_extension_usedefs`` or ``ir_extension_use_alloca`` (parfors), or a right-hand side
Numba's analysis does not know.
"""

from numba.core import analysis, ir

#: False: ``CUDALower`` asks for Numba's set alone (``across_blocks=False``), as before.
ACROSS_BLOCKS = True

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


def singly_assigned_variables(blocks, across_blocks=False):
    """The set ``Lower._find_singly_assigned_variable`` computes for ``blocks`` (a non-generator
    function), or ``None`` where only Numba's analysis can answer.

    With ``across_blocks``, also the variables read in other blocks than the one assigning
    them (see ``_dominating_definitions``)."""
    extended = analysis.ir_extension_usedefs.keys() | analysis.ir_extension_use_alloca.keys()
    defining_block = {}    # variable -> the block defining it (compute_use_defs' defmap)
    multiply_defined = set()
    readers = {}           # variable -> the blocks reading it before assigning it (use maps)
    deleters = {}          # variable -> the blocks deleting it before assigning it
    assignments = {}       # (block, variable) -> assignments to the variable in the block
    for offset, block in blocks.items():
        defined = set()
        for stmt in block.body:
            kind = type(stmt)
            if kind is _Del:
                # names its variable as a string: lists no variable (only the analysis across
                # blocks looks at it)
                if across_blocks and stmt.value not in defined:
                    deleters.setdefault(stmt.value, set()).add(offset)
                continue
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
                    readers.setdefault(target, set()).add(offset)
                for name in rhs:
                    if name not in defined:
                        readers.setdefault(name, set()).add(offset)
                key = (offset, target)
                assignments[key] = assignments.get(key, 0) + 1
                continue
            names = set()
            _add_node_names(stmt, names)
            for name in names:
                if name not in defined:
                    readers.setdefault(name, set()).add(offset)
        for name in defined:
            if name in defining_block:
                multiply_defined.add(name)
            else:
                defining_block[name] = offset
    singly = set()
    across = {}            # variable -> its block, where other blocks read or delete it
    for name, offset in defining_block.items():
        if name in multiply_defined or assignments[(offset, name)] != 1:
            continue
        used = readers.get(name)
        if not used:
            singly.add(name)
        elif across_blocks and offset not in used:
            across[name] = offset
    if across:
        singly |= _dominating_definitions(blocks, across, readers, deleters)
    return singly


def _dominating_definitions(blocks, candidates, readers, deleters):
    """Of ``candidates`` (variable -> the one block assigning it, once, before any read in that
    block), those whose block dominates every block reading (``readers``) or deleting
    (``deleters``) them and comes before each in label order, the order ``Lower`` lowers the
    blocks in: the value assigned is then defined, in the LLVM function, before every use and
    on every path to it, and needs no stack slot.  A block reached from no other (after
    ``min(blocks)``, the entry) is dominated by none."""
    dominators = _dominators(blocks)
    if dominators is None:
        return set()
    out = set()
    for name, offset in candidates.items():
        for users in (readers.get(name, ()), deleters.get(name, ())):
            for user in users:
                if user <= offset or offset not in dominators.get(user, ()):
                    break
            else:
                continue
            break
        else:
            out.add(name)
    return out


def _dominators(blocks):
    """``{label: frozenset of the labels of the blocks dominating it}`` for the blocks reachable
    from the entry block (``min(blocks)``), or ``None`` where a block does not end with a
    terminator."""
    successors = {}
    for label, block in blocks.items():
        body = block.body
        if not body or not isinstance(body[-1], ir.Terminator):
            return None
        successors[label] = body[-1].get_targets()
    entry = min(blocks)
    postorder, seen, stack = [], {entry}, [(entry, iter(successors[entry]))]
    while stack:
        label, pending = stack[-1]
        for nxt in pending:
            if nxt not in seen and nxt in successors:
                seen.add(nxt)
                stack.append((nxt, iter(successors[nxt])))
                break
        else:
            stack.pop()
            postorder.append(label)
    order = postorder[::-1]
    predecessors = {label: [] for label in order}
    for label in order:
        for nxt in successors[label]:
            if nxt in predecessors:
                predecessors[nxt].append(label)
    dominators = {entry: frozenset((entry,))}
    changed = True
    while changed:  # a predecessor not yet visited stands for every block (intersection's unit)
        changed = False
        for label in order[1:]:
            known = [dominators[p] for p in predecessors[label] if p in dominators]
            new = frozenset.intersection(*known) | {label}
            if dominators.get(label) != new:
                dominators[label] = new
                changed = True
    return dominators
