"""Random small kernels for the compiled mode's differential test (test_compiled_differential.py).

:func:`make_case` builds, from a seed, the source of one kernel of a given family and its inputs:

* ``elementwise``: one thread per element, a dozen random expressions stored into output arrays
  of random element types;
* ``gridstride``: the same inside a grid-stride ``while`` loop, plus a ``for`` loop accumulating
  over neighbours;
* ``atomic``: random ``cuda.atomic.*`` operations on small arrays of their supported types, the
  old values kept;
* ``stencil``: a shared tile loaded, a barrier, neighbours combined, a second barrier, the tile
  reversed;
* ``error``: an elementwise kernel with an index that may leave the array, or a ``raise``, after
  some stores.

Expressions mix every integer width (``np.int8`` ... ``np.uint64`` constants and arrays, so
arithmetic wraps), float32 and float64 (infinities, NaNs, signed zeros, subnormals, values past
the integer ranges), ``/``, ``//`` and ``%`` by zero, shifts by any count (negative, 64 and more),
bit operations, comparisons, conditional expressions, ``min``/``max``/``abs``, conversions
(``int()``, ``np.int16(x)``, ``float32(x)``, ``math.floor`` ...), ``math.sqrt``, and stores that
convert (a float into an integer array saturates).  The generator tracks whether an expression is
an integer, a float or a bool, so what it writes type-checks in Numba (bit operations and shifts
on integers only); everything else about the types is left to the two simulators to agree on.
"""

import random

import numpy as np

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
N = 48          # elements per input array
THREADS = (2, 32)  # grid, block: 64 threads, some past the arrays' end


def _int_values(rng, dtype, n):
    info = np.iinfo(dtype)
    special = [0, 1, info.max, info.min, info.max - 1, info.min + 1, 2, 7]
    if info.min < 0:
        special += [-1, -2, -7]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            out.append(rng.choice(special))
        elif r < 0.7:
            out.append(rng.randint(-8 if info.min < 0 else 0, 70))  # shift counts, small values
        else:
            out.append(rng.randint(int(info.min), int(info.max)))
    return np.array(out, dtype=dtype)


def _float_values(rng, dtype, n):
    finfo = np.finfo(dtype)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, float("inf"), float("-inf"), float("nan"),
               float(finfo.max), float(finfo.tiny) / 4, 2.0 ** 31, -2.0 ** 31 - 1, 2.0 ** 63,
               2.0 ** 64 + 2.0 ** 40, -1e20, 255.5, 65535.9, -0.7, 1e-30]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            out.append(rng.choice(special))
        elif r < 0.7:
            out.append(rng.uniform(-100, 100))
        else:
            out.append(rng.uniform(-1, 1) * 10.0 ** rng.randint(-40, 40))
    with np.errstate(over="ignore"):
        return np.array(out, dtype=np.float64).astype(dtype)


def values(rng, dtype, n=N):
    return _int_values(rng, dtype, n) if dtype in INTS else _float_values(rng, dtype, n)


class ExprGen:
    """Random expressions over named operands, each with its kind: 'i' integer, 'f' float,
    'b' bool."""

    def __init__(self, rng, operands, max_depth=3):
        self.rng = rng
        self.operands = operands  # [(source, kind)]
        self.max_depth = max_depth

    def leaf(self, kind=None):
        rng = self.rng
        choices = [o for o in self.operands if kind is None or o[1] == kind]
        r = rng.random()
        if choices and r < 0.6:
            return rng.choice(choices)
        if kind == "b":
            return rng.choice(["True", "False"]), "b"
        if kind == "f" or (kind is None and rng.random() < 0.4):
            value = rng.choice(["0.5", "3.0", "-1.5", "1e10", "0.0", "-0.0", "2.0 ** 40"])
            ty = rng.choice(["", "np.float32", "float32", "np.float64"])
            return (f"{ty}({value})" if ty else f"({value})"), "f"
        value = rng.choice(["0", "1", "2", "3", "7", "-1", "-9", "31", "63", "64", "65", "255",
                            "2147483647", "-2147483648", "65536"])
        ty = rng.choice(["", "", "np.int8", "np.uint8", "np.int16", "np.uint16", "np.int32",
                         "np.uint32", "np.int64", "np.uint64", "int32", "uint64"])
        return (f"{ty}({value})" if ty else f"({value})"), "i"

    def expr(self, depth=0, kind=None):
        rng = self.rng
        if depth >= self.max_depth or rng.random() < 0.25:
            e = self.leaf(kind)
            if kind is None or e[1] == kind:
                return e
        r = rng.random()
        if kind == "b" or (kind is None and r < 0.1):
            a, _ = self.expr(depth + 1)
            b, _ = self.expr(depth + 1)
            op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
            return f"({a} {op} {b})", "b"
        if r < 0.45:
            a, ka = self.expr(depth + 1)
            b, kb = self.expr(depth + 1)
            op = rng.choice(["+", "-", "*", "/", "//", "%"])
            if op == "/" or "f" in (ka, kb):
                kind_out = "f"
            else:
                kind_out = "i"
            return self._wanted(f"({a} {op} {b})", kind_out, kind, depth)
        if r < 0.62:
            a, b = self._int_operand(depth), self._int_operand(depth)
            op = rng.choice(["&", "|", "^", "<<", ">>"])
            return self._wanted(f"({a} {op} {b})", "i", kind, depth)
        if r < 0.72:
            a, ka = self.expr(depth + 1)
            fn = rng.choice(["-", "abs", "~", "min", "max"])
            if fn == "~":
                a = self._int_operand(depth)
                return self._wanted(f"(~{a})", "i", kind, depth)
            if fn in ("min", "max"):
                b, kb = self.expr(depth + 1, ka)
                return self._wanted(f"{fn}({a}, {b})", ka if ka != "b" else "i", kind, depth)
            if fn == "-":
                return self._wanted(f"(-{a})", ka if ka != "b" else "i", kind, depth)
            return self._wanted(f"abs({a})", ka if ka != "b" else "i", kind, depth)
        if r < 0.88:
            a, ka = self.expr(depth + 1)
            conv = rng.choice(INTS + ["int", "float32", "float64", "floor", "ceil", "trunc",
                                      "sqrt", "float"])
            if conv in ("floor", "ceil", "trunc", "sqrt"):
                a, _ = self.expr(depth + 1, "f")
                # the CUDA target's typing: a float stays a float
                return self._wanted(f"math.{conv}({a})", "f", kind, depth)
            if conv == "int":
                return self._wanted(f"int({a})", "i", kind, depth)
            if conv in ("float32", "float64", "float"):
                # float(bool) does not type in Numba (GPU or CPU)
                spelled = "float" if conv == "float" and ka != "b" else f"np.{conv}"
                return self._wanted(f"{spelled}({a})", "f", kind, depth)
            return self._wanted(f"np.{conv}({a})", "i", kind, depth)
        c, _ = self.expr(depth + 1, "b")
        a, ka = self.expr(depth + 1)
        b, _ = self.expr(depth + 1, ka)
        return self._wanted(f"({a} if {c} else {b})", ka if ka != "b" else "i", kind, depth)

    def _int_operand(self, depth):
        """An integer operand of a bit operation: mixing uint64 with a signed integer makes a
        float64 in Numba's typing, so a compound one is converted to an integer type."""
        src, _ = self.expr(depth + 1, "i")
        if src.startswith("(") and self.rng.random() < 0.9:
            cast = self.rng.choice(["np.int64", "np.uint64", "np.int32", "np.uint32", "np.int8",
                                    "np.uint16", "int"])
            src = f"{cast}({src})"
        return src

    def _wanted(self, src, got, kind, depth):
        if kind is None or got == kind:
            return src, got
        if kind == "f":
            return f"np.float64({src})", "f"
        if kind == "i":
            return f"np.int64({src})" if got == "b" else f"int({src})", "i"
        return f"({src} > 0)", "b"


def _header():
    return "import math\nimport numpy as np\nfrom numba import float32, int32, uint64\n" \
           "from numba_cuda.simulator import api as cuda\n\n\n"


def _inputs(rng, count):
    dtypes = [rng.choice(INTS + FLOATS) for _ in range(count)]
    return dtypes, [values(rng, d) for d in dtypes]


def elementwise(rng, name, seed, nexpr=12):
    dtypes, arrays = _inputs(rng, 3)
    operands = [(f"{p}[i]", "f" if d in FLOATS else "i") for p, d in zip("abc", dtypes)]
    operands += [("i", "i")]
    gen = ExprGen(rng, operands)
    outs = [rng.choice(INTS + FLOATS) for _ in range(nexpr)]
    params = ", ".join(f"o{k}" for k in range(nexpr))
    body = [f"def {name}(a, b, c, {params}):", "    i = cuda.grid(1)", "    if i < a.size:"]
    body += [f"        o{k}[i] = {gen.expr()[0]}" for k in range(nexpr)]
    src = "\n".join(body)
    outputs = [np.zeros(N, d) for d in outs]
    return src + "\n", arrays + outputs, THREADS


def gridstride(rng, name, seed, nexpr=6):
    dtypes, arrays = _inputs(rng, 2)
    operands = [(f"{p}[i]", "f" if d in FLOATS else "i") for p, d in zip("ab", dtypes)]
    operands += [("i", "i"), ("acc", "f" if dtypes[0] in FLOATS else "i")]
    gen = ExprGen(rng, operands)
    acc_type = "np.float64" if dtypes[0] in FLOATS else ("np.uint64" if dtypes[0] == "uint64"
                                                         else "np.int64")
    outs = [rng.choice(INTS + FLOATS) for _ in range(nexpr)]
    reach = rng.randint(1, 4)
    params = ", ".join(f"o{k}" for k in range(nexpr))
    lines = [f"def {name}(a, b, {params}):", "    i = cuda.grid(1)", "    stride = cuda.gridsize(1)",
             "    while i < a.size:", f"        acc = {acc_type}(0)",
             f"        for j in range({reach}):", "            acc += a[(i + j) % a.size]"]
    for k in range(nexpr):
        e, _ = gen.expr()
        lines.append(f"        o{k}[i] = {e}")
    lines.append("        i += stride")
    outputs = [np.zeros(N, d) for d in outs]
    grid = (rng.choice([1, 2]), rng.choice([8, 16, 32]))  # fewer threads than elements
    return "\n".join(lines) + "\n", arrays + outputs, grid


_ATOMIC_TYPES = {
    "add": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "sub": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "max": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "min": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "nanmax": ["float32", "float64"],
    "nanmin": ["float32", "float64"],
    "and_": ["int32", "uint32", "int64", "uint64"],
    "or_": ["int32", "uint32", "int64", "uint64"],
    "xor": ["int32", "uint32", "int64", "uint64"],
    "exch": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "inc": ["uint32", "uint64"],
    "dec": ["uint32", "uint64"],
    "cas": ["int32", "uint32", "int64", "uint64"],
}


def atomic(rng, name, seed, nops=6):
    dtypes, arrays = _inputs(rng, 2)
    operands = [(f"{p}[i]", "f" if d in FLOATS else "i") for p, d in zip("ab", dtypes)]
    operands += [("i", "i")]
    gen = ExprGen(rng, operands, max_depth=2)
    params, outputs, body = [], [], []
    for k in range(nops):
        op = rng.choice(sorted(_ATOMIC_TYPES))
        dt = rng.choice(_ATOMIC_TYPES[op])
        bins = rng.choice([1, 3, 8])
        params += [f"h{k}", f"old{k}"]
        outputs += [values(rng, dt, bins), np.zeros(N, dt)]
        idx = f"np.int64({gen.expr(kind='i')[0]}) % {bins}" if rng.random() < 0.5 else f"i % {bins}"
        val, _ = gen.expr()
        if op == "cas":
            cmp_, _ = gen.expr()
            call = f"cuda.atomic.cas(h{k}, {idx}, {cmp_}, {val})"
        else:
            call = f"cuda.atomic.{op}(h{k}, {idx}, {val})"
        body.append(f"        old{k}[i] = {call}")
    lines = [f"def {name}(a, b, {', '.join(params)}):", "    i = cuda.grid(1)", "    if i < a.size:"]
    return "\n".join(lines + body) + "\n", arrays + outputs, THREADS


def stencil(rng, name, seed):
    dtypes, arrays = _inputs(rng, 1)
    tile_t = rng.choice(INTS + FLOATS)
    out_t = rng.choice(INTS + FLOATS)
    kind = "f" if tile_t in FLOATS else "i"
    tpb = THREADS[1]
    load, _ = ExprGen(rng, [("a[i]", "f" if dtypes[0] in FLOATS else "i"), ("t", "i")], 2).expr()
    gen = ExprGen(rng, [("tile[t]", kind), ("tile[(t + 1) % TPB]", kind),
                        ("tile[TPB - 1 - t]", kind), ("i", "i")], 2)
    combine, _ = gen.expr()
    again, _ = ExprGen(rng, [("tile[TPB - 1 - t]", kind), ("v", "f" if out_t in FLOATS else "i")],
                       2).expr()
    lines = [f"TPB = {tpb}", "", "",
             f"def {name}(a, o, p):",
             f"    tile = cuda.shared.array(TPB, np.{tile_t})",
             "    i = cuda.grid(1)",
             "    t = cuda.threadIdx.x",
             "    if i < a.size:",
             f"        tile[t] = {load}",
             "    cuda.syncthreads()",
             "    v = o[0]",
             "    if i < a.size:",
             f"        o[i] = {combine}",
             "        v = o[i]",
             "    cuda.syncthreads()",
             "    tile[t] = v",
             "    cuda.syncthreads()",
             "    if i < a.size:",
             f"        p[i] = {again}"]
    outputs = [np.zeros(N, out_t), np.zeros(N, rng.choice(INTS + FLOATS))]
    return "\n".join(lines) + "\n", arrays + outputs, THREADS


def error(rng, name, seed):
    dtypes, arrays = _inputs(rng, 2)
    operands = [(f"{p}[i]", "f" if d in FLOATS else "i") for p, d in zip("ab", dtypes)]
    operands += [("i", "i")]
    gen = ExprGen(rng, operands, max_depth=2)
    e1, _ = gen.expr()
    e2, _ = gen.expr()
    which = ["raise", "read", "negative", "write"][seed % 4]
    at = rng.randint(0, N + 10)
    lines = [f"def {name}(a, b, o, p):", "    i = cuda.grid(1)", "    if i < a.size:",
             f"        o[i] = {e1}"]
    if which == "read":
        lines.append(f"        p[i] = {e2} + a[i + {N - at}]")  # out of bounds for some threads
    elif which == "write":
        lines.append(f"        p[i + {N - at}] = {e2}")
    elif which == "negative":  # a negative index wraps, as in Python; below -size it is an error
        lines.append(f"        p[i - {at + N // 2}] = {e2}")
    else:
        lines += [f"        if i == {at % N}:", f"            raise ValueError('thread', i)",
                  f"        p[i] = {e2}"]
    outputs = [np.zeros(N, rng.choice(INTS + FLOATS)), np.zeros(N, rng.choice(INTS + FLOATS))]
    return "\n".join(lines) + "\n", arrays + outputs, THREADS


FAMILIES = {"elementwise": elementwise, "gridstride": gridstride, "atomic": atomic,
            "stencil": stencil, "error": error}


def make_case(family, seed):
    """(source of a module defining kernel ``k_<family>_<seed>``, its name, arguments, config)."""
    rng = random.Random(f"{family}-{seed}")
    name = f"k_{family}_{seed}"
    src, args, config = FAMILIES[family](rng, name, seed)
    return _header() + src, name, args, config


def same_bits(x, y):
    """Whether two arrays hold the same values bit for bit (NaNs: any NaN, the payload and sign
    are not promised, see the simulator's docs)."""
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind == "f":
        both_nan = np.isnan(x) & np.isnan(y)
        raw = x.view(f"u{x.dtype.itemsize}") == y.view(f"u{y.dtype.itemsize}")
        return bool((both_nan | raw).all())
    return bool((x == y).all())


