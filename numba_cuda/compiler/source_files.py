"""How the compiler reads the kernel's source file: for the ``def`` line of a function (debug
line information) and for the file name in error messages.  Two of Numba's helpers fail where
Python itself does not; the compiler works around them here:

* Numba's ``get_func_body_first_lineno`` (used for ``debug=True``/``lineinfo=True``) opens the
  source file in the locale's encoding: a UTF-8 source with non-ASCII text under ``LC_ALL=C``
  raised ``UnicodeDecodeError``.  :func:`def_line` (the line debug information gives the
  function) reads it as Python does (the PEP 263 coding declaration, else UTF-8), through
  ``inspect``/``linecache``.
* Numba's ``Loc`` shows a file relative to the working directory (``os.path.relpath``), which
  raises ``FileNotFoundError`` when the working directory has been deleted; Numba formats such
  messages while *typing* code that compiles (``a.size``, ``math.sin`` try templates that fail
  first), so every such kernel failed to compile.  :func:`tolerating_a_missing_cwd` shows the
  absolute path instead for the time of a compile, when (and only when) the working directory
  is gone.
"""

import ast
import contextlib
import inspect
import os
import textwrap
import tokenize

from numba.core import ir


def _function_node(fn):
    """(the ``ast.FunctionDef`` of ``fn``, the file line of its source's first line), or None
    when its source cannot be found (or ``fn`` is a lambda)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    try:
        lines, start = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, UnicodeDecodeError, tokenize.TokenError):
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or node.name != code.co_name:
            continue
        # the function whose ``def`` (or first decorator) is at ``co_firstlineno``
        starts = {node.lineno}
        if node.decorator_list:
            starts.add(node.decorator_list[0].lineno)
        if code.co_firstlineno not in {start + line - 1 for line in starts}:
            continue
        return node, start
    return None


def def_line(fn):
    """The line of ``fn``'s ``def`` keyword -- not its first decorator's (``co_firstlineno``),
    nor the line before its first statement (comments, a signature over several lines) -- or
    None when its source cannot be found (or ``fn`` is a lambda)."""
    found = _function_node(fn)
    if found is None:
        return None
    node, start = found
    return start + node.lineno - 1


def _recorded_path(loc):
    return loc.filename


@contextlib.contextmanager
def tolerating_a_missing_cwd():
    """While compiling: when the working directory no longer exists, Numba's source locations
    name files by their path as recorded (absolute for imported modules) instead of failing."""
    try:
        os.getcwd()
    except FileNotFoundError:
        pass
    else:
        yield
        return
    original = ir.Loc._get_path
    ir.Loc._get_path = _recorded_path
    try:
        yield
    finally:
        ir.Loc._get_path = original
