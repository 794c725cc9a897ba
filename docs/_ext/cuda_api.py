"""Sphinx extension: the API reference of ``numba.cuda``, generated from the export table.

``.. cuda-api:: COMPILER`` documents every name of that section of
``numba_cuda/_exports.py`` under its public spelling (``numba.cuda.jit``)
with the docstring and signature of the object that provides it.  A name
whose module does not exist yet (a planned feature) is listed as such, so the
reference never claims something that is not there.

Only the providing modules are imported: they load no CUDA library and need
no GPU (toolkit discovery and the driver are lazy).
"""

import importlib
import inspect
import types

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)


def _doc(obj):
    """The object's own docstring (not the generic one of its class), cleaned."""
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return ""
    own = isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType,
                           types.MethodType, property))
    if not own and doc is type(obj).__doc__:
        return ""
    return inspect.cleandoc(doc)


def _signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def _indent(text, prefix="   "):
    return [prefix + line if line.strip() else "" for line in text.splitlines()]


def resolve(module_name, name):
    """(object, None) or (None, why it is not available)."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        return None, f"{module_name} is not available ({exc})"
    if not hasattr(module, name):
        return None, f"{module_name} does not define {name}"
    return getattr(module, name), None


def document(public, obj, module_name):
    """reST lines documenting ``obj`` as ``public``."""
    lines = []
    if isinstance(obj, type):
        lines.append(f".. py:class:: {public}{_signature(obj)}")
        lines.append("")
        lines += _indent(_doc(obj))
        for attr, member in sorted(vars(obj).items()):
            if attr.startswith("_"):
                continue
            if isinstance(member, property):
                lines += ["", f"   .. py:property:: {attr}", ""] + _indent(_doc(member.fget) if member.fget else "", "      ")
            elif inspect.isfunction(member) or isinstance(member, (classmethod, staticmethod)):
                func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
                sig = _signature(func)
                if not isinstance(member, staticmethod):
                    sig = sig.replace("(self, ", "(", 1).replace("(self)", "()", 1).replace("(cls, ", "(", 1).replace("(cls)", "()", 1)
                lines += ["", f"   .. py:method:: {attr}{sig}", ""] + _indent(_doc(func), "      ")
    elif inspect.isfunction(obj) or inspect.isbuiltin(obj):
        lines.append(f".. py:function:: {public}{_signature(obj)}")
        lines.append("")
        lines += _indent(_doc(obj))
    elif isinstance(obj, types.ModuleType):
        lines.append(f".. py:data:: {public}")
        lines.append("")
        lines += _indent(_doc(obj))
        for attr, member in sorted(vars(obj).items()):
            if attr.startswith("_"):
                continue
            lines += ["", f"   .. py:data:: {public}.{attr}", "      :no-index:", ""] + _indent(_doc(member), "      ")
    else:
        directive = "py:function" if callable(obj) else "py:data"
        lines.append(f".. {directive}:: {public}")
        lines.append("")
        lines += _indent(_doc(obj))
    lines += ["", f"   *Provided by* ``{module_name}``.", ""]
    return lines


def table_for(section):
    """(public prefix, {name: providing module}) for a section of the export table.

    ``ERRORS`` is every exception class of :mod:`numba_cuda.errors`, in the
    order they are defined.
    """
    if section == "ERRORS":
        errors = importlib.import_module("numba_cuda.errors")
        names = [name for name, obj in vars(errors).items()
                 if isinstance(obj, type) and issubclass(obj, errors.CudaError)]
        return "numba_cuda.errors", {name: "numba_cuda.errors" for name in names}
    return "numba.cuda", dict(getattr(importlib.import_module("numba_cuda._exports"), section))


def typed_kernel_names(names):
    """The kernel-language names the CUDA compiler can type, or None if that cannot be told.

    A kernel-language object exists as a Python stub before its typing and
    lowering land; only names the compiler's typing context resolves (as a
    value, or as an attribute of the ``numba.cuda`` module) are usable.
    """
    try:
        from numba.core import types

        import numba_cuda
        import numba_cuda.lang.stubs as stubs
        from numba_cuda.compiler.typing_context import CUDATypingContext

        context = CUDATypingContext()
        context.refresh()
        module_type = types.Module(numba_cuda)
    except Exception as exc:  # noqa: BLE001 - the docs must build whatever state the compiler is in
        logger.info(f"cuda-api: the CUDA typing context is not available ({exc}); "
                    f"every kernel-language stub is documented")
        return None
    typed = set()
    for name in names:
        obj = getattr(stubs, name, None)
        if obj is None:
            continue
        for resolve in (lambda: context.resolve_value_type(obj),
                        lambda: context.resolve_getattr(module_type, name)):
            try:
                if resolve() is not None:
                    typed.add(name)
                    break
            except Exception:  # noqa: BLE001 - "cannot type" in whatever form
                continue
    return typed


class CudaApiDirective(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self):
        section = self.arguments[0]
        prefix, table = table_for(section)
        lines, planned = [], []
        typed = typed_kernel_names(table) if section == "KERNEL_LANGUAGE" else None
        for name in table:  # the table's own order, which groups related names
            obj, why = resolve(table[name], name)
            if obj is not None and typed is not None and name not in typed:
                obj, why = None, "the compiler cannot type it yet"
            if obj is None:
                planned.append((name, why))
                logger.info(f"cuda-api: {prefix}.{name}: {why}")
                continue
            lines += document(f"{prefix}.{name}", obj, table[name])
        if planned:
            lines += [".. rubric:: Planned, not available in this version", ""]
            for name, _why in planned:
                lines.append(f"* ``{prefix}.{name}``")
            lines.append("")
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source=f"<cuda-api {section}>"), container)
        return container.children


def setup(app):
    app.add_directive("cuda-api", CudaApiDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
