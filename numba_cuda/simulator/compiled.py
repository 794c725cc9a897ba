"""The compiled simulator mode (the default): kernels whose threads never meet, compiled by Numba's CPU target.

A kernel qualifies when its threads cannot observe each other's progress except at top-level
barriers: no warp collective, no cooperative group, no ``print``, no ``while`` loop that could
wait for another thread (a condition, or a ``break``/``return`` condition, depending on memory),
``cuda.syncthreads()`` only as a statement of the kernel's own body (it is then split there into
phases, see :func:`_split_phases`), shared arrays only of constant shape assigned there, and only
device functions that qualify too (without barriers or shared memory).  Such a kernel's result is the result of running its
threads one after another in the Python simulator's order (blocks ``z, y, x``, then threads
``z, y, x``, ``x`` fastest), which is what one compiled loop over the grid does:

* the kernel is rewritten (:class:`_Rewriter`): ``cuda.threadIdx.x`` & co. become parameters,
  ``cuda.grid(n)``/``cuda.gridsize(n)``/``cuda.laneid``/``cuda.warpsize`` arithmetic on them,
  ``cuda.atomic.*`` plain read-modify-writes returning the old value (:mod:`.compiled_atomics`),
  ``cuda.local.array`` a zero-filled ``np.zeros`` (as the simulator zero-fills it),
  ``cuda.const.array_like`` the array itself, ``threadfence*``/``nanosleep`` nothing; device
  functions are rewritten the same way, with the thread indices as leading parameters;
* the rewritten kernel and a loop over the grid calling it are compiled by ``numba.njit``
  (``boundscheck=True``, ``error_model="numpy"``: integer division by zero gives 0, as the CUDA
  target's model), once per argument-type signature; the compile time is kept apart
  (:attr:`CompiledKernel.compile_seconds`);
* anything that goes wrong at run time (an index out of bounds, an exception the kernel raises)
  restores the arrays the kernel may have written from copies taken before the launch and runs
  the launch again in the Python simulator, which raises its usual report (``tid=[...]
  ctaid=[...]: ...``) and leaves memory exactly as it leaves it.  Only arrays the kernel may write
  are copied: an array argument whose every use is an element read with one index per dimension
  is not.

Kernels that do not qualify, and launches whose arguments Numba cannot type or whose kernel Numba
cannot compile, run in the Python simulator; :attr:`CompiledKernel.reason` says why (also logged
on the ``numba_cuda.simulator.compiled`` logger at DEBUG level).
"""

import ast
import copy
import logging
import math
import sys
import time

import numpy as np

from . import collectives as coll
from . import kernelapi as kapi
from . import kernelmemory as mem
from .transform import (_UNRESOLVED, TransformError, _fresh_prefix, _names_in, _parse,
                        _refuse_allocations, _Resolver, canonical, is_numpy_int_class)

log = logging.getLogger("numba_cuda.simulator.compiled")

#: the thread-index parameters, in the order the rewritten functions take them
INDEX_FIELDS = ("tx", "ty", "tz", "bx", "by", "bz", "bdx", "bdy", "bdz", "gdx", "gdy", "gdz")


class NotCompilable(Exception):
    """The kernel (or a device function it calls) cannot run compiled; the message says why."""


def _atomic_helpers():
    from . import compiled_atomics

    return {
        id(kapi.atomic.add): compiled_atomics.add, id(kapi.atomic.sub): compiled_atomics.sub,
        id(kapi.atomic.max): compiled_atomics.max_, id(kapi.atomic.min): compiled_atomics.min_,
        id(kapi.atomic.nanmax): compiled_atomics.nanmax, id(kapi.atomic.nanmin): compiled_atomics.nanmin,
        id(kapi.atomic.and_): compiled_atomics.and_, id(kapi.atomic.or_): compiled_atomics.or_,
        id(kapi.atomic.xor): compiled_atomics.xor, id(kapi.atomic.exch): compiled_atomics.exch,
        id(kapi.atomic.inc): compiled_atomics.inc, id(kapi.atomic.dec): compiled_atomics.dec,
        id(kapi.atomic.cas): compiled_atomics.cas,
        id(kapi.atomic.compare_and_swap): compiled_atomics.compare_and_swap,
    }


_NO_OPS = frozenset(id(f) for f in (kapi.threadfence, kapi.threadfence_block,
                                    kapi.threadfence_system, kapi.nanosleep))
_DIMS = {id(kapi.threadIdx): "t", id(kapi.blockIdx): "b", id(kapi.blockDim): "bd",
         id(kapi.gridDim): "gd"}
#: attributes of an array that read no element
_ARRAY_META = frozenset({"shape", "size", "ndim", "strides", "dtype", "itemsize", "nbytes"})
#: builtins that read no memory (in the condition of a while loop)
_PURE_CALLS = frozenset({"len", "min", "max", "abs", "int", "float", "bool", "range"})


def _is_cuda_api(obj):
    """Whether ``obj`` belongs to the simulator's kernel language (something to translate)."""
    if isinstance(obj, (kapi.Dim3Value, kapi.LaneIdValue)):
        return True
    name = getattr(obj, "__name__", None) if type(obj).__name__ == "module" else None
    if name is not None:
        return name.startswith(("numba.cuda", "numba_cuda"))
    module = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "")
    return isinstance(module, str) and module.startswith("numba_cuda")


def _name(id_, ctx=None):
    return ast.Name(id=id_, ctx=ctx or ast.Load())


def _reads_memory(expr, pure=frozenset()):
    """Whether evaluating ``expr`` may read memory another thread writes (conservative); the
    functions named in ``pure`` read none."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Subscript):
            base = node.value
            if not (isinstance(base, ast.Attribute) and base.attr in _ARRAY_META):
                return True
        elif isinstance(node, ast.Attribute) and node.attr not in _ARRAY_META:
            return True
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and
                    (node.func.id in _PURE_CALLS or node.func.id in pure)):
                return True
    return False


def _own_nodes(stmts):
    """The nodes of ``stmts``, not descending into nested functions or classes."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def _tainted_names(stmts, pure):
    """The names that ``stmts`` assign from memory (directly, or through other such names)."""
    assigns = []
    for node in _own_nodes(stmts):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            if names:
                assigns.append((names, node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            names = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            assigns.append((names, node.iter))
        elif isinstance(node, ast.NamedExpr):
            assigns.append(({node.target.id}, node.value))
    tainted = set()
    changed = True
    while changed:
        changed = False
        for names, value in assigns:
            if names <= tainted:
                continue
            loads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
            if _reads_memory(value, pure) or loads & tainted:
                tainted |= names
                changed = True
    return tainted


def _depends_on_memory(expr, tainted, pure):
    return _reads_memory(expr, pure) or any(isinstance(n, ast.Name) and n.id in tainted
                                      for n in ast.walk(expr))


def _may_wait(loop, pure=frozenset()):
    """Whether a ``while`` loop may wait for another thread: its condition, or a condition deciding
    a ``break``/``return`` in it, reads memory or a variable the loop sets from memory."""
    tainted = _tainted_names(loop.body, pure)
    if _depends_on_memory(loop.test, tainted, pure):
        return True
    for node in _own_nodes(loop.body):
        if isinstance(node, (ast.If, ast.While)) and _depends_on_memory(node.test, tainted, pure):
            if any(isinstance(n, (ast.Break, ast.Return)) for n in _own_nodes(node.body + node.orelse)):
                return True
    return False


class _Rewriter(ast.NodeTransformer):
    """The kernel (or device function) as a plain function Numba's CPU target compiles."""

    def __init__(self, resolver, prefix, as_device, qualname):
        self.r = resolver
        self.p = prefix
        self.as_device = as_device
        self.qualname = qualname
        self.bindings = {}
        self._bound = {}
        self._atomics = None

    def refuse(self, why):
        raise NotCompilable(f"{self.qualname}: {why}")

    def bind(self, obj):
        name = self._bound.get(id(obj))
        if name is None:
            name = self._bound[id(obj)] = f"{self.p}b{len(self._bound)}"
            self.bindings[name] = obj
        return _name(name)

    def index(self, field):
        return _name(self.p + field)

    def resolve(self, node):
        obj = self.r.resolve(node)
        return obj if obj is _UNRESOLVED else canonical(obj)

    def lane(self):
        linear = ast.BinOp(left=self.index("tx"), op=ast.Add(), right=ast.BinOp(
            left=self.index("bdx"), op=ast.Mult(), right=ast.BinOp(
                left=self.index("ty"), op=ast.Add(), right=ast.BinOp(
                    left=self.index("bdy"), op=ast.Mult(), right=self.index("tz")))))
        return ast.BinOp(left=linear, op=ast.BitAnd(), right=ast.Constant(value=coll.WARP_SIZE - 1))

    def _value(self, obj, node, spelled):
        """What a resolved name or attribute chain becomes."""
        if obj is kapi.laneid:
            return self.lane()
        if obj is kapi.warpsize:
            return ast.Constant(value=kapi.warpsize)
        if self.as_device(obj) is not None:
            self.refuse(f"the device function {spelled} is used as a value (only calls compile)")
        if _is_cuda_api(obj):
            self.refuse(f"{spelled} is not supported in the compiled mode")
        return node

    # -- names and attributes
    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load):
            return node
        obj = self.resolve(node)
        if obj is _UNRESOLVED:
            return node
        if obj is print:
            self.refuse("print() runs in thread order only in the Python simulator")
        return self._value(obj, node, node.id)

    def visit_Attribute(self, node):
        if not isinstance(node.ctx, ast.Load):
            return self.generic_visit(node)
        if node.attr in ("x", "y", "z"):
            prefix = _DIMS.get(id(self.resolve(node.value)))
            if prefix is not None:
                return self.index(prefix + node.attr)
        obj = self.resolve(node)
        if obj is _UNRESOLVED:
            return self.generic_visit(node)
        base = self.resolve(node.value)
        if not (_is_cuda_api(base) or _is_cuda_api(obj)):
            return node  # np.float32, math.pi: Numba resolves module attributes itself
        if _is_cuda_api(obj) and obj is not kapi.laneid:
            return self._value(obj, node, ast.unparse(node))
        if obj is kapi.laneid or obj is kapi.warpsize:
            return self._value(obj, node, ast.unparse(node))
        return self.bind(obj)  # cuda.float32 & co.: the object itself

    # -- calls
    def visit_Call(self, node):
        obj = self.resolve(node.func)
        if obj is _UNRESOLVED:
            return self.generic_visit(node)
        spelled = ast.unparse(node.func)
        if obj is kapi.grid or obj is kapi.gridsize:
            return self._grid(obj, node, spelled)
        if id(obj) in _NO_OPS:
            self._visit_args(node)
            return ast.Constant(value=None)
        if self._atomics is None:
            self._atomics = _atomic_helpers()
        helper = self._atomics.get(id(obj))
        if helper is not None:
            self._visit_args(node)
            return ast.Call(func=self.bind(helper), args=node.args, keywords=node.keywords)
        if obj is mem.local_array:
            return self._local_array(node)
        if obj is mem.const_array_like:
            if len(node.args) != 1 or node.keywords:
                self.refuse(f"{spelled} takes one array")
            return self.visit(node.args[0])
        if obj is print:
            self.refuse("print() runs in thread order only in the Python simulator")
        if obj is round and len(node.args) > 1:
            self.refuse("round(x, ndigits): the GPU rounds the exact value, Numba's CPU code does not")
        conversion = self._conversion(obj, node)
        if conversion is not None:
            return conversion
        device = self.as_device(obj)
        if device is not None:
            fn = compile_device(device, self.as_device)
            self._visit_args(node)
            return ast.Call(func=self.bind(fn),
                            args=[self.index(f) for f in INDEX_FIELDS] + node.args,
                            keywords=node.keywords)
        if _is_cuda_api(obj):
            why = ("barriers, warp collectives, shared memory and cooperative groups need the "
                   "Python simulator's scheduler") if _meets(obj) else "not supported in the compiled mode"
            self.refuse(f"{spelled}(): {why}")
        return self.generic_visit(node)

    def _arith(self):
        from . import compiled_arith

        return compiled_arith

    def _conversion(self, obj, node):
        """``int(x)``, ``np.int32(x)``, ``numba.uint8(x)``: a float converts as ``cvt.rzi``."""
        if len(node.args) != 1 or node.keywords:
            return None
        rounding = {id(round): "round_", id(math.floor): "floor", id(math.ceil): "ceil",
                    id(math.trunc): "trunc"}.get(id(obj))
        if rounding is not None:
            self._visit_args(node)
            return ast.Call(func=self.bind(getattr(self._arith(), rounding)), args=node.args,
                            keywords=[])
        if obj is int:
            self._visit_args(node)
            return ast.Call(func=self.bind(self._arith().to_int), args=node.args, keywords=[])
        is_int_class = is_numpy_int_class(obj)
        if not is_int_class and type(obj).__module__.startswith("numba"):
            from numba.core import types

            is_int_class = isinstance(obj, types.Integer)
        if not is_int_class:
            return None
        self._visit_args(node)
        return ast.Call(func=self.bind(self._arith().converted), args=[self.bind(obj)] + node.args,
                        keywords=[])

    # -- operators where the CPU's instruction is not PTX's
    _SHIFTS = {ast.LShift: "shl", ast.RShift: "shr"}

    def visit_BinOp(self, node):
        self.generic_visit(node)
        name = self._SHIFTS.get(type(node.op))
        if name is None or (isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant)):
            return node
        return ast.copy_location(ast.Call(func=self.bind(getattr(self._arith(), name)),
                                          args=[node.left, node.right], keywords=[]), node)

    @staticmethod
    def _simple(expr):
        """Whether ``expr`` may be evaluated twice (no call, no assignment expression, no slice)."""
        return not any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Slice, ast.Starred, ast.Lambda))
                       for n in ast.walk(expr))

    def visit_Compare(self, node):
        self.generic_visit(node)
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.Is, ast.IsNot)) and not (
                    isinstance(right, ast.Constant) and right.value is None):
                self.refuse("'is' between objects other than None (Numba's CPU code compares "
                            "them otherwise)")
        return node

    def _stored(self, target, value):
        """``value`` as stored into ``target`` (a float into an integer array: ``cvt.rzi``)."""
        return ast.Call(func=self.bind(self._arith().stored), args=[_name(target.value.id), value],
                        keywords=[])

    def _element_target(self, target):
        return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
            and self._simple(target.slice)

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        field = None  # rec.x = v, recs[i].x = v, rec["x"] = v: a record field
        if isinstance(target, ast.Attribute):
            field = target.attr
        elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                and isinstance(target.slice.value, str):
            field = target.slice.value
        if field is not None and self._simple(target.value):
            base = ast.fix_missing_locations(ast.copy_location(
                _load_copy(target.value), target.value))
            node.value = ast.Call(func=self.bind(self._arith().stored_field),
                                  args=[base, ast.Constant(value=field), node.value],
                                  keywords=[])
        elif target is not None and self._element_target(target):
            node.value = self._stored(target, node.value)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        target = node.target
        if isinstance(target, ast.Name):
            load = _name(target.id)
        elif self._element_target(target):
            load = ast.Subscript(value=_name(target.value.id), slice=target.slice, ctx=ast.Load())
        else:
            return node
        value = self.visit_BinOp(ast.BinOp(left=load, op=node.op, right=node.value))
        if isinstance(target, ast.Subscript):
            value = self._stored(target, value)
        store = ast.Assign(targets=[target], value=value)
        return ast.copy_location(store, node)

    def _visit_args(self, node):
        node.args = [self.visit(a) for a in node.args]
        for k in node.keywords:
            k.value = self.visit(k.value)

    def _grid(self, obj, node, spelled):
        if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], ast.Constant) \
                or node.args[0].value not in (1, 2, 3):
            self.refuse(f"{spelled}() needs a literal 1, 2 or 3")
        parts = []
        for axis in "xyz"[: node.args[0].value]:
            if obj is kapi.grid:
                parts.append(ast.BinOp(left=ast.BinOp(left=self.index("b" + axis), op=ast.Mult(),
                                                      right=self.index("bd" + axis)),
                                       op=ast.Add(), right=self.index("t" + axis)))
            else:
                parts.append(ast.BinOp(left=self.index("bd" + axis), op=ast.Mult(),
                                       right=self.index("gd" + axis)))
        return parts[0] if len(parts) == 1 else ast.Tuple(elts=parts, ctx=ast.Load())

    def _local_array(self, node):
        args = list(node.args)
        keywords = {k.arg: k.value for k in node.keywords}
        shape = args[0] if args else keywords.get("shape")
        dtype = args[1] if len(args) > 1 else keywords.get("dtype")
        if shape is None or dtype is None or set(keywords) - {"shape", "dtype", "alignment"}:
            self.refuse("cuda.local.array(shape, dtype) with other arguments")
        if len(args) > 2:
            keywords.setdefault("alignment", args[2])
        _check_alignment(keywords, self.r, self.qualname, "cuda.local.array")
        dt = self.resolve(dtype)
        if dt is _UNRESOLVED:
            self.refuse("cuda.local.array with a dtype that is not a global name")
        try:
            np_dtype = mem.as_dtype(dt)
        except Exception:  # noqa: BLE001 - the Python simulator reports it
            self.refuse(f"cuda.local.array with dtype {ast.unparse(dtype)}")
        kind = np_dtype.type if np_dtype.fields is None else np_dtype
        return ast.Call(func=self.bind(np.zeros), args=[self.visit(shape), self.bind(kind)],
                        keywords=[])

    # -- statements the compiled loop cannot give the simulator's semantics
    def visit_While(self, node):
        node = self.generic_visit(node)  # cuda.grid() & co. are arithmetic now
        from . import compiled_arith

        helpers = {id(v) for v in vars(compiled_arith).values()}
        pure = frozenset(n for n, obj in self.bindings.items() if id(obj) in helpers)
        if _may_wait(node, pure):
            self.refuse(f"the while loop at line {node.lineno + self.r_line_offset} may wait for "
                        f"another thread (its condition, or a break/return in it, depends on "
                        f"memory)")
        return node

    def visit_Global(self, node):
        self.refuse("global statements")

    visit_Nonlocal = visit_Global

    def visit_Yield(self, node):
        self.refuse("generators")

    visit_YieldFrom = visit_Await = visit_Yield

    r_line_offset = 0


def _load_copy(expr):
    """A copy of ``expr`` (a store target's base) that loads."""
    expr = copy.deepcopy(expr)
    for node in ast.walk(expr):
        if hasattr(node, "ctx"):
            node.ctx = ast.Load()
    return expr


def _meets(obj):
    return (obj in coll.REQUEST_BUILDERS or obj is mem.shared_array or obj is mem.shared_array_at
            or obj is kapi.this_grid or obj is kapi.lanemask_lt
            or getattr(obj, "__module__", "") == coll.__name__)


class _Rewritten:
    """A rewritten kernel: its phases (one function each; one phase when it has no barrier)."""

    def __init__(self, fns, fdef, params, shared, states):
        self.fns = fns          # the phase functions, in order
        self.fdef = fdef        # the rewritten function as one (for the written-array analysis)
        self.params = params    # the kernel's parameters
        self.shared = shared    # [(name, shape, numpy dtype)]: the block's shared arrays
        self.states = states    # states[k]: the variables phase k hands to phase k + 1


def _is_call_of(stmt, resolver, objs):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
        not stmt.value.args and not stmt.value.keywords and \
        canonical(resolver.resolve(stmt.value.func)) in objs


def _constant_shape(node, resolver):
    """The shape of a shared array as an int or tuple of ints (constants or global names)."""
    if isinstance(node, ast.Tuple):
        parts = [_constant_shape(e, resolver) for e in node.elts]
        return None if None in parts else tuple(parts)
    value = _constant_int(node, resolver)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 0:
        return int(value)
    if isinstance(value, tuple) and value and all(isinstance(v, int) and v > 0 for v in value):
        return value
    return None


_INT_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b if b else None,
            ast.LShift: lambda a, b: a << b if 0 <= b < 64 else None}


def _constant_int(node, resolver):
    """The value of an integer expression of constants and global names (None otherwise)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        left, right = _constant_int(node.left, resolver), _constant_int(node.right, resolver)
        if isinstance(left, int) and isinstance(right, int):
            return _INT_OPS[type(node.op)](left, right)
        return None
    value = resolver.resolve(node)
    return None if value is _UNRESOLVED else value


#: the alignment every array Numba's CPU target allocates has (at least)
_NRT_ALIGNMENT = 16


def _check_alignment(keywords, resolver, qualname, what):
    """Refuse ``alignment=`` beyond what Numba's allocations give (or not a constant)."""
    node = keywords.get("alignment")
    if node is None:
        return
    value = _constant_int(node, resolver)
    if not (isinstance(value, int) and not isinstance(value, bool) and 0 < value <= _NRT_ALIGNMENT
            and not value & (value - 1)):
        raise NotCompilable(f"{qualname}: {what} with alignment={ast.unparse(node)} (compiled "
                            f"arrays are aligned to {_NRT_ALIGNMENT} bytes)")


def _split_phases(fdef, resolver, qualname):
    """The body split at top-level ``cuda.syncthreads()``; the top-level shared arrays taken out.
    Returns ``(phases, shared)``; one phase and no shared array when the kernel has neither."""
    phases, shared, current = [], [], []
    for stmt in fdef.body:
        if _is_call_of(stmt, resolver, (kapi.syncthreads,)):
            phases.append(current)
            current = []
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call) and \
                canonical(resolver.resolve(stmt.value.func)) is mem.shared_array:
            call = stmt.value
            keywords = {k.arg: k.value for k in call.keywords}
            shape = call.args[0] if call.args else keywords.get("shape")
            dtype = call.args[1] if len(call.args) > 1 else keywords.get("dtype")
            if len(call.args) > 2:
                keywords.setdefault("alignment", call.args[2])
            _check_alignment(keywords, resolver, qualname, "cuda.shared.array")
            shape = None if shape is None else _constant_shape(shape, resolver)
            dt = _UNRESOLVED if dtype is None else resolver.resolve(dtype)
            if shape is None or dt is _UNRESOLVED or set(keywords) - {"shape", "dtype", "alignment"}:
                raise NotCompilable(f"{qualname}: a shared array whose shape is not a constant "
                                    f"(dynamic shared memory) or whose dtype is not a global name")
            try:
                np_dtype = mem.as_dtype(canonical(dt))
            except Exception:  # noqa: BLE001 - the Python simulator reports it
                raise NotCompilable(f"{qualname}: a shared array of dtype {ast.unparse(dtype)}") from None
            shared.append((stmt.targets[0].id, shape, np_dtype))
            continue
        current.append(stmt)
    phases.append(current)
    if len(phases) > 1:
        for phase in phases[:-1]:
            if any(isinstance(n, ast.Return) for n in _own_nodes(phase)):
                raise NotCompilable(f"{qualname}: a return before a barrier (the thread would "
                                    f"leave the block's later phases)")
    names = [n for n, _, _ in shared]
    if len(set(names)) != len(names):
        raise NotCompilable(f"{qualname}: a shared array name assigned twice")
    for node in ast.walk(ast.Module(body=[s for p in phases for s in p], type_ignores=[])):
        if isinstance(node, ast.Name) and node.id in names and not isinstance(node.ctx, ast.Load):
            raise NotCompilable(f"{qualname}: the shared array name {node.id} is assigned again")
    return phases, shared


def _stored_names(stmts):
    out = set()
    for node in ast.walk(ast.Module(body=list(stmts), type_ignores=[])):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
    return out


def _loaded_names(stmts):
    return {node.id for node in ast.walk(ast.Module(body=list(stmts), type_ignores=[]))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def _rewrite(pyfunc, as_device, device):
    """The source-level rewrite of ``pyfunc`` (:class:`_Rewritten`).  A kernel (not a device
    function) may have top-level barriers and shared arrays: it becomes one function per phase."""
    try:
        _, fdef = _parse(pyfunc)
    except TransformError as exc:
        raise NotCompilable(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - e.g. try statements: the Python path refuses them
        raise NotCompilable(f"{pyfunc.__qualname__}: {type(exc).__name__}") from None
    code = pyfunc.__code__
    qualname = pyfunc.__qualname__
    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise NotCompilable(f"{qualname}: *args, **kwargs or keyword-only parameters")
    resolver = _Resolver(pyfunc, fdef)
    from ..common.unsupported import nrt_enabled

    if not nrt_enabled():
        # Numba's CPU target allocates freely: without the device NRT the Python path refuses
        # NumPy array constructors with the compiler's error, so such kernels stay there
        from numba.core.errors import TypingError

        try:
            _refuse_allocations(pyfunc, fdef, resolver)
        except TypingError:
            raise NotCompilable(f"{qualname}: creates arrays, which needs the device NRT "
                                "(NUMBA_CUDA_ENABLE_NRT=1)") from None
    prefix = _fresh_prefix(_names_in(fdef, code) | {"np"})
    rewriter = _Rewriter(resolver, prefix, as_device, qualname)
    rewriter.r_line_offset = code.co_firstlineno - 1
    if device:
        phases, shared = [fdef.body], []
    else:
        phases, shared = _split_phases(fdef, resolver, qualname)
    phases = [[rewriter.visit(stmt) for stmt in phase] for phase in phases]
    params = [a.arg for a in args.posonlyargs + args.args]
    fixed = set(params) | {n for n, _, _ in shared}
    states = []
    for k in range(len(phases) - 1):
        before = _stored_names(s for p in phases[: k + 1] for s in p)
        after = _loaded_names(s for p in phases[k + 1:] for s in p)
        states.append(sorted((before & after) - fixed))
    index_args = [ast.arg(arg=prefix + f) for f in INDEX_FIELDS]
    shared_args = [ast.arg(arg=n) for n, _, _ in shared]
    fdefs = []
    for k, body in enumerate(phases):
        phase = ast.FunctionDef(
            name=f"{prefix}{pyfunc.__name__}_{k}", args=copy.deepcopy(args),
            body=list(body), decorator_list=[], returns=None,
            **({"type_params": []} if sys.version_info >= (3, 12) else {}))
        ast.copy_location(phase, fdef)
        extra = index_args + shared_args
        if phase.args.posonlyargs:
            phase.args.posonlyargs[:0] = extra
        else:
            phase.args.args[:0] = extra
        if k > 0:  # the variables the previous phase handed over
            phase.args.args.append(ast.arg(arg=prefix + "state"))
            targets = [_name(prefix + "d", ast.Store())] + [_name(n, ast.Store()) for n in states[k - 1]]
            phase.body.insert(0, ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())],
                                            value=_name(prefix + "state")))
        if k < len(phases) - 1:
            phase.body.append(ast.Return(value=ast.Tuple(
                elts=[ast.Constant(value=0)] + [_name(n) for n in states[k]], ctx=ast.Load())))
        if not phase.body:
            phase.body = [ast.Pass()]
        fdefs.append(phase)
    module = ast.Module(body=fdefs, type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, code.co_firstlineno - 1)
    namespace = dict(pyfunc.__globals__)
    for name, cell in zip(code.co_freevars, pyfunc.__closure__ or ()):
        try:
            namespace[name] = cell.cell_contents  # frozen at the first launch, as Numba does
        except ValueError:
            raise NotCompilable(f"{qualname}: the closure variable {name} is not set") from None
    namespace.update(rewriter.bindings)
    exec(compile(module, code.co_filename, "exec"), namespace)  # noqa: S102 - the user's kernel
    fns = [namespace[f.name] for f in fdefs]
    fns[-1].__defaults__ = pyfunc.__defaults__
    whole = ast.FunctionDef(name=fdef.name, args=args, body=[s for p in phases for s in p],
                            decorator_list=[], returns=None,
                            **({"type_params": []} if sys.version_info >= (3, 12) else {}))
    return _Rewritten(fns, whole, params, shared, states)


_NJIT_OPTIONS = dict(boundscheck=True, error_model="numpy", nogil=False)
_DEVICES_BUSY = set()


def compile_device(device, as_device):
    """The njit form of a device function (thread indices first), made once per function."""
    cached = getattr(device, "_sim_compiled", None)
    if cached is not None:
        if isinstance(cached, NotCompilable):
            raise cached
        return cached
    key = id(device)
    if key in _DEVICES_BUSY:
        raise NotCompilable(f"{device.py_func.__qualname__}: recursive device functions")
    _DEVICES_BUSY.add(key)
    try:
        import numba

        fn = _rewrite(device.py_func, as_device, device=True).fns[0]
        result = numba.njit(**_NJIT_OPTIONS)(fn)
    except NotCompilable as exc:
        result = exc
    except Exception as exc:  # noqa: BLE001 - a construct the rewrite does not know
        result = NotCompilable(f"{device.py_func.__qualname__}: the compiled mode's rewrite "
                               f"failed ({type(exc).__name__}: {exc})")
    finally:
        _DEVICES_BUSY.discard(key)
    device._sim_compiled = result
    if isinstance(result, NotCompilable):
        raise result
    return result


def _index_count(slice_):
    """How many dimensions a subscript indexes with plain (non-slice) indices; None otherwise."""
    elts = slice_.elts if isinstance(slice_, ast.Tuple) else [slice_]
    if any(isinstance(e, (ast.Slice, ast.Starred)) for e in elts):
        return None
    return len(elts)


def _read_only_uses(fdef, params):
    """For each parameter: the set of index counts of its uses when every use is an element
    read ``p[i, j]`` or an attribute like ``p.shape``; None when it may be written (or aliased)."""
    parents = {}
    for node in ast.walk(fdef):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    uses = {p: set() for p in params}
    for node in ast.walk(fdef):
        if not (isinstance(node, ast.Name) and node.id in uses and uses[node.id] is not None):
            continue
        if not isinstance(node.ctx, ast.Load):
            uses[node.id] = None
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.attr in _ARRAY_META:
            continue
        if isinstance(parent, ast.Subscript) and parent.value is node and \
                isinstance(parent.ctx, ast.Load):
            count = _index_count(parent.slice)
            grand = parents.get(parent)
            if count is not None and not (isinstance(grand, (ast.Attribute, ast.Subscript))
                                          and grand.value is parent):
                uses[node.id].add(count)
                continue
        uses[node.id] = None
    return [uses[p] for p in params]


#: the default of ``NUMBA_CUDASIM_COMPILE_THRESHOLD``
DEFAULT_THRESHOLD = 100_000


def compile_threshold():
    """``NUMBA_CUDASIM_COMPILE_THRESHOLD``: how many threads a kernel's launches must have run in
    all (the current launch included) before the compiled mode compiles it (default 100000: compiling
    costs about as much as 1e5 threads of the Python simulator; 0: at the first launch)."""
    import os

    value = os.environ.get("NUMBA_CUDASIM_COMPILE_THRESHOLD", "")
    try:
        return max(0, int(value)) if value.strip() else DEFAULT_THRESHOLD
    except ValueError:
        raise ValueError(f"NUMBA_CUDASIM_COMPILE_THRESHOLD must be a number of threads, "
                         f"got {value!r}") from None


def _interrupt_check():
    """``PyOS_InterruptOccurred`` as a function the grid loop calls (GIL held: the loop keeps it):
    1 once a SIGINT (Ctrl-C) has arrived, which it consumes (:func:`_deliver_interrupt` hands it
    on to the handler)."""
    import ctypes

    fn = ctypes.pythonapi.PyOS_InterruptOccurred
    fn.restype, fn.argtypes = ctypes.c_int, []
    return fn


def _deliver_interrupt():
    """Run the SIGINT handler the compiled loop stopped for (Python's: ``KeyboardInterrupt``)."""
    import signal

    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, sys._getframe(1))
    else:  # not Python's handler any more: the signal again, to whatever handles it now
        signal.raise_signal(signal.SIGINT)


#: whether the grid loop checks for Ctrl-C between blocks (a switch for benchmarks and tests)
INTERRUPTIBLE = True


def _grid_source(nparams, nphases, nshared, interruptible=True):
    """The loop over the grid, from block ``start`` (linear, ``x`` fastest): per block, its
    shared arrays (zero-filled), then each phase for every thread in the Python simulator's
    order, handing each thread's variables to the next.  Before each block it checks for a
    SIGINT and returns that block's index when one came; -1 when every block ran."""
    args = ", ".join(f"a{k}" for k in range(nparams))
    shared = ", ".join(f"s{k}" for k in range(nshared))
    lines = [f"def grid_loop(start, gdx, gdy, gdz, bdx, bdy, bdz{', ' + args if args else ''}):",
             "    b = 0",
             "    for bz in range(gdz):",
             "        for by in range(gdy):",
             "            for bx in range(gdx):",
             "                b += 1",
             "                if b <= start:",
             "                    continue"]
    ind = " " * 16
    if interruptible:
        lines += [f"{ind}if interrupted():", f"{ind}    return b - 1"]
    lines += [f"{ind}s{k} = np.zeros(shape{k}, dtype{k})" for k in range(nshared)]
    for p in range(nphases):
        parts = ["tx, ty, tz, bx, by, bz, bdx, bdy, bdz, gdx, gdy, gdz"]
        parts += [shared] if shared else []
        parts += [args] if args else []
        parts += [f"st{p - 1}[t]"] if p > 0 else []
        call = f"phase{p}({', '.join(parts)})"
        if p < nphases - 1:
            lines.append(f"{ind}st{p} = []")
        lines += [f"{ind}t = 0",
                  f"{ind}for tz in range(bdz):",
                  f"{ind}    for ty in range(bdy):",
                  f"{ind}        for tx in range(bdx):"]
        inner = ind + " " * 12
        lines.append(f"{inner}st{p}.append({call})" if p < nphases - 1 else f"{inner}{call}")
        lines.append(f"{inner}t += 1")
    lines.append("    return -1")
    return "\n".join(lines) + "\n"


class CompiledKernel:
    """The compiled form of one kernel, or why it has none (:attr:`reason`)."""

    def __init__(self, pyfunc, as_device, options):
        self.qualname = pyfunc.__qualname__
        #: why the kernel (or its latest launch) did not run compiled; None when it did
        self.reason = None
        #: seconds spent compiling, over all signatures
        self.compile_seconds = 0.0
        self._loop = None
        self._signatures = {}  # argument types -> True (compiled) or the reason it is not
        self._readonly = []
        self.phases = 0
        if options.get("debug"):
            self._refuse(f"{self.qualname}: debug=True kernels (division by zero raises there)")
            return
        try:
            rewritten = _rewrite(pyfunc, as_device, device=False)
        except NotCompilable as exc:
            self._refuse(str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - a construct the rewrite does not know
            self._refuse(f"{self.qualname}: the compiled mode's rewrite failed "
                         f"({type(exc).__name__}: {exc})")
            return
        import numba

        #: how many phases (barriers + 1) the kernel has
        self.phases = len(rewritten.fns)
        self._readonly = _read_only_uses(rewritten.fdef, rewritten.params)
        namespace = {"np": np, "interrupted": _interrupt_check()}
        for k, fn in enumerate(rewritten.fns):
            namespace[f"phase{k}"] = numba.njit(**_NJIT_OPTIONS)(fn)
        for k, (_, shape, dtype) in enumerate(rewritten.shared):
            namespace[f"shape{k}"] = shape
            namespace[f"dtype{k}"] = dtype.type if dtype.fields is None else dtype
        source = _grid_source(len(rewritten.params), len(rewritten.fns), len(rewritten.shared),
                              INTERRUPTIBLE)
        exec(source, namespace)  # noqa: S102 - generated above
        self._loop = numba.njit(**_NJIT_OPTIONS)(namespace["grid_loop"])

    def _refuse(self, why):
        self.reason = why
        log.debug("kernel runs in the Python simulator: %s", why)

    @property
    def eligible(self):
        return self._loop is not None

    def _types(self, args):
        import numba

        out = []
        for a in args:
            if isinstance(a, np.ndarray) and (a.dtype.hasobject or not a.dtype.isnative):
                return None
            try:
                out.append(numba.typeof(a))
            except (ValueError, TypeError):
                return None
        return tuple(out)

    def _prepare(self, types_):
        """Compile for ``types_`` (once); True when it compiled."""
        state = self._signatures.get(types_)
        if state is None:
            import numba

            start = time.perf_counter()
            try:
                self._loop.compile((numba.int64,) * 7 + types_)
                state = True
            except Exception as exc:  # noqa: BLE001 - Numba's errors: the Python simulator runs it
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                state = f"{self.qualname}: Numba could not compile it for {types_}: {first}"
            self.compile_seconds += time.perf_counter() - start
            self._signatures[types_] = state
        if state is not True:
            self._refuse(state)
            return False
        return True

    def run(self, grid, block, args):
        """Run the launch compiled; False when it did not (memory is then as before the call,
        and the caller runs the launch in the Python simulator).

        A SIGINT (Ctrl-C) stops the loop before its next block and runs the SIGINT handler:
        ``KeyboardInterrupt`` leaves memory as the blocks run so far wrote it (whole blocks, in
        the simulator's order: the state the Python simulator is in between those blocks); a
        handler that returns lets the launch go on from that block."""
        if self._loop is None:
            return False
        args = [a.view(np.ndarray) if isinstance(a, np.recarray) else a for a in args]
        types_ = self._types(args)
        if types_ is None:
            self._refuse(f"{self.qualname}: an argument Numba cannot type")
            return False
        if not self._prepare(types_):
            return False
        saved = []
        for a, uses in zip(args, self._readonly + [None] * (len(args) - len(self._readonly))):
            for arr in _arrays_in(a):  # (an array in a tuple may be aliased: always copied)
                if uses is None or uses != {arr.ndim} or arr.dtype.fields is not None or \
                        isinstance(a, tuple):
                    saved.append((arr, arr.copy()))
        start = 0
        while True:
            try:
                start = self._loop(start, *grid, *block, *args)
            except Exception as exc:  # noqa: BLE001 - the Python simulator reruns it and reports
                for arr, copy in saved:
                    np.copyto(arr, copy)
                self._refuse(f"{self.qualname}: the compiled launch raised {type(exc).__name__} "
                             f"({exc}); rerun in the Python simulator")
                return False
            if start < 0:
                break
            self.reason = f"{self.qualname}: interrupted before block {start}"
            _deliver_interrupt()  # KeyboardInterrupt propagates from here
        self.reason = None
        return True


def _arrays_in(value):
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, tuple):
        for v in value:
            yield from _arrays_in(v)
