"""Source rewriting of kernels and device functions for the simulator.

A ``@cuda.jit`` function is parsed from its source and rewritten once, at
its first launch (globals are resolved then, as Numba freezes them at compile
time):

* ``cuda.threadIdx.x`` & co. and ``cuda.laneid`` become local variables read
  from the thread context once, at function entry; ``cuda.grid(n)`` and
  ``cuda.gridsize(n)`` with a literal ``n`` become inline arithmetic.
* Barriers and warp collectives become ``(yield request)``: the function
  turns into a generator, one per simulated thread, and the block scheduler
  resumes the threads when they may pass.  A call of a device function that
  (transitively) meets other threads becomes ``(yield from ...)``.
* Every ``while`` loop gets a spin point: each
  :data:`~.collectives.SPIN_INTERVAL`-th iteration yields (or, where it
  cannot yield, calls :func:`.collectives.spin`), so the scheduler can run
  the other threads -- a thread spinning on a flag makes progress.
* ``cuda.shared.array`` gets a call-site id, so all threads of a block get
  the same array; module attribute chains (``cuda.atomic.add``, ``np.float32``)
  are looked up once and bound to names.
* Stores into array elements and record fields evaluate the array, the index
  and the value once, and store what the GPU stores (:mod:`.fixedwidth`:
  integers wrap, floats into integers convert as ``cvt.rzi``).
* Operators (binary, unary, single comparisons, augmented assignments), number
  constructors (``int``, ``float``, ``np.int32``, ``numba.uint8`` ...) and
  ``math`` functions call :mod:`.typedarith`, which computes them in the types
  Numba's typing gives (as the compiled kernel does); a conditional expression
  converts its value to the unification of both branches' types
  (:mod:`.ternary`).  Arithmetic on constants alone is left as written:
  CPython folds it, and the compiled kernel sees the folded constant.
* Every name the rewrite introduces starts with a prefix that none of the
  function's own names starts with (hygiene: a user's ``_sim_ctx`` is theirs).

With ``yields=False`` barriers stay calls into :mod:`.collectives` (for the
OS-thread mode).  :class:`TransformError` means the source could not be
rewritten (no source, a lambda); the caller then runs the original function
in OS-thread mode.
"""

import ast
import builtins
import copy
import inspect
import itertools
import sys
import textwrap
import tokenize
import types as pytypes

import numpy as np

from . import collectives as coll
from . import constfold, fixedwidth, inline_ops, ternary, typedarith
from . import kernelapi as kapi
from . import kernelmemory as mem
from .mathfuncs import KERNEL_VERSIONS as MATH_VERSIONS

_UNRESOLVED = object()
_ids = itertools.count()

#: The prefix of every name the rewrite introduces, unless the function itself uses a
#: name starting with it (see :func:`_fresh_prefix`).
PREFIX = "_sim_"


def _names_in(fdef, code):
    """Every identifier the user's function spells (variables, arguments, attributes,
    nested definitions, imports) or its code object refers to."""
    names = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars) | set(code.co_cellvars)
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
    return names


def _fresh_prefix(names):
    """A prefix no name of the function starts with: the rewrite's names (the thread
    context parameter, index variables, bound objects, temporaries) never collide with
    the user's, whatever the user calls things."""
    prefix, n = PREFIX, 0
    while any(name.startswith(prefix) for name in names):
        n += 1
        prefix = f"_sim{n}_"
    return prefix


class TransformError(Exception):
    """The function cannot be rewritten; the OS-thread mode runs it as written."""


class DeviceRecursion(Exception):
    """A device function is reached again while it is being rewritten."""


class Transformed:
    """A rewritten function: ``fn(ctx, *args)``; a generator function when ``is_generator``."""

    __slots__ = ("fn", "is_generator", "uses_grid_sync", "needs_threads", "source", "meets")

    def __init__(self, fn, is_generator, uses_grid_sync, needs_threads, source, meets=None):
        self.fn = fn
        self.is_generator = is_generator
        self.uses_grid_sync = uses_grid_sync
        self.needs_threads = needs_threads
        self.source = source
        #: Whether it yields for barriers or warp collectives (not only spin points).
        self.meets = is_generator if meets is None else meets


# ---- mapping the real target's stub objects onto the simulator's ---------------------
_STUB_MAP = None


def _stub_map():
    global _STUB_MAP
    if _STUB_MAP is None:
        mapping = {}
        try:
            from ..lang import stubs
        except Exception:  # noqa: BLE001 - the simulator works without the real stubs
            stubs = None
        if stubs is not None:
            for name, obj in vars(stubs).items():
                sim = getattr(kapi, name, None)
                if sim is None or name.startswith("_"):
                    continue
                if isinstance(obj, pytypes.ModuleType) and obj.__name__.startswith("numba.cuda."):
                    mapping[id(obj)] = sim
                    for member, member_obj in vars(obj).items():
                        sim_member = getattr(sim, member, None)
                        if sim_member is not None and not member.startswith("_"):
                            mapping[id(member_obj)] = sim_member
                elif isinstance(obj, stubs.Stub):
                    mapping[id(obj)] = sim
        _STUB_MAP = mapping
    return _STUB_MAP


def canonical(obj):
    """The simulator object standing for ``obj`` (a stub of the real target maps to its twin)."""
    twin = _stub_map().get(id(obj))
    if twin is not None:
        return twin
    qualname = getattr(obj, "qualname", None)
    if type(qualname) is str and qualname.startswith("numba.cuda.libdevice.") and \
            type(obj).__module__ == "numba_cuda.lang.stubs":
        # the GPU target's cuda.libdevice.<name> (imported where the simulator was not enabled)
        from . import libdevice

        return getattr(libdevice, qualname.rsplit(".", 1)[1], obj)
    return obj


_COLLECTIVES = {id(f): (f, b) for f, b in coll.REQUEST_BUILDERS.items()}
_NUMPY_FLOAT_TYPES = frozenset({np.float32, np.float64, np.complex64, np.complex128, np.bool_})
_CONSTRUCTORS = {}


def _typed_constructor(cls, compute):
    """The kernel version of number class ``cls`` (``np.int32``, ``float``, ``numba.uint8``
    ...): typed as the compiled kernel types the call (:func:`.typedarith.typed_call`)."""
    key = id(cls)
    hit = _CONSTRUCTORS.get(key)
    if hit is None or hit[0] is not cls:
        hit = _CONSTRUCTORS[key] = (cls, typedarith.typed_call(cls, compute, getattr(cls, "__name__", None)))
    return hit[1]


def _constant_expr(node):
    """Whether ``node`` is arithmetic on constants only that CPython folds at compile time
    (the compiled kernel's typing sees the folded constant; see :func:`.constfold.folded`)."""
    return constfold.folded(node)[0]


def _constant_condition(node):
    """Whether Numba's dead-branch pruning decides a condition at compile time: a constant,
    or one comparison of constants (after CPython's folding)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        sides = (node.left, node.comparators[0])
        return all(isinstance(s, ast.Constant) or _constant_expr(s) for s in sides)
    return False


def is_numpy_int_class(t):
    """A NumPy integer scalar class -- not ``np.timedelta64``, which NumPy makes a subclass of
    ``np.signedinteger`` but which takes a unit (``np.timedelta64(1, "s")``) and is no int."""
    return isinstance(t, type) and issubclass(t, np.integer) and not issubclass(t, np.timedelta64)


_NUMPY_INT_TYPES = frozenset(t for t in set(np.sctypeDict.values()) if is_numpy_int_class(t))


def _numba_scalar_as_numpy(obj):
    """The numpy scalar type of a Numba integer/float type object, else None."""
    if not type(obj).__module__.startswith("numba"):
        return None
    try:
        from numba.core import types as nbtypes
        from numba.np.numpy_support import as_dtype
    except Exception:  # noqa: BLE001
        return None
    if isinstance(obj, (nbtypes.Integer, nbtypes.Float, nbtypes.Boolean)):
        return as_dtype(obj).type
    return None


# ---- the resolver ---------------------------------------------------------------------------
class _Resolver:
    def __init__(self, pyfunc, fdef):
        self.globals = pyfunc.__globals__
        code = pyfunc.__code__
        self.cells = dict(zip(code.co_freevars, pyfunc.__closure__ or ()))
        local = set()
        for node in ast.walk(fdef):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                local.add(node.id)
            elif isinstance(node, ast.arg):
                local.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fdef:
                local.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    local.add((alias.asname or alias.name).split(".")[0])
        self.local = local

    def resolve(self, node):
        if isinstance(node, ast.Name):
            name = node.id
            if name in self.local:
                return _UNRESOLVED
            cell = self.cells.get(name)
            if cell is not None:
                try:
                    return cell.cell_contents
                except ValueError:
                    return _UNRESOLVED
            if name in self.globals:
                return self.globals[name]
            return getattr(builtins, name, _UNRESOLVED)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if base is _UNRESOLVED or not isinstance(base, (pytypes.ModuleType, type)):
                return _UNRESOLVED
            try:
                return getattr(base, node.attr)
            except Exception:  # noqa: BLE001 - anything may happen in a lazy module
                return _UNRESOLVED
        return _UNRESOLVED


def _name(id_, ctx=None):
    return ast.Name(id=id_, ctx=ctx or ast.Load())


class _Rewriter(ast.NodeTransformer):
    def __init__(self, resolver, yields, as_device, prefix=PREFIX):
        self.prefix = prefix
        self.ctx = prefix + "ctx"
        self.r = resolver
        self.yields = yields
        self.as_device = as_device
        self.bindings = {}
        self._bound = {}
        self.fields = []
        self.is_generator = False
        self.needs_threads = False
        self.uses_grid_sync = False
        self.depth = 0
        self.grid_groups = set()
        self.uses_spin = False
        self.meets = False
        self.filename = "<unknown>"
        self.line_offset = 0  # source line of the parsed text's first line, minus one

    # -- helpers
    def bind(self, obj):
        key = id(obj)
        name = self._bound.get(key)
        if name is None:
            name = f"{self.prefix}b{next(_ids)}"
            self._bound[key] = name
            self.bindings[name] = obj
        return _name(name)

    def field(self, name):
        if name not in self.fields:
            self.fields.append(name)
        return _name(self.prefix + name)

    def resolve(self, node):
        obj = self.r.resolve(node)
        return obj if obj is _UNRESOLVED else canonical(obj)

    def _yield(self, call, yield_from=False, meets=True):
        if self.yields and self.depth == 0:
            self.is_generator = True
            self.meets = self.meets or meets
            return ast.YieldFrom(value=call) if yield_from else ast.Yield(value=call)
        if self.yields:
            self.needs_threads = True
        return None

    # -- scopes where a yield would not belong to the kernel
    def _nested(self, node):
        self.depth += 1
        try:
            return self.generic_visit(node)
        finally:
            self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _nested
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _nested

    # -- names and attributes
    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            obj = self.resolve(node)
            if obj is kapi.laneid:
                return self.field("lane")
        return node

    def visit_Attribute(self, node):
        if not isinstance(node.ctx, ast.Load):
            return self.generic_visit(node)
        if node.attr in ("x", "y", "z"):
            base = self.resolve(node.value)
            fields = kapi.DIM3_FIELDS.get(id(base))
            if fields is not None:
                return self.field(fields["xyz".index(node.attr)])
        obj = self.resolve(node)
        if obj is _UNRESOLVED:
            return self.generic_visit(node)
        if obj is kapi.laneid:
            return self.field("lane")
        return self.bind(obj)

    # -- calls
    def visit_Call(self, node):
        func = node.func
        obj = self.resolve(func)
        if obj is kapi.grid or obj is kapi.gridsize:
            inline = self._grid(obj, node)
            if inline is not None:
                return inline
        if isinstance(func, ast.Attribute) and func.attr == "sync" and not node.args:
            target = func.value
            is_group = (isinstance(target, ast.Name) and target.id in self.grid_groups) or (
                isinstance(target, ast.Call) and self.resolve(target.func) is kapi.this_grid
            )
            if is_group:
                self.uses_grid_sync = True
                call = ast.Call(func=self.bind(coll.request_grid_sync), args=[], keywords=[])
                return self._yield(call) or ast.Call(func=self.bind(coll.grid_sync), args=[], keywords=[])
        if obj is _UNRESOLVED:
            return self.generic_visit(node)
        self.generic_visit(node)  # rewrite the arguments (and func, overwritten below as needed)
        args, keywords = node.args, node.keywords
        hit = _COLLECTIVES.get(id(obj))
        if hit is not None:
            dynamic, builder = hit
            if dynamic is coll.activemask:
                args, keywords = [ast.Constant(value=next(_ids))], []
                dynamic = coll.request_activemask  # the dynamic form needs the site too
            if dynamic is coll.grid_sync:
                self.uses_grid_sync = True
            call = ast.Call(func=self.bind(builder), args=args, keywords=keywords)
            made = self._yield(call)
            if made is not None:
                return made
            if builder is coll.request_activemask:
                return ast.Call(func=self.bind(coll.meet), args=[call], keywords=[])
            return ast.Call(func=self.bind(obj), args=args, keywords=keywords)
        if obj is mem.shared_array:
            site = ast.Constant(value=next(_ids))
            return ast.Call(func=self.bind(mem.shared_array_at),
                            args=[_name(self.ctx), site] + args, keywords=keywords)
        if obj is kapi.lanemask_lt:
            return ast.Call(func=self.bind(coll.lanemask_of), args=[self.field("lane")], keywords=[])
        device = self.as_device(obj)
        if device is not None:
            try:
                variant = device.sim_variant(self.yields)
            except DeviceRecursion:
                return node  # the dynamic path runs it (recursion cannot meet other threads)
            if variant.uses_grid_sync:
                self.uses_grid_sync = True
            call = ast.Call(func=self.bind(variant.fn), args=[_name(self.ctx)] + args, keywords=keywords)
            if variant.is_generator and not variant.meets and self.depth > 0:
                # only spin points, where no yield can go (a lambda, a comprehension): the
                # plain variant, whose spin points call the scheduler when they can
                try:
                    plain = device.sim_variant(False)
                except DeviceRecursion:
                    return node
                return ast.Call(func=self.bind(plain.fn), args=[_name(self.ctx)] + args,
                                keywords=keywords)
            if variant.is_generator:
                made = self._yield(call, yield_from=True, meets=variant.meets)
                return made if made is not None else node
            if variant.needs_threads:
                self.needs_threads = True
            return call
        if obj is int and not keywords:
            return ast.Call(func=self.bind(_typed_constructor(int, fixedwidth.to_int)),
                            args=args, keywords=[])
        if (obj is float or obj is complex or obj is bool) and not keywords:
            return ast.Call(func=self.bind(_typed_constructor(obj, obj)), args=args, keywords=[])
        if isinstance(obj, type) and obj in _NUMPY_INT_TYPES:
            return ast.Call(func=self.bind(_typed_constructor(obj, fixedwidth.make_int_caster(obj))),
                            args=args, keywords=keywords)
        if isinstance(obj, type) and obj in _NUMPY_FLOAT_TYPES:
            return ast.Call(func=self.bind(_typed_constructor(obj, obj)), args=args, keywords=keywords)
        nptype = _numba_scalar_as_numpy(obj)
        if nptype is not None:
            compute = fixedwidth.make_int_caster(nptype) if is_numpy_int_class(nptype) else nptype
            return ast.Call(func=self.bind(_typed_constructor(obj, compute)), args=args,
                            keywords=keywords)
        math_version = MATH_VERSIONS.get(id(obj))
        if math_version is not None:
            return ast.Call(func=self.bind(math_version), args=args, keywords=keywords)
        if isinstance(func, ast.Name) and obj is not self.r.resolve(func):
            node.func = self.bind(obj)  # a GPU-target stub called by name: its simulator twin
        return node

    # -- operators: typed as the compiled kernel types them (see :mod:`.typedarith`)
    def visit_BinOp(self, node):
        if _constant_expr(node):
            return node
        self.generic_visit(node)
        fn = typedarith.BINARY.get(type(node.op).__name__)
        if fn is None:
            return node
        call = ast.Call(func=self.bind(fn), args=[node.left, node.right], keywords=[])
        return self._located_expr(inline_ops.fast(node.op, node.left, node.right, call, self.bind),
                                  node)

    @staticmethod
    def _located_expr(expr, node):
        for sub in ast.walk(expr):
            ast.copy_location(sub, node)
        return expr

    def visit_UnaryOp(self, node):
        if _constant_expr(node):
            return node
        self.generic_visit(node)
        fn = typedarith.UNARY.get(type(node.op).__name__)
        if fn is None:
            return node
        return ast.copy_location(ast.Call(func=self.bind(fn), args=[node.operand], keywords=[]),
                                 node)

    def visit_IfExp(self, node):
        # one type for both branches, as Numba unifies them (see :mod:`.ternary`) -- unless the
        # condition is constant: Numba's dead-branch pruning then types the taken branch alone
        if _constant_condition(node.test):
            return self.generic_visit(node)
        original = copy.deepcopy(node)
        self.generic_visit(node)
        node.body = self._unified(node.body, original.orelse)
        node.orelse = self._unified(node.orelse, original.body)
        return node

    def _unified(self, value, other):
        typer = ternary.Typer(other, self._lookup)
        if not typer.names:
            other_type = typer.type_for({})
            if other_type is None:
                return value
            call = ast.Call(func=self.bind(ternary.static_unifier(other_type)), args=[value],
                            keywords=[])
        else:
            call = ast.Call(func=self.bind(ternary.unified),
                            args=[value, self.bind(typer),
                                  ast.Call(func=self.bind(locals), args=[], keywords=[])],
                            keywords=[])
        return ast.copy_location(call, value)

    def _lookup(self, name):
        obj = self.r.resolve(ast.Name(id=name, ctx=ast.Load()))
        return None if obj is _UNRESOLVED else obj

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1:
            return self._chain(node)
        fn = typedarith.COMPARE.get(type(node.ops[0]).__name__)
        if fn is None:
            return node
        left, right = node.left, node.comparators[0]
        call = ast.Call(func=self.bind(fn), args=[left, right], keywords=[])
        return self._located_expr(inline_ops.fast(node.ops[0], left, right, call, self.bind), node)

    def _chain(self, node):
        """``a < b < c``: ``(a < b) and (b < c)``, each typed, when the inner operands are names
        or constants (evaluating them twice is free); otherwise Python's chain."""
        operands = [node.left] + list(node.comparators)
        fns = [typedarith.COMPARE.get(type(op).__name__) for op in node.ops]
        inner = operands[1:-1]
        if None in fns or not all(isinstance(o, (ast.Name, ast.Constant)) for o in inner):
            return node
        tests = []
        for k, (op, fn) in enumerate(zip(node.ops, fns)):
            left = operands[k] if k == 0 else copy.copy(operands[k])
            right = operands[k + 1]
            call = ast.Call(func=self.bind(fn), args=[left, right], keywords=[])
            tests.append(inline_ops.fast(op, left, right, call, self.bind))
        return self._located_expr(ast.BoolOp(op=ast.And(), values=tests), node)

    def _grid(self, obj, node):
        if len(node.args) != 1 or node.keywords:
            return None
        arg = node.args[0]
        if not isinstance(arg, ast.Constant) or arg.value not in (1, 2, 3):
            return None
        parts = []
        for axis in "xyz"[: arg.value]:
            if obj is kapi.grid:
                parts.append(ast.BinOp(
                    left=ast.BinOp(left=self.field("b" + axis), op=ast.Mult(),
                                   right=self.field("bd" + axis)),
                    op=ast.Add(), right=self.field("t" + axis)))
            else:
                parts.append(ast.BinOp(left=self.field("bd" + axis), op=ast.Mult(),
                                       right=self.field("gd" + axis)))
        return parts[0] if len(parts) == 1 else ast.Tuple(elts=parts, ctx=ast.Load())

    # -- loops: a spin point every SPIN_INTERVAL iterations of a while loop
    def visit_While(self, node):
        self.generic_visit(node)
        counter = self.prefix + "spins"
        self.uses_spin = True
        count = ast.AugAssign(target=_name(counter, ast.Store()), op=ast.Add(),
                              value=ast.Constant(value=1))
        where = f"{self.filename}:{node.lineno + self.line_offset}"
        args = [ast.Call(func=self.bind(locals), args=[], keywords=[]),
                ast.Constant(value=self.prefix), ast.Constant(value=where)]
        if self.yields and self.depth == 0:
            self.is_generator = True
            point = ast.Expr(value=ast.Yield(value=ast.Call(
                func=self.bind(coll.request_spin), args=args, keywords=[])))
        else:
            point = ast.Expr(value=ast.Call(func=self.bind(coll.spin), args=args, keywords=[]))
        due = ast.UnaryOp(op=ast.Not(), operand=ast.BinOp(
            left=_name(counter), op=ast.BitAnd(), right=ast.Constant(value=coll.SPIN_INTERVAL - 1)))
        check = ast.If(test=due, body=[point], orelse=[])
        for new in (count, check):
            for sub in ast.walk(new):
                ast.copy_location(sub, node)
        if self.depth > 0:
            # a nested function: its own counter, from its enclosing scope's start
            count = ast.Assign(targets=[_name(counter, ast.Store())], value=ast.BinOp(
                left=ast.Call(func=self.bind(_spin_count), args=[ast.Call(
                    func=self.bind(locals), args=[], keywords=[]), ast.Constant(value=counter)],
                    keywords=[]), op=ast.Add(), right=ast.Constant(value=1)))
            ast.copy_location(count, node)
            for sub in ast.walk(count):
                ast.copy_location(sub, node)
        node.body = [count, check] + node.body
        return node

    # -- stores into array elements and record fields
    def _tmp(self, what):
        return f"{self.prefix}{what}{self.depth}"

    def _as_value(self, expr):
        """An index expression that may stand alone: ``a:b:c`` becomes ``slice(a, b, c)``."""
        if isinstance(expr, ast.Slice):
            parts = [p if p is not None else ast.Constant(value=None)
                     for p in (expr.lower, expr.upper, expr.step)]
            return ast.Call(func=self.bind(slice), args=parts, keywords=[])
        if isinstance(expr, ast.Tuple):
            return ast.Tuple(elts=[self._as_value(e) for e in expr.elts], ctx=ast.Load())
        return expr

    def _once(self, expr, what, out):
        """``expr`` as an expression safe to evaluate again: itself when it is a name or a
        constant, else a temporary assigned (once) by a statement appended to ``out``."""
        if isinstance(expr, (ast.Name, ast.Constant)):
            return expr
        expr = self._as_value(expr)
        name = self._tmp(what)
        out.append(ast.Assign(targets=[_name(name, ast.Store())], value=expr))
        return _name(name)

    @staticmethod
    def _guardable(target):
        return isinstance(target, (ast.Subscript, ast.Attribute))

    def _has_guardable(self, target):
        if isinstance(target, (ast.Tuple, ast.List)):
            return not any(isinstance(t, ast.Starred) for t in target.elts) \
                and any(self._has_guardable(t) for t in target.elts)
        return self._guardable(target)

    def _store(self, target, value, out, n=0):
        """Statements storing ``value`` (a name) into ``target``, each part evaluated once."""
        if isinstance(target, (ast.Tuple, ast.List)) and self._has_guardable(target):
            names = [f"{self.prefix}u{self.depth}_{n}_{k}" for k in range(len(target.elts))]
            out.append(ast.Assign(targets=[ast.Tuple(elts=[_name(x, ast.Store()) for x in names],
                                                     ctx=ast.Store())], value=value))
            for k, (elt, x) in enumerate(zip(target.elts, names)):
                self._store(elt, _name(x), out, n * 8 + k + 1)
            return
        if not self._guardable(target):
            out.append(ast.Assign(targets=[target], value=value))
            return
        base = self._once(target.value, "a", out)
        if isinstance(target, ast.Subscript):
            key = self._once(target.slice, "i", out)
            place = ast.Subscript(value=base, slice=key, ctx=ast.Store())
            fix = ast.Call(func=self.bind(fixedwidth.store), args=[base, key, value], keywords=[])
        else:
            place = ast.Attribute(value=base, attr=target.attr, ctx=ast.Store())
            fix = ast.Call(func=self.bind(fixedwidth.store_attr),
                           args=[base, ast.Constant(value=target.attr), value], keywords=[])
        body = [ast.Assign(targets=[place], value=value)]
        if not (isinstance(value, ast.Constant) and not isinstance(value.value, float)):
            # NumPy converts a float stored into an unsigned array with a C cast (wrapping,
            # machine-dependent) and into a signed one with int() (raising): a float into
            # an integer array (or a record field) takes the helper, converting as cvt.rzi.
            is_float = ast.Compare(
                left=ast.Attribute(value=value, attr="__class__", ctx=ast.Load()),
                ops=[ast.In()], comparators=[self.bind(fixedwidth.FLOAT_TYPES)])
            if isinstance(target, ast.Subscript):
                into_ints = ast.Compare(
                    left=ast.Attribute(value=ast.Attribute(value=base, attr="dtype", ctx=ast.Load()),
                                       attr="kind", ctx=ast.Load()),
                    ops=[ast.NotIn()], comparators=[ast.Constant(value="fc")])
                is_float = ast.BoolOp(op=ast.And(), values=[is_float, into_ints])
            body = [ast.If(test=is_float, body=[ast.Expr(value=fix)], orelse=body)]
        out.append(ast.Try(
            body=body,
            handlers=[ast.ExceptHandler(type=self.bind(fixedwidth.STORE_ERRORS), name=None,
                                        body=[ast.Expr(value=fix)])],
            orelse=[], finalbody=[],
        ))

    def _located(self, stmts, node):
        for new in stmts:
            for sub in ast.walk(new):
                ast.copy_location(sub, node)
        return stmts

    def visit_Assign(self, node):
        self.generic_visit(node)
        if not any(self._has_guardable(t) for t in node.targets):
            return node
        out = []
        if len(node.targets) == 1 and isinstance(node.value, (ast.Name, ast.Constant)):
            value = node.value
        else:
            value = self._once_always(node.value, out)
        for n, target in enumerate(node.targets):
            self._store(target, value, out, n)
        return self._located(out, node)

    def _once_always(self, expr, out):
        name = self._tmp("v")
        out.append(ast.Assign(targets=[_name(name, ast.Store())], value=expr))
        return _name(name)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        target = node.target
        typed = typedarith.AUGMENTED.get(type(node.op).__name__)
        if isinstance(target, ast.Name) and typed is not None:
            # x op= y: x = typed(x, y) (the in-place operator for what is not a number)
            call = ast.Call(func=self.bind(typed), args=[_name(target.id), node.value], keywords=[])
            value = inline_ops.fast(node.op, _name(target.id), node.value, call, self.bind)
            assign = ast.Assign(targets=[_name(target.id, ast.Store())], value=value)
            return self._located([assign], node)[0]
        if not self._guardable(target):
            return node
        out = []
        base = self._once(target.value, "a", out)
        if isinstance(target, ast.Subscript):
            key = self._once(target.slice, "i", out)
            load = ast.Subscript(value=base, slice=key, ctx=ast.Load())
            store_target = ast.Subscript(value=base, slice=key, ctx=ast.Store())
        else:
            load = ast.Attribute(value=base, attr=target.attr, ctx=ast.Load())
            store_target = ast.Attribute(value=base, attr=target.attr, ctx=ast.Store())
        old, val, res = self._tmp("o"), self._tmp("w"), self._tmp("r")
        binary = typedarith.BINARY.get(type(node.op).__name__)  # the result is stored back
        out.append(ast.Assign(targets=[_name(old, ast.Store())], value=load))   # Python's order:
        out.append(ast.Assign(targets=[_name(val, ast.Store())], value=node.value))  # load, then value
        exact = ast.Call(func=self.bind(fixedwidth.exact_op),
                         args=[ast.Constant(value=type(node.op).__name__), _name(old), _name(val)],
                         keywords=[])
        out.append(ast.Try(
            body=[ast.Assign(targets=[_name(res, ast.Store())],
                             value=ast.Call(func=self.bind(binary), args=[_name(old), _name(val)],
                                            keywords=[]) if binary is not None
                             else ast.BinOp(left=_name(old), op=node.op, right=_name(val)))],
            handlers=[ast.ExceptHandler(type=self.bind(OverflowError), name=None,
                                        body=[ast.Assign(targets=[_name(res, ast.Store())],
                                                         value=exact)])],
            orelse=[], finalbody=[],
        ))
        self._store(store_target, _name(res), out)
        return self._located(out, node)


def _spin_count(frame_locals, name):
    """The loop counter of a nested scope (no prologue there: 0 on first use)."""
    return frame_locals.get(name, 0)


def _find_grid_groups(fdef, resolver):
    names = set()
    for node in ast.walk(fdef):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)):
            obj = resolver.resolve(node.value.func)
            if obj is not _UNRESOLVED and canonical(obj) is kapi.this_grid:
                names.add(node.targets[0].id)
    return names


def _parse(pyfunc):
    try:
        source = inspect.getsource(pyfunc)
    except (OSError, TypeError, SyntaxError, UnicodeDecodeError, tokenize.TokenError) as exc:
        # (Python 3.12+'s tokenizer raises TokenError where the lines found are not the
        # function's: code compiled with another file's name)
        raise TransformError(f"the source of {pyfunc.__qualname__} is not available ({exc})") from None
    source = textwrap.dedent(source)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise TransformError(f"the source of {pyfunc.__qualname__} does not parse alone ({exc})") from None
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef) \
            or tree.body[0].name != pyfunc.__name__:
        raise TransformError(f"{pyfunc.__qualname__} is not defined by a def statement")
    fdef = tree.body[0]
    for node in ast.walk(fdef):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            raise TransformError(f"{pyfunc.__qualname__} is a generator or coroutine")
        if isinstance(node, _TRY_NODES):
            # refused as the compiler refuses it (Python would catch what the GPU cannot)
            from numba.core.errors import UnsupportedError

            from ..common.unsupported import no_try_message

            line = pyfunc.__code__.co_firstlineno + node.lineno - 1
            raise UnsupportedError(
                f"{no_try_message()}\n\nFile \"{pyfunc.__code__.co_filename}\", line {line}")
    return source, fdef


#: try statements (``try``/``except``/``finally``, and ``except*`` from Python 3.11)
_TRY_NODES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))


#: NumPy functions that create an array: in CUDA code they need the device NRT
NUMPY_ALLOCATORS = (
    "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
    "arange", "linspace", "array", "copy", "eye", "identity", "concatenate", "stack", "vstack",
    "hstack", "dstack", "column_stack", "tile", "repeat", "diag", "tri", "tril", "triu",
    "sort", "cumsum", "cumprod", "diff", "flip", "fliplr", "flipud", "ravel", "unique",
)


def _refuse_allocations(pyfunc, fdef, resolver):
    """Without the device NRT, a NumPy array constructor in CUDA code is refused before any
    thread runs, with the compiler's error (``unsupported.no_nrt_message``)."""
    import numpy as np

    allocators = {id(getattr(np, name)): name for name in NUMPY_ALLOCATORS if hasattr(np, name)}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call):
            obj = resolver.resolve(node.func)
            if obj is not _UNRESOLVED and id(obj) in allocators:
                from numba.core.errors import TypingError

                from ..common.unsupported import no_nrt_message

                line = pyfunc.__code__.co_firstlineno + node.lineno - 1
                raise TypingError(
                    f"{no_nrt_message(f'np.{allocators[id(obj)]}()')}\n\n"
                    f"File \"{pyfunc.__code__.co_filename}\", line {line}")


def transform(pyfunc, yields, as_device):
    """Rewrite ``pyfunc``; see the module docstring.  ``as_device(obj)`` returns the
    simulator device function that ``obj`` is (or None)."""
    from ..common.unsupported import nrt_enabled

    source, fdef = _parse(pyfunc)
    resolver = _Resolver(pyfunc, fdef)
    if not nrt_enabled():
        _refuse_allocations(pyfunc, fdef, resolver)
    prefix = _fresh_prefix(_names_in(fdef, pyfunc.__code__))
    rewriter = _Rewriter(resolver, yields, as_device, prefix)
    rewriter.filename = pyfunc.__code__.co_filename
    rewriter.line_offset = pyfunc.__code__.co_firstlineno - 1
    rewriter.grid_groups = _find_grid_groups(fdef, resolver)
    new_body = []
    for stmt in fdef.body:
        out = rewriter.visit(stmt)
        if isinstance(out, list):
            new_body.extend(out)
        elif out is not None:
            new_body.append(out)
    prologue = [
        ast.Assign(targets=[_name(prefix + f, ast.Store())],
                   value=ast.Attribute(value=_name(rewriter.ctx), attr=f, ctx=ast.Load()))
        for f in rewriter.fields
    ]
    if rewriter.uses_spin:
        prologue.append(ast.Assign(targets=[_name(prefix + "spins", ast.Store())],
                                   value=ast.Constant(value=0)))
    for stmt in prologue:
        ast.copy_location(stmt, fdef.body[0])
    internal_name = f"{prefix}fn{next(_ids)}_{fdef.name}"
    fdef.name = internal_name
    fdef.decorator_list = []
    fdef.body = prologue + new_body
    ctx_arg = ast.arg(arg=rewriter.ctx)
    if fdef.args.posonlyargs:
        fdef.args.posonlyargs.insert(0, ctx_arg)
    else:
        fdef.args.args.insert(0, ctx_arg)

    code = pyfunc.__code__
    freevars = code.co_freevars
    if freevars:
        factory = ast.FunctionDef(
            name=prefix + "factory",
            args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in freevars],
                               kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=[fdef, ast.Return(value=_name(internal_name))],
            decorator_list=[], returns=None,
            **({"type_params": []} if sys.version_info >= (3, 12) else {}),
        )
        ast.copy_location(factory, fdef)
        module = ast.Module(body=[factory], type_ignores=[])
    else:
        module = ast.Module(body=[fdef], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, code.co_firstlineno - 1)
    compiled = compile(module, code.co_filename, "exec")

    namespace = dict(pyfunc.__globals__)
    namespace.update(rewriter.bindings)
    exec(compiled, namespace)  # noqa: S102 - the user's own kernel, rewritten
    if freevars:
        inner = namespace.pop(prefix + "factory")(*([None] * len(freevars)))
        cells = dict(zip(freevars, pyfunc.__closure__))
        closure = tuple(cells[name] for name in inner.__code__.co_freevars)
        fn = pytypes.FunctionType(inner.__code__, namespace, internal_name, None, closure)
    else:
        fn = namespace.pop(internal_name)
    fn.__defaults__ = pyfunc.__defaults__
    fn.__kwdefaults__ = pyfunc.__kwdefaults__
    fn.__qualname__ = pyfunc.__qualname__
    fn.__name__ = pyfunc.__name__
    fn.__doc__ = pyfunc.__doc__
    return Transformed(fn, rewriter.is_generator, rewriter.uses_grid_sync,
                       rewriter.needs_threads, source, rewriter.meets)
