"""How ``@cuda.jit`` objects pickle, on the real target and in the simulator alike.

A dispatcher (kernel or device function) pickles

* **by reference** when its Python function is importable under its own name and that name
  holds the dispatcher itself (``mymodule.add1`` defined with ``@cuda.jit`` at module level):
  the receiving process imports ``mymodule`` and gets *its* ``add1``, compiled code and all;
* **by value** otherwise (closures, functions of ``__main__``, dispatchers not bound to their
  name): the function is pickled with Numba's pickler (cloudpickle: code, globals it uses,
  closure cells), with the dispatcher's options and eager signatures, and rebuilt by the
  class's ``_rebuild(**states)``.  Within one process each dispatcher is rebuilt once: the
  same pickle loaded twice (one Dask task after another) gives the same object back, so its
  compiled kernels are reused.

CUDA ufuncs and gufuncs (``vectorize``/``guvectorize`` with ``target="cuda"``) pickle the same
way, with their signatures.  This module is neither compiler nor runtime: the simulator uses
it too.
"""

import importlib
import sys
import threading
import uuid
import weakref

from numba.core import serialize

_memo = weakref.WeakValueDictionary()
_memo_lock = threading.Lock()


def importable_name(obj, func):
    """``(module, qualname)`` of ``func`` when importing that name yields ``obj``; else None."""
    module_name = getattr(func, "__module__", None)
    qualname = getattr(func, "__qualname__", None)
    if not module_name or not qualname or module_name == "__main__" or "<locals>" in qualname:
        return None
    module = sys.modules.get(module_name)
    if module is None:
        return None
    found = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
        if found is None:
            return None
    return (module_name, qualname) if found is obj else None


def by_reference(module_name, qualname):
    """Unpickle a dispatcher pickled by reference: import the module, walk the qualname."""
    found = importlib.import_module(module_name)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def dispatcher_uuid(obj):
    """A process-unique id of ``obj``, given on first use (the original is its own memo entry)."""
    ident = getattr(obj, "_pickle_uuid", None)
    if ident is None:
        ident = str(uuid.uuid4())
        obj._pickle_uuid = ident
        with _memo_lock:
            _memo[ident] = obj
    return ident


def reduce_dispatcher(obj, states, func=None):
    """``__reduce__`` of a dispatcher whose class has ``_rebuild(uuid=..., **states)``;
    ``func`` is the Python function it wraps (default ``obj.py_func``)."""
    name = importable_name(obj, obj.py_func if func is None else func)
    if name is not None:
        return by_reference, name
    states = dict(states, uuid=dispatcher_uuid(obj))
    return serialize.custom_reduce(type(obj), states)


def rebuild_once(ident, make):
    """The dispatcher already rebuilt (or created) in this process under ``ident``, else
    ``make()``, remembered under ``ident``."""
    with _memo_lock:
        existing = _memo.get(ident)
    if existing is not None:
        return existing
    obj = make()
    obj._pickle_uuid = ident
    with _memo_lock:
        return _memo.setdefault(ident, obj)
