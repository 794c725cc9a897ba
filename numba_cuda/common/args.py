"""``cuda.In``, ``cuda.Out``, ``cuda.InOut``: how a host array passed to a kernel travels.

This is ``numba.cuda.args``, where Numba and NVIDIA's numba-cuda keep these classes, and the
one place they are defined: the GPU target and the simulator both hand out these classes
(``cuda.In is numba.cuda.args.In`` with either), so ``isinstance`` checks and pickles do not
depend on the target in use.  The module imports nothing of the package.

A host (numpy) array passed to a kernel as is is copied to the device before the launch and
back after it (with a ``NumbaPerformanceWarning`` unless ``NUMBA_CUDA_WARN_ON_IMPLICIT_COPY=0``).
Wrapping it says which copies are needed, and silences the warning: ``In(a)`` copies to the
device only (the kernel's writes do not reach ``a``), ``Out(a)`` copies back only (the kernel
sees uninitialised memory), ``InOut(a)`` both.  Device arrays and objects exporting the CUDA
Array Interface are passed as they are, whatever the hint.  How each target makes the copies
is its own business (``numba_cuda.runtime.argpack`` on the GPU, the simulator's dispatcher).

``wrap_arg(value, default=InOut)`` returns ``value`` if it already is a hint, else
``default(value)`` (what kernel extensions call in ``prepare_args``).

``ParameterBinder(pyfunc)`` puts the arguments of one launch, ``kernel[grid, block](x, out=y)``,
in the order of the kernel's parameters with its defaults filled in, as Python binds a call of
``pyfunc`` -- and with Python's own ``TypeError`` when they do not fit.  Both targets bind with
it before typing the arguments, so the kernel they compile, look up, cache and launch only
ever sees positional arguments (see docs/user/launch-keywords.rst).
"""

__all__ = ["ArgHint", "In", "Out", "InOut", "wrap_arg", "ParameterBinder"]


class ArgHint:
    """Wraps a kernel argument (``value``) with the copies it needs."""

    copy_in = True
    copy_out = True

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"

    @property
    def _numba_type_(self):
        """A hinted argument has the Numba type of the array it wraps (what ``typeof`` asks)."""
        from numba.core import types
        from numba.core.typing.typeof import Purpose, typeof

        ty = typeof(self.value, Purpose.argument)
        if not isinstance(ty, types.Array):
            raise TypeError(f"cuda.{type(self).__name__} wraps an array argument, got {ty} "
                            f"(pass other values to the kernel as they are)")
        return ty


class In(ArgHint):
    """Copy to the device before the launch; not back."""

    copy_out = False


class Out(ArgHint):
    """Copy back to the host after the launch; not to the device before it."""

    copy_in = False


class InOut(ArgHint):
    """Copy to the device before the launch and back after it."""


def wrap_arg(value, default=InOut):
    """``value`` if it is a hint (an ``ArgHint``), else ``default(value)`` (``InOut`` when
    ``default`` is None)."""
    if isinstance(value, ArgHint):
        return value
    return (default if default is not None else InOut)(value)


#: ``co_flags`` bits of functions taking ``*args`` / ``**kwargs``
_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08


class ParameterBinder:
    """Binds a launch's ``(args, kwargs)`` to the parameters of ``pyfunc``: the full positional
    tuple, in parameter order, defaults included.

    ``arity`` is the number of positional arguments that need no binding (a call with exactly
    that many and no keywords is already in order), or -1 when every launch must be bound
    (keyword-only parameters or ``*args``).  The launch paths test it before calling the binder,
    so a launch without keywords or defaults costs one ``len``.

    Binding calls a function made once per kernel with ``pyfunc``'s parameters, defaults and
    name, which returns its arguments: Python itself checks the call, with its own messages
    (``k() got an unexpected keyword argument 'z'``, ``k() missing 1 required positional
    argument: 'out'``, ``k() got multiple values for argument 'x'``).  A default is bound as a
    value like any other argument: it is typed, converted to an eager signature's type, cached
    and launched as if the caller had passed it.
    """

    __slots__ = ("arity", "keyword_only", "_pyfunc", "_bind")

    def __init__(self, pyfunc):
        code = pyfunc.__code__
        plain = not code.co_kwonlyargcount and not code.co_flags & (_CO_VARARGS | _CO_VARKEYWORDS)
        self.arity = code.co_argcount if plain else -1
        #: names of the keyword-only parameters: the last ones of the bound tuple (a compiled
        #: kernel takes them as positional parameters; the simulator passes them by name)
        self.keyword_only = code.co_varnames[code.co_argcount:
                                             code.co_argcount + code.co_kwonlyargcount]
        self._pyfunc = pyfunc
        self._bind = None

    def __call__(self, args, kwargs):
        bind = self._bind
        if bind is None:
            bind = self._bind = _binding_function(self._pyfunc)
        return bind(*args, **kwargs)


def _binding_function(pyfunc):
    """A function with ``pyfunc``'s parameters, defaults and (qualified) name returning the
    positional tuple of its arguments."""
    import inspect

    empty = inspect.Parameter.empty
    signature = inspect.signature(pyfunc, follow_wrapped=False)
    returned = []
    for p in signature.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            raise TypeError(
                f"{pyfunc.__qualname__}() takes **{p.name}: a CUDA kernel's parameters are "
                "named in its signature (keyword arguments bind to them); remove **" + p.name)
        returned.append(("*" if p.kind is p.VAR_POSITIONAL else "") + p.name)
    bare = signature.replace(
        parameters=[p.replace(default=empty, annotation=empty)
                    for p in signature.parameters.values()],
        return_annotation=empty)
    namespace = {}
    # Only the parameter names (identifiers) reach the source; the defaults are set below.
    exec(f"def bind{bare}:\n    return ({', '.join(returned)}{',' if returned else ''})\n",
         namespace)
    bind = namespace["bind"]
    bind.__defaults__ = pyfunc.__defaults__
    bind.__kwdefaults__ = pyfunc.__kwdefaults__
    bind.__name__, bind.__qualname__ = pyfunc.__name__, pyfunc.__qualname__
    code = bind.__code__
    if hasattr(code, "co_qualname"):  # Python >= 3.11 names the function from its code
        bind.__code__ = code.replace(co_name=pyfunc.__name__, co_qualname=pyfunc.__qualname__)
    return bind
