"""Numba's array, string and inlining implementation modules, imported when a compile needs them.

The CUDA target installs Numba's builtin registries, which ``numba.np.arrayobj`` (with what it
imports: ``numba.cpython.unicode``, ``charseq``, ``hashing`` ...), ``numba.np.unsafe.ndarray``
and ``numba.core.inline_closurecall`` fill when imported: ~40 ms of every process's first
compile, and most kernels need none of it (element access, ``shape``/``size``/``strides``,
``len``, basic slicing and iteration are ``array_access``'s own lowering; the inlining passes
import ``inline_closurecall`` only to build a worker they use when something is inlined).
Imported eagerly, they are imported when the target context is first refreshed, the *eager
point*: their registrations then precede every later one.  Here the import waits until
something could see them, and then their registrations are installed *where the eager import
would have put them* (after what the contexts held at the eager point, before anything
installed since), so that every lookup gives what it gives with the eager import:

* lowering (``get_function``, ``get_getattr``, ``get_setattr``, ``cast``, constants): a
  deferred implementation that matches the looked-up signature and is not strictly more generic
  than the implementation chosen without it (``OverloadSelector`` takes the most specific; an
  equal signature registered later wins) -- the table below lists the deferred signatures;
* typing: a global only the deferred modules type (``np.empty`` ...); a function they add
  templates to (``operator.lt``, ``len``, ``"getiter"`` ...) when anything was registered for it
  since the eager point, or when the function is not typed without them (the templates present
  at the eager point come first in both orders: an answer from one of them is the eager answer);
  an attribute they add a template for on the type's classes (``a.take``, string methods ...);
* a data model only they register (``UnicodeType``), anything inlined (the inlining passes'
  worker), Numba's after-inference rewrites when they run (``RewriteArrayOfConsts``);
* any deferred module in ``sys.modules`` (imported by user code, by Numba's ``make_array``
  ...): installed at the next lookup or refresh.

``ENABLED = False`` imports them at the eager point (the tests compare both).  The tables are
what the imports register, checked against Numba by ``tests/compiler/test_deferred_impls.py``.
"""

import importlib
import sys

#: False: import the modules when the target context is first refreshed, as before.
ENABLED = True

#: What the deferred load imports, in the eager import order.
DEFERRED_IMPORTS = ("numba.np.arrayobj", "numba.np.unsafe.ndarray", "numba.core.inline_closurecall")

#: Every module those imports add to a process at the eager point: one of them in sys.modules
#: means their registrations may be in the registries already.
DEFERRED_MODULES = (
    "numba.core.inline_closurecall", "numba.core.unsafe.bytes", "numba.cpython.charseq",
    "numba.cpython.hashing", "numba.cpython.listobj", "numba.cpython.randomimpl",
    "numba.cpython.unicode", "numba.cpython.unicode_support", "numba.misc.mergesort",
    "numba.misc.quicksort", "numba.np.arrayobj", "numba.np.unsafe", "numba.np.unsafe.ndarray",
)

#: Data model classes only the deferred modules register.
DEFERRED_MODELS = (("numba.core.types.misc", "UnicodeType"),
                   ("numba.core.types.misc", "UnicodeIteratorType"))


def any_imported():
    modules = sys.modules
    for name in DEFERRED_MODULES:
        if name in modules:
            return True
    return False


def import_all():
    for name in DEFERRED_IMPORTS:
        importlib.import_module(name)


# ---- object specs ------------------------------------------------------------------------------
# An object named in the tables: ("str", text) | ("none",) | ("obj", module, attribute path) |
# ("inst", attribute of numba.core.types) | ("vararg", spec) | ("typeref", spec) | ("any",).  An object
# that cannot be named without importing a deferred module is left out: nothing can look it up
# before they are imported.

def resolve(spec):
    """The object ``spec`` names, or raise LookupError."""
    kind = spec[0]
    if kind == "str":
        return spec[1]
    if kind == "none":
        return None
    if kind == "obj":
        obj = importlib.import_module(spec[1])
        for part in spec[2].split("."):
            obj = getattr(obj, part)
        return obj
    if kind == "inst":
        from numba.core import types

        return getattr(types, spec[1])
    if kind == "any":  # a type the tables cannot name: matches everything (triggers more)
        from numba.core import types

        return types.Any
    if kind == "vararg":
        from numba.core import types

        return types.VarArg(resolve(spec[1]))
    if kind == "typeref":
        from numba.core import types

        return types.TypeRef(resolve(spec[1]))
    raise LookupError(spec)


def spec_of(obj):
    """The spec naming ``obj`` (for the tables' test), or None."""
    from numba.core import types

    if isinstance(obj, str):
        return ("str", obj)
    if obj is None:
        return ("none",)
    if isinstance(obj, types.VarArg):
        inner = spec_of(obj.dtype)
        return None if inner is None else ("vararg", inner)
    if isinstance(obj, types.TypeRef):
        inner = spec_of(obj.instance_type)
        return None if inner is None else ("typeref", inner)
    if isinstance(obj, types.Type):
        for name in dir(types):
            try:
                if getattr(types, name) is obj:
                    return ("inst", name)
            except Exception:  # noqa: BLE001 - lazy module attributes
                continue
        return None
    module = getattr(obj, "__module__", None)
    candidates = []
    if isinstance(module, str):
        candidates.append(module)
    candidates += [n for n in ("operator", "builtins", "numpy", "random", "math") if n not in candidates]
    for modname in candidates:
        if modname in DEFERRED_MODULES:
            continue
        mod = sys.modules.get(modname)
        if mod is None:
            continue
        qualname = getattr(obj, "__qualname__", None)
        if isinstance(qualname, str) and "<" not in qualname:
            try:
                if resolve(("obj", modname, qualname)) is obj:
                    return ("obj", modname, qualname)
            except Exception:  # noqa: BLE001
                pass
        for name, value in list(vars(mod).items()):
            try:
                if value is obj or (type(value) is type(obj) and value == obj):
                    return ("obj", modname, name)
            except Exception:  # noqa: BLE001
                continue
    return None


# ---- the registrations the deferred imports make (checked by the tests) ------------------------
from ._deferred_impls_table import ATTRIBUTES, LOWERING, TYPING_KEYS  # noqa: E402


class _Tables:
    """The tables with their objects resolved (once per process, at the eager point)."""

    def __init__(self):
        self.lowering = {}  # kind -> {key: [formal tuple, ...]}
        for kind, entries in LOWERING.items():
            table = self.lowering[kind] = {}
            for key_spec, sig_specs in entries:
                try:
                    key = resolve(key_spec)
                    formal = tuple(resolve(s) for s in sig_specs)
                except (LookupError, AttributeError, ImportError):
                    continue
                table.setdefault(key, []).append(formal)
        self.typing_keys = set()
        self.typing_key_ids = set()
        for spec in TYPING_KEYS:
            try:
                key = resolve(spec)
            except (LookupError, AttributeError, ImportError):
                continue
            try:
                self.typing_keys.add(key)
            except TypeError:
                pass
            self.typing_key_ids.add(id(key))
        self.attributes = []  # (class or TypeRef instance, frozenset of names or None = any)
        for spec, names in ATTRIBUTES:
            try:
                owner = resolve(spec)
            except (LookupError, AttributeError, ImportError):
                continue
            self.attributes.append((owner, None if "*" in names else frozenset(names)))
        self.models = []
        for modname, name in DEFERRED_MODELS:
            self.models.append(getattr(importlib.import_module(modname), name))


_tables = None


def tables():
    global _tables
    if _tables is None:
        _tables = _Tables()
    return _tables


def attribute_is_deferred(typ, attr):
    """Could a deferred attribute template answer ``typ.attr``?"""
    from numba.core import types

    for owner, names in tables().attributes:
        if names is not None and attr not in names:
            continue
        if isinstance(owner, types.Type):
            if typ == owner:
                return True
        elif isinstance(owner, type) and isinstance(typ, owner):
            return True
    return False


def model_is_deferred(fe_type):
    return any(isinstance(fe_type, cls) for cls in tables().models)


# ---- per-context state -----------------------------------------------------------------------
_LOWERING_KINDS = ("functions", "getattrs", "setattrs", "casts", "constants")


class Deferral:
    """The deferred modules' state for one CUDA target context (and its typing context)."""

    def __init__(self, targetctx):
        self.targetctx = targetctx
        self.pending = True
        self.loading = False
        self.suppress_refresh = False
        self.snapshot = None
        self._decisions = {}

    # -- the eager point
    def take_snapshot(self):
        """What the contexts hold at the eager point: where the deferred registrations go."""
        ctx = self.targetctx
        typingctx = ctx.typing_context
        t = tables()
        typing_globals = {}
        for key in list(t.typing_keys):
            ty = typingctx._lookup_global(key)
            if ty is not None:
                typing_globals[id(key)] = (key, tuple(getattr(ty, "templates", ()) or ()), ty)
        self.snapshot = {
            "functions": {k: len(s.versions) for k, s in ctx._defns.items()},
            "getattrs": {k: len(s.versions) for k, s in ctx._getattrs.items()},
            "setattrs": {k: len(s.versions) for k, s in ctx._setattrs.items()},
            "casts": len(ctx._casts.versions),
            "constants": len(ctx._get_constants.versions),
            "typing_functions": {k: len(v) for k, v in typingctx._functions.items()},
            "typing_attributes": {k: len(v) for k, v in typingctx._attributes.items()},
            "typing_globals": typing_globals,
        }

    # -- triggers
    def lowering_needs(self, kind, selector, key, actual):
        """Must the deferred modules be installed before ``selector`` answers ``actual``?"""
        if self.loading:
            return False
        if any_imported():
            return True
        formals = tables().lowering[kind].get(key)
        if not formals:
            return False
        memo = (kind, key, actual)
        try:
            answer = self._decisions.get(memo)
        except TypeError:
            return True
        if answer is None:
            answer = self._decisions[memo] = _lowering_needs(selector, formals, actual)
        return answer

    def typing_key_has_new_templates(self, typingctx, key):
        """Were templates installed for the typing key ``key`` since the eager point?"""
        snap = self.snapshot
        entry = snap["typing_globals"].get(id(key))
        current = typingctx._lookup_global(key)
        if entry is None:
            if current is not None:
                return True
        elif current is not entry[2]:
            return True
        try:
            functions = typingctx._functions.get(key)
        except TypeError:
            return False
        if functions is not None and len(functions) != snap["typing_functions"].get(key, 0):
            return True
        return False

    # -- the load
    def load(self):
        """Import the deferred modules and install their registrations where the eager import
        put them."""
        if not self.pending or self.loading:
            return
        from numba.core import imputils
        from numba.core.typing import templates

        ctx = self.targetctx
        typingctx = ctx.typing_context
        if self.snapshot is None:
            self.take_snapshot()
        self.loading = True
        try:
            ctx.refresh()  # everything registered so far goes in first, after the eager point
            # No refresh from here on: the method/attribute templates installed below register
            # their lowering when made (and ask for a refresh), as they did at the eager point;
            # that lowering goes where theirs went then, with the modules' own.
            self.suppress_refresh = True
            import_all()
            loader = typingctx._registries.get(templates.builtin_registry)
            if loader is not None:
                functions = list(loader.new_registrations("functions"))
                attributes = list(loader.new_registrations("attributes"))
                globals_ = list(loader.new_registrations("globals"))
                self._insert_typing(typingctx, functions, attributes, globals_)
            # the modules' own lowering (Numba's builtin registry), then what their templates
            # registered where Numba put it (the first registry of the context, a family's), in
            # the order the eager point installed them
            registries = [imputils.builtin_registry] + [r for r in ctx._registries
                                                        if r is not imputils.builtin_registry]
            new = {kind: [] for kind in _LOWERING_KINDS}
            for registry in registries:
                loader = ctx._registries.get(registry)
                if loader is not None:
                    for kind in _LOWERING_KINDS:
                        new[kind].extend(loader.new_registrations(kind))
            self._insert_lowering(ctx, new)
            self.pending = False
        finally:
            self.suppress_refresh = False
            self.loading = False
        forget = getattr(typingctx, "forget_answers", None)
        if forget is not None:
            forget()
        ctx.refresh()  # what installing the templates registered (their lowering)

    def _insert_lowering(self, ctx, new):
        snap = self.snapshot
        placed = {}

        def insert(selector, snapkey, position, sig, impl):
            index = position + placed.get(snapkey, 0)
            selector.versions.insert(index, (sig, impl))
            selector._cache.clear()
            placed[snapkey] = placed.get(snapkey, 0) + 1

        for impl, func, sig in new["functions"]:
            insert(ctx._defns[func], ("f", func), snap["functions"].get(func, 0), sig, impl)
        for impl, attr, sig in new["getattrs"]:
            insert(ctx._getattrs[attr], ("g", attr), snap["getattrs"].get(attr, 0), sig, impl)
        for impl, attr, sig in new["setattrs"]:
            insert(ctx._setattrs[attr], ("s", attr), snap["setattrs"].get(attr, 0), sig, impl)
        for impl, sig in new["casts"]:
            insert(ctx._casts, ("c",), snap["casts"], sig, impl)
        for impl, sig in new["constants"]:
            insert(ctx._get_constants, ("k",), snap["constants"], sig, impl)

    def _insert_typing(self, typingctx, functions, attributes, globals_):
        from numba.core import types

        snap = self.snapshot
        for_target = _target_filter(typingctx)
        placed = {}
        for ftcls in functions:
            if not for_target(ftcls):
                continue
            template = ftcls(typingctx)
            key = template.key
            position = snap["typing_functions"].get(key, 0) + placed.get(("f", key), 0)
            typingctx._functions[key].insert(position, template)
            placed[("f", key)] = placed.get(("f", key), 0) + 1
        for atcls in attributes:
            if not for_target(atcls):
                continue
            template = atcls(typingctx)
            key = template.key
            position = snap["typing_attributes"].get(key, 0) + placed.get(("a", key), 0)
            typingctx._attributes[key].insert(position, template)
            placed[("a", key)] = placed.get(("a", key), 0) + 1
        deferred_templates = {}
        order = []
        others = []
        for gv, gty in globals_:
            if isinstance(gty, types.Function):
                if id(gv) not in deferred_templates:
                    deferred_templates[id(gv)] = (gv, [])
                    order.append(id(gv))
                deferred_templates[id(gv)][1].extend(gty.templates)
            else:
                others.append((gv, gty))
        for ident in order:
            gv, added = deferred_templates[ident]
            current = typingctx._lookup_global(gv)
            entry = snap["typing_globals"].get(ident)
            at_eager_point = entry[1] if entry is not None and entry[0] is gv else ()
            if current is None:
                typingctx.insert_global(gv, types.Function(tuple(added)))
                continue
            now = tuple(getattr(current, "templates", ()) or ())
            if not isinstance(current, types.Function) or now[:len(at_eager_point)] != at_eager_point:
                # not the shape the eager point left: Numba's own augmenting
                newty = current.augment(types.Function(tuple(added)))
                if newty is None:
                    raise TypeError(f"cannot augment {current} with {added}")
            else:
                newty = types.Function(at_eager_point + tuple(added) + now[len(at_eager_point):])
            typingctx._remove_global(gv)
            typingctx._insert_global(gv, newty)
            if isinstance(current, types.Function) and isinstance(newty, types.Function):
                # a compile in progress holds ``current``: it is resolved as ``newty``
                replaced = typingctx.__dict__.setdefault("_replaced_functions", {})
                for old, new in list(replaced.items()):
                    if new is current:
                        replaced[old] = newty
                replaced[current] = newty
        for gv, gty in others:  # as Numba installs them
            existing = typingctx._lookup_global(gv)
            if existing is None:
                typingctx.insert_global(gv, gty)
            else:
                newty = existing.augment(gty)
                if newty is None:
                    raise TypeError(f"cannot augment {existing} with {gty}")
                typingctx._remove_global(gv)
                typingctx._insert_global(gv, newty)


def _target_filter(typingctx):
    """Numba's test of a template's target in ``BaseContext.install_registry``."""
    from numba.core import errors
    from numba.core.target_extension import get_local_target, resolve_target_str

    current_target = get_local_target(typingctx)

    def is_for_this_target(ftcls):
        metadata = getattr(ftcls, "metadata", None)
        if metadata is None:
            return True
        target_str = metadata.get("target")
        if target_str is None:
            return True
        try:
            ft_target = resolve_target_str(target_str)
        except errors.NonexistentTargetError:
            return False
        return current_target.inherits_from(ft_target)

    return is_for_this_target


def _lowering_needs(selector, formals, actual):
    """Would a deferred formal signature in ``formals`` change what ``selector`` picks for
    ``actual``?  Not when the pick without them is strictly more specific than each of them
    that matches (it keeps the lowest genericity, alone)."""
    matching = [f for f in formals if selector._match_arglist(f, actual)]
    if not matching:
        return False
    candidates = selector._select_compatible(actual)
    if not candidates:
        return True
    try:
        best = selector._best_signature(candidates)
    except Exception:  # noqa: BLE001 - ambiguous without them: let the full set decide
        return True
    for formal in matching:
        if not (selector._match_arglist(formal, best) and not selector._match_arglist(best, formal)):
            return True
    return False


def deferral_of(context):
    """The pending ``Deferral`` of a target context, or None."""
    deferral = getattr(context, "_deferral", None)
    if deferral is not None and deferral.pending:
        return deferral
    return None


def load_for(context):
    """Install the deferred modules in ``context`` (a CUDA target context) now, if pending."""
    deferral = deferral_of(context)
    if deferral is not None:
        deferral.load()


class LazyInlineWorker:
    """Stands for ``numba.core.inline_closurecall.InlineWorker`` in the inlining passes, which
    build one for every function but use it only to inline something: made (after the deferred
    modules are installed) on first use."""

    def __init__(self, state, *args, **kwargs):
        self._state = state
        self._args = args
        self._kwargs = kwargs
        self._worker = None

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        worker = self.__dict__.get("_worker")
        if worker is None:
            load_for(self._state.targetctx)
            from numba.core.inline_closurecall import InlineWorker, callee_ir_validator

            kwargs = dict(self._kwargs)
            if kwargs.pop("validator", False):
                kwargs["validator"] = callee_ir_validator
            worker = self._worker = InlineWorker(*self._args, **kwargs)
        return getattr(worker, name)


# ---- what the imports register (the tables' source; tests/compiler/test_deferred_impls.py) ----
def describe_registrations():
    """Import the deferred modules (not imported yet) and describe what they add to Numba's
    builtin registries: ``(tables, unnamed)``, ``tables`` in this module's table format and
    ``unnamed`` the keys that cannot be named without importing them (with their modules)."""
    from numba.core import imputils
    from numba.core.typing import templates

    assert not any_imported(), "the deferred modules are imported already"
    modules_before = set(sys.modules)
    lower, typing = imputils.builtin_registry, templates.builtin_registry
    before = {kind: len(getattr(lower, kind)) for kind in _LOWERING_KINDS}
    typing_before = {kind: len(getattr(typing, kind)) for kind in ("functions", "attributes", "globals")}
    import_all()
    unnamed = []
    lowering = {kind: [] for kind in _LOWERING_KINDS}
    for kind in _LOWERING_KINDS:
        seen = set()
        for entry in getattr(lower, kind)[before[kind]:]:
            if kind in ("casts", "constants"):
                key, sig = None, entry[1]
            else:
                key, sig = entry[1], entry[2]
            key_spec = spec_of(key)
            if key_spec is None:
                unnamed.append((kind, repr(key), getattr(key, "__module__", None)))
                continue
            sig_specs = tuple(spec_of(t) or ("any",) for t in sig)
            if (key_spec, sig_specs) not in seen:
                seen.add((key_spec, sig_specs))
                lowering[kind].append((key_spec, sig_specs))
    keys = []
    new_functions = typing.functions[typing_before["functions"]:]
    new_globals = typing.globals[typing_before["globals"]:]
    for obj in [t.key for t in new_functions] + [gv for gv, _ in new_globals]:
        spec = spec_of(obj)
        if spec is None:
            unnamed.append(("typing", repr(obj), getattr(obj, "__module__", None)))
        elif spec not in keys:
            keys.append(spec)
    attributes = {}
    for template in typing.attributes[typing_before["attributes"]:]:
        spec = spec_of(template.key)
        if spec is None:
            unnamed.append(("attribute", repr(template.key), getattr(template.key, "__module__", None)))
            continue
        names = attributes.setdefault(spec, set())
        attr = getattr(template, "_attr", None)
        if attr is not None:
            names.add(attr)
        else:
            names.update(n[len("resolve_"):] for n in dir(template) if n.startswith("resolve_"))
            if hasattr(template, "generic_resolve"):
                names.add("*")
    return ({"MODULES": tuple(sorted(set(sys.modules) - modules_before)),
             "LOWERING": lowering, "TYPING_KEYS": keys,
             "ATTRIBUTES": [(spec, tuple(sorted(names))) for spec, names in attributes.items()]},
            unnamed)
