"""NumPy reductions inside kernels, as functions and array methods: ``a.sum()``, ``np.sum(a)``,
``prod``, ``min``/``max`` (``amin``/``amax``), ``argmin``/``argmax``, ``all``/``any``,
``np.count_nonzero``, ``mean``, ``var``, ``std``, ``np.ptp`` and the NaN-ignoring ``np.nansum``,
``nanprod``, ``nanmin``, ``nanmax``, ``nanmean``, ``nanvar``, ``nanstd``, ``nanargmin``,
``nanargmax``.

Each reduces a whole array (any dimensions, any layout) to one value in the thread that calls
it, walking the array in C order (``a.flat``); none allocates, so none takes ``axis=``,
``out=`` or ``dtype=``.  Result types are NumPy's: the type NumPy gives the same reduction of a
one-element array of the same dtype (``int32.sum()`` is an int64, ``float32.mean()`` a float32,
``int8.mean()`` a float64, ``argmax`` an intp).  NumPy's rules for NaN hold (``max`` and
``argmax`` return the first NaN, the ``nan*`` functions skip NaNs, an all-NaN ``nanargmax``
raises), and so do its errors for empty arrays (``ValueError`` from ``min``/``max``/``argmin``/
``argmax``: reported with ``debug=True``, as every exception raised in a kernel).  Sums
accumulate in order, where NumPy sums float arrays pairwise: float sums and means may differ in
the last bits.  Complex arrays have ``sum``, ``prod``, ``mean``, ``var``, ``std``, ``all``,
``any``, ``count_nonzero`` (NumPy orders complex numbers for ``min``/``max``; these take real
and boolean arrays).

The functions are ``@overload`` s for the ``cuda`` target, typed and compiled by this
package's pipeline like any third-party overload.  The methods (``a.sum()``) are typed and
lowered here as calls of those functions, under keys of their own: an ``@overload_method`` of
``ndarray`` would share its lowering key with Numba's CPU ``@overload_method`` of the same
name (``(Array, "max")``), whose lowering Numba registers where this target finds it too.
"""

import warnings

import numpy as np
from numba.core import types
from numba.core.extending import overload
from numba.core.imputils import Registry as LoweringRegistry
from numba.core.typing.templates import AttributeTemplate, Registry as TypingRegistry, bound_function

# The function overloads register with Numba's global registries; the methods are here.
typing_registry = TypingRegistry()
lowering_registry = LoweringRegistry("numba_cuda.lang.numpy_reductions")

TARGET = "cuda"


def numpy_result(np_func, dtype):
    """The dtype NumPy gives ``np_func`` of a one-element array of ``dtype``."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(np_func(np.ones(1, dtype=dtype))).dtype


def _numba_type(dtype):
    from numba.np.numpy_support import from_dtype

    return from_dtype(dtype)


def _array(a, kinds="biufc"):
    """``a`` is an array whose dtype kind is one of ``kinds``."""
    if not isinstance(a, types.Array):
        return False
    from numba.np.numpy_support import as_dtype

    try:
        return as_dtype(a.dtype).kind in kinds
    except Exception:  # noqa: BLE001 - records, datetimes ...: not ours to reduce
        return False


#: name -> typer (argument types -> the implementation, a Python function), for every reduction.
TYPERS = {}


def _reduction(name, np_funcs=()):
    """Register the decorated typer as ``np.<name>`` (and ``np_funcs``); the ndarray methods
    of :data:`METHODS` call these functions (see the end of the module)."""

    def register(typer):
        TYPERS[name] = typer
        for fn in np_funcs:
            TYPERS[fn.__name__] = typer
        for fn in (getattr(np, name, None), *np_funcs):
            if fn is not None:
                overload(fn, target=TARGET)(typer)
        return typer

    return register


# ---- sums and products ---------------------------------------------------------------------


def _accumulating(np_func, skip_nan, product):
    def typer(a):
        if not _array(a):
            return None
        start = _numba_type(numpy_result(np_func, np.dtype(str(a.dtype))))(1 if product else 0)

        if product:
            def impl(a):
                acc = start
                for v in a.flat:
                    if skip_nan and v != v:
                        continue
                    acc *= v
                return acc
        else:
            def impl(a):
                acc = start
                for v in a.flat:
                    if skip_nan and v != v:
                        continue
                    acc += v
                return acc
        return impl

    return typer


_reduction("sum")(_accumulating(np.sum, False, False))
_reduction("prod")(_accumulating(np.prod, False, True))
_reduction("nansum")(_accumulating(np.nansum, True, False))
_reduction("nanprod")(_accumulating(np.nanprod, True, True))


# ---- extrema -------------------------------------------------------------------------------


def _extremum(largest, skip_nan, arg):
    what = ("argmax" if largest else "argmin") if arg else ("maximum" if largest else "minimum")
    if arg:
        empty = f"attempt to get {what} of an empty sequence"
    else:
        empty = f"zero-size array to reduction operation {what} which has no identity"

    def typer(a):
        if not _array(a, "biuf"):
            return None

        if skip_nan:
            def impl(a):
                if a.size == 0:
                    raise ValueError(empty)
                found = False
                best = a.flat[0]
                at = 0
                i = 0
                for v in a.flat:
                    if v == v and (not found or (v > best if largest else v < best)):
                        best = v
                        at = i
                        found = True
                    i += 1
                if arg:
                    if not found:
                        raise ValueError("All-NaN slice encountered")
                    return at
                return best  # all NaN: NaN, as NumPy (which warns)
        else:
            def impl(a):
                if a.size == 0:
                    raise ValueError(empty)
                best = a.flat[0]
                at = 0
                i = 0
                for v in a.flat:
                    if best != best:
                        break  # NaN wins, the first one
                    if v != v or (v > best if largest else v < best):
                        best = v
                        at = i
                    i += 1
                return at if arg else best
        return impl

    return typer


_reduction("max", (np.amax,))(_extremum(True, False, False))
_reduction("min", (np.amin,))(_extremum(False, False, False))
_reduction("argmax")(_extremum(True, False, True))
_reduction("argmin")(_extremum(False, False, True))
_reduction("nanmax")(_extremum(True, True, False))
_reduction("nanmin")(_extremum(False, True, False))
_reduction("nanargmax")(_extremum(True, True, True))
_reduction("nanargmin")(_extremum(False, True, True))


@_reduction("ptp")
def _ptp(a):
    if not _array(a, "iuf"):
        return None

    def impl(a):
        return np.max(a) - np.min(a)

    return impl


# ---- truth ---------------------------------------------------------------------------------


@_reduction("all")
def _all(a):
    if not _array(a):
        return None

    def impl(a):
        for v in a.flat:
            if not v:
                return False
        return True

    return impl


@_reduction("any")
def _any(a):
    if not _array(a):
        return None

    def impl(a):
        for v in a.flat:
            if v:
                return True
        return False

    return impl


@_reduction("count_nonzero")
def _count_nonzero(a):
    if not _array(a):
        return None

    def impl(a):
        n = 0
        for v in a.flat:
            if v:
                n += 1
        return n

    return impl


# ---- moments -------------------------------------------------------------------------------


def _mean(skip_nan):
    def typer(a):
        if not _array(a):
            return None
        acc_type = _numba_type(numpy_result(np.mean, np.dtype(str(a.dtype))))
        zero = acc_type(0)

        def impl(a):
            acc = zero
            n = 0
            for v in a.flat:
                if skip_nan and v != v:
                    continue
                acc += v
                n += 1
            return acc / acc_type(n) if n else acc_type(np.nan)

        return impl

    return typer


def _variance(skip_nan, root):
    np_func = np.std if root else np.var

    def typer(a):
        if not _array(a):
            return None
        mean_type = _numba_type(numpy_result(np.mean, np.dtype(str(a.dtype))))
        out_type = _numba_type(numpy_result(np_func, np.dtype(str(a.dtype))))
        zero_mean, zero = mean_type(0), out_type(0)
        is_complex = isinstance(a.dtype, types.Complex)

        def impl(a):
            acc = zero_mean
            n = 0
            for v in a.flat:
                if skip_nan and v != v:
                    continue
                acc += v
                n += 1
            if n == 0:
                return out_type(np.nan)
            mean = acc / mean_type(n)
            sq = zero
            for v in a.flat:
                if skip_nan and v != v:
                    continue
                d = v - mean
                if is_complex:
                    sq += d.real * d.real + d.imag * d.imag
                else:
                    sq += d * d
            var = sq / out_type(n)
            return np.sqrt(var) if root else var

        return impl

    return typer


_reduction("mean")(_mean(False))
_reduction("nanmean")(_mean(True))
_reduction("var")(_variance(False, False))
_reduction("std")(_variance(False, True))
_reduction("nanvar")(_variance(True, False))
_reduction("nanstd")(_variance(True, True))


# What this module provides, by name (the typing context's triggers read the same lists).
from .numpy_names import REDUCTION_FUNCTIONS as FUNCTIONS, REDUCTION_METHODS as METHODS  # noqa: E402

assert set(TYPERS) == set(FUNCTIONS), sorted(set(TYPERS) ^ set(FUNCTIONS))


# ---- ndarray methods: calls of the functions above -------------------------------------------


def _method_key(name):
    return f"numba_cuda.ndarray.{name}"


def _method_typer(name):
    function = getattr(np, name)

    @bound_function(_method_key(name))
    def resolve(self, ary, args, kws):
        if not _array(ary) or args or kws:
            return None  # no axis=, dtype=, out=: Numba's "unknown attribute" error follows
        fnty = self.context.resolve_value_type(function)
        sig = self.context.resolve_function_type(fnty, (ary,), {})
        return None if sig is None else sig.return_type(*args)

    return resolve


def _method_lowering(name):
    function = getattr(np, name)

    def lower_method(context, builder, sig, args):
        typingctx = context.typing_context
        fnty = typingctx.resolve_value_type(function)
        fsig = typingctx.resolve_function_type(fnty, (sig.args[0],), {})
        return context.get_function(fnty, fsig)(builder, args)

    return lower_method


class _ArrayReductionMethods(AttributeTemplate):
    key = types.Array


for _name in METHODS:
    setattr(_ArrayReductionMethods, f"resolve_{_name}", _method_typer(_name))
    lowering_registry.lower(_method_key(_name), types.Array)(_method_lowering(_name))
typing_registry.register_attr(_ArrayReductionMethods)
