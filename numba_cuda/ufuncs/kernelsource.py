"""Python source of the kernels behind CUDA ufuncs, turned into functions.

The number of arguments, the loop rank and which arguments are scalars vary per call shape, so
kernels are generated as source text and executed once per shape.  The source is registered in
``linecache`` under a descriptive file name so that tracebacks, compiler error messages and the
simulator (which rewrites kernels from their source) can see it.

Names inside generated kernels: ``__cuda__`` (the kernel-language module of the backend),
``__core__`` (the user's function compiled as a device function), ``__cast<k>`` (the Numba type
of input ``k`` in the selected signature, used as a conversion).
"""

import itertools
import linecache
import re

_counter = itertools.count()


def identifier(text):
    """``text`` made a valid Python identifier (``<lambda>`` -> ``_lambda_``)."""
    return re.sub(r"\W", "_", text)


def make_function(source, name, namespace, what):
    """Execute ``source`` (defining ``name``) with ``namespace`` as globals; return the function."""
    filename = f"<numba-cuda {what} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    namespace = dict(namespace)
    exec(code, namespace)
    return namespace[name]


def _unravel(lines, index, shape_of, ndim, indent):
    """Lines computing ``i0 .. i{ndim-1}`` from the flat C-order ``index`` over ``shape_of``."""
    if ndim == 1:
        lines.append(f"{indent}i0 = {index}")
        return
    lines.append(f"{indent}rest = {index}")
    for axis in range(ndim - 1, 0, -1):
        lines.append(f"{indent}i{axis} = rest % {shape_of}.shape[{axis}]")
        lines.append(f"{indent}rest = rest // {shape_of}.shape[{axis}]")
    lines.append(f"{indent}i0 = rest")


def elementwise_source(name, nin, ndim, scalars):
    """Kernel ``name(x0, ..., x{nin-1}, out)``: one thread per element of ``out`` (``ndim``
    dimensions, C order); ``scalars`` are the input positions passed as scalars."""
    params = ", ".join([f"x{k}" for k in range(nin)] + ["out"])
    index = "t" if ndim == 1 else ", ".join(f"i{a}" for a in range(ndim))
    operands = ", ".join(
        f"__cast{k}(x{k})" if k in scalars else f"__cast{k}(x{k}[{index}])" for k in range(nin)
    )
    lines = [f"def {name}({params}):",
             "    t = __cuda__.grid(1)",
             "    if t < out.size:"]
    if ndim > 1:
        _unravel(lines, "t", "out", ndim, "        ")
    lines.append(f"        out[{index}] = __core__({operands})")
    return "\n".join(lines) + "\n"


def gufunc_source(name, kinds, outer_ndim):
    """Kernel ``name(a0, ..., a{n-1}, count)``: one thread per index of the loop (outer)
    dimensions, calling ``__core__`` on each argument's slice there.

    ``kinds[k]`` says what argument ``k`` passes to the core function: ``"array"`` (the view of
    its core dimensions), ``"scalar"`` (its element) or ``"cell"`` (a 1-element 1-D view, for
    ``()`` core dimensions declared as 1-D arrays).  Every argument has the loop dimensions
    first; the shape of the last one (an output) drives the unravelling.
    """
    nargs = len(kinds)
    params = ", ".join([f"a{k}" for k in range(nargs)] + ["count"])
    lead = [f"i{a}" for a in range(outer_ndim)]
    full = ", ".join(lead)
    cell = ", ".join(lead[:-1] + [f"{lead[-1]}:{lead[-1]} + 1"])
    operands = []
    for k, kind in enumerate(kinds):
        operands.append(f"a{k}[{cell}]" if kind == "cell" else f"a{k}[{full}]")
    lines = [f"def {name}({params}):",
             "    t = __cuda__.grid(1)",
             "    if t < count:"]
    _unravel(lines, "t", f"a{nargs - 1}", outer_ndim, "        ")
    lines.append(f"        __core__({', '.join(operands)})")
    return "\n".join(lines) + "\n"


def reduction_source(name, block):
    """Kernel ``name(src, out, init, apply_init)``: each block folds a grid-stride share of
    ``src`` (1-D) with ``__core__``, then a tree in shared memory; thread 0 writes the block's
    value to ``out[blockIdx.x]`` (combined with ``init`` first when ``apply_init``).
    ``block`` (a power of two) must equal the launch's threads per block."""
    return f"""def {name}(src, out, init, apply_init):
    cache = __cuda__.shared.array({block}, __dtype__)
    tid = __cuda__.threadIdx.x
    first = __cuda__.blockIdx.x * {block}
    start = first + tid
    stride = __cuda__.gridDim.x * {block}
    n = src.size
    if start < n:
        acc = src[start]
        j = start + stride
        while j < n:
            acc = __core__(acc, src[j])
            j += stride
        cache[tid] = acc
    __cuda__.syncthreads()
    valid = n - first
    if valid > {block}:
        valid = {block}
    step = {block // 2}
    while step > 0:
        if tid < step and tid + step < valid:
            cache[tid] = __core__(cache[tid], cache[tid + step])
        __cuda__.syncthreads()
        step //= 2
    if tid == 0:
        if apply_init:
            out[__cuda__.blockIdx.x] = __core__(init, cache[0])
        else:
            out[__cuda__.blockIdx.x] = cache[0]
"""
