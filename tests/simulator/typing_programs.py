"""Random scalar programs: the simulator against the compiled kernel's typing.

Each program is a function returning a tuple of random expressions over typed arguments
(integers of every width and signedness, float32/float64, complex64/complex128):
arithmetic, bitwise operators, shifts, powers, comparisons (chained too), unary operators, casts between
integer and float types, conditional expressions mixing types, and ``math`` functions.  It runs as a simulated device function
(called from the host) and compiled by Numba's CPU target with the CUDA error model
(``error_model="numpy"``), which shares the front end and the typing of operators with the
CUDA target and computes integers and IEEE floats the same way.  Both must give the same
Numba type for every element and the same value (floats bit for bit, NaN for NaN; results of
float32 ``math`` functions within 2 ULP, as the CPU's ``sinf`` and the simulator's rounded
double ``sin`` may differ there).

Left out on purpose, because the CPU is not the GPU there: float -> integer conversions of
values out of range (x86's ``cvttsd2si`` gives INT_MIN, PTX's ``cvt.rzi`` saturates), shift
counts outside [0, width) (x86 masks the count, PTX clamps it), overflowing integer powers
(Numba's loop multiplies with ``nsw``: LLVM may assume no overflow), and ``math.floor/ceil/trunc``
(typed as float by the CUDA target, as int by the CPU one); ``tests/simulator/
test_compiled_typing.py`` checks those against the GPU's definitions.

Used by ``tests/simulator/test_compiled_typing.py`` (small, seeded) and
``benchmarks/simulator_typing.py`` (many programs).
"""

import importlib.util
import math
import random
import sys

import numpy as np

ARGS = (
    ("i8", "int8"), ("u8", "uint8"), ("i16", "int16"), ("u16", "uint16"), ("i32", "int32"),
    ("u32", "uint32"), ("i64", "int64"), ("u64", "uint64"), ("f32", "float32"),
    ("f64", "float64"), ("c64", "complex64"), ("c128", "complex128"), ("bo", "bool_"),
)
INT_ARGS = [n for n, t in ARGS if "int" in t]
FLOAT_ARGS = ["f32", "f64"]
COMPLEX_ARGS = ["c64", "c128"]

_INT_VALUES = {
    "int8": [-128, -1, 0, 3, 127], "uint8": [0, 1, 7, 200, 254, 255],
    "int16": [-32768, -5, 2, 32767], "uint16": [0, 3, 65535, 40000],
    "int32": [-2**31, -7, 0, 5, 2**31 - 1], "uint32": [0, 1, 2**32 - 1, 3000000000],
    "int64": [-2**63, -9, 0, 11, 2**63 - 1, 2**40 + 3], "uint64": [0, 2, 2**64 - 1, 2**63 + 5],
}
_FLOAT_VALUES = [0.0, -0.0, 1.5, -2.75, 1e10, -3.25e-5, 7.0, math.inf, -math.inf, math.nan,
                 0.1, 123456.789]

INT_CONSTANTS = ["0", "1", "3", "-4", "127", "255", "2147483647", "4294967295", "-2147483648"]
FLOAT_CONSTANTS = ["0.5", "1.5", "-2.0", "1e-3", "3.0"]

BINARY_NUM = ["+", "-", "*", "/", "//", "%"]
BINARY_INT = ["&", "|", "^"]
COMPARE = ["<", "<=", ">", ">=", "==", "!="]
MATH1 = ["sin", "cos", "exp", "log", "sqrt", "fabs", "atan", "tanh", "log1p", "expm1", "isnan",
         "isinf", "isfinite"]
#: no copysign: it exposes the sign bit of NaNs, which neither side defines (libm returns its
#: argument's NaN, libdevice a canonical one)
MATH2 = ["atan2", "hypot", "pow"]
INT_CASTS = ["np.int8", "np.uint8", "np.int16", "np.uint16", "np.int32", "np.uint32", "np.int64",
             "np.uint64"]
FLOAT_CASTS = ["np.float32", "np.float64", "float"]


class Gen:
    def __init__(self, rng):
        self.rng = rng

    def pick(self, seq):
        return self.rng.choice(seq)

    def int_expr(self, depth):
        """An expression of integer (or boolean) type."""
        r = self.rng.random()
        if depth <= 0 or r < 0.25:
            return self.pick(INT_ARGS) if self.rng.random() < 0.8 else self.pick(INT_CONSTANTS)
        if r < 0.55:
            return f"({self.int_expr(depth - 1)} {self.pick(BINARY_NUM[:3] + ['//', '%'] + BINARY_INT)} {self.int_expr(depth - 1)})"
        if r < 0.65:
            shift = self.pick(["<<", ">>"])
            return f"({self.int_expr(depth - 1)} {shift} {self.rng.randrange(0, 32)})"
        if r < 0.72:
            return f"({self.pick(['-', '~'])}{self.int_expr(depth - 1)})"
        if r < 0.80:
            return f"{self.pick(INT_CASTS)}({self.int_expr(depth - 1)})"
        if r < 0.88:
            # small bases and exponents: an overflowing integer power is undefined in Numba's
            # CPU code (its loop multiplies with nsw), so the CPU is no oracle there
            return f"({self.pick(['i8', 'u8', 'i16', 'u16'])} ** {self.rng.randrange(-3, 4)})"
        if self.rng.random() < 0.3:  # a chain around an argument
            middle = self.pick(INT_ARGS + FLOAT_ARGS)
            return (f"({self.num_expr(depth - 1)} {self.pick(COMPARE)} {middle} "
                    f"{self.pick(COMPARE)} {self.num_expr(depth - 1)})")
        return f"({self.num_expr(depth - 1)} {self.pick(COMPARE)} {self.num_expr(depth - 1)})"

    def float_expr(self, depth):
        r = self.rng.random()
        if depth <= 0 or r < 0.25:
            return self.pick(FLOAT_ARGS) if self.rng.random() < 0.8 else self.pick(FLOAT_CONSTANTS)
        if r < 0.55:
            return f"({self.num_expr(depth - 1)} {self.pick(BINARY_NUM)} {self.float_expr(depth - 1)})"
        if r < 0.62:
            return f"(-{self.float_expr(depth - 1)})"
        if r < 0.70:
            cast = self.pick(FLOAT_CASTS)  # float() of a bool is refused by Numba's typing
            inner = self.float_expr(depth - 1) if cast == "float" else self.num_expr(depth - 1)
            return f"{cast}({inner})"
        if r < 0.78:
            return f"({self.float_expr(depth - 1)} ** {self.pick(['0', '2', '3', '7', 'u8', 'u16'])})"
        if r < 0.84:
            return f"({self.float_expr(depth - 1)} ** {self.float_expr(depth - 1)})"
        if r < 0.93:
            return f"math.{self.pick(MATH1[:10])}({self.float_expr(depth - 1)})"
        return f"math.{self.pick(MATH2)}({self.float_expr(depth - 1)}, {self.float_expr(depth - 1)})"

    def complex_expr(self, depth):
        r = self.rng.random()
        if depth <= 0 or r < 0.4:
            return self.pick(COMPLEX_ARGS)
        if r < 0.8:
            return f"({self.any_expr(depth - 1)} {self.pick(['+', '-', '*'])} {self.complex_expr(depth - 1)})"
        return f"(-{self.complex_expr(depth - 1)})"

    def ternary(self, depth):
        """A conditional expression: one type for both branches (Numba unifies them)."""
        cond = f"{self.num_expr(depth - 1)} {self.pick(COMPARE)} {self.num_expr(depth - 1)}"
        return f"({self.any_expr(depth - 1)} if {cond} else {self.any_expr(depth - 1)})"

    def num_expr(self, depth):
        return self.int_expr(depth) if self.rng.random() < 0.5 else self.float_expr(depth)

    def any_expr(self, depth):
        r = self.rng.random()
        if r < 0.4:
            return self.int_expr(depth)
        if r < 0.85:
            return self.float_expr(depth)
        return self.complex_expr(depth)

    def top(self):
        r = self.rng.random()
        if r < 0.4:
            return self.int_expr(3)
        if r < 0.75:
            return self.float_expr(3)
        if r < 0.85:
            return self.complex_expr(2)
        if r < 0.92:
            return f"math.{self.pick(MATH1)}({self.num_expr(2)})"
        return self.ternary(3)


def program_source(seed, nexpr):
    """The source of a module defining ``f(<typed args>)`` returning ``nexpr`` expressions."""
    g = Gen(random.Random(seed))
    params = ", ".join(n for n, _ in ARGS)
    lines = ["import math", "import numpy as np", "", "", f"def f({params}):"]
    exprs = [g.top() for _ in range(nexpr)]
    # one variable per expression (a conditional expression in a long tuple display is
    # compiled to bytecode Numba does not take)
    lines += [f"    r{n} = {e}" for n, e in enumerate(exprs)]
    lines.append("    return (" + ", ".join(f"r{n}" for n in range(len(exprs))) + ",)")
    return "\n".join(lines) + "\n", exprs


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def argument_sets(seed, n):
    rng = random.Random(seed)
    sets = []
    for _ in range(n):
        values = []
        for _, t in ARGS:
            cls = getattr(np, t)
            if t in _INT_VALUES:
                values.append(cls(rng.choice(_INT_VALUES[t])))
            elif t.startswith("float"):
                values.append(cls(rng.choice(_FLOAT_VALUES)))
            elif t.startswith("complex"):
                values.append(cls(complex(rng.choice(_FLOAT_VALUES[:7]), rng.choice(_FLOAT_VALUES[:7]))))
            else:
                values.append(np.bool_(rng.random() < 0.5))
        sets.append(values)
    return sets


def _ulps(a, b, dtype):
    ia = np.array([a], dtype).view(np.int32 if dtype == np.float32 else np.int64)[0]
    ib = np.array([b], dtype).view(np.int32 if dtype == np.float32 else np.int64)[0]
    return abs(int(ia) - int(ib))


def same(sim, ref, nbtype, expr):
    """Whether the simulator's value ``sim`` is the compiled ``ref`` of Numba type ``nbtype``."""
    from numba.np.numpy_support import as_dtype

    if nbtype.__class__.__name__ == "Boolean":
        return bool(sim) == bool(ref)
    dtype = as_dtype(nbtype)
    s = np.array([sim]).astype(dtype)[0] if dtype.kind != "c" else dtype.type(sim)
    r = dtype.type(ref)
    if dtype.kind in "iu":
        return int(s) == int(r)
    parts = [(s.real, r.real), (s.imag, r.imag)] if dtype.kind == "c" else [(s, r)]
    tol = 2 if ("math." in expr and dtype.itemsize <= 8 and dtype.kind != "c") else 0
    fdtype = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    for x, y in parts:
        x, y = fdtype(x), fdtype(y)
        if np.isnan(x) and np.isnan(y):
            continue
        if x == y and np.signbit(x) == np.signbit(y):
            continue
        if tol and np.isfinite(x) and np.isfinite(y) and _ulps(x, y, fdtype) <= tol:
            continue
        if tol and math.isclose(float(x), float(y), rel_tol=1e-6, abs_tol=1e-30):
            continue  # math of a float64 near a pole: the CPU's and the simulator's libm agree to ~ulps
        return False
    return True


def compare(sim_fn, jit_fn, args_list, exprs):
    """Differences ``(expr, args, sim value, sim type, compiled value, compiled type)``."""
    from numba import typeof as numba_type
    from numba.core import types

    diffs = []
    for args in args_list:
        with np.errstate(all="ignore"):
            sim = sim_fn(*args)
        ref = jit_fn(*args)
        sig = jit_fn.nopython_signatures[0]
        tys = sig.return_type.types if hasattr(sig.return_type, "types") else \
            [sig.return_type.dtype] * sig.return_type.count
        for expr, s, r, ty in zip(exprs, sim, ref, tys):
            ty = types.unliteral(ty)
            sty = numba_type(s)
            if sty != ty or not same(s, r, ty, expr):
                diffs.append((expr, args, s, sty, r, ty))
    return diffs
