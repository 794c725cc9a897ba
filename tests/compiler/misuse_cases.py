"""Misuses of the compile and launch APIs, run by ``test_numba_exception_classes`` in a fresh
interpreter under each target: ``python misuse_cases.py`` prints, as JSON, each case's exception
class hierarchy (``module.qualname`` per class of the MRO), or null when nothing was raised."""

import json

from numba import cuda


def f(x):
    return x + 1


@cuda.jit
def k(a):
    a[0] = 1


CASES = (
    "k[1.5, 32]",
    "k[(1, 2.0), 32]",
    "k[32]",
    "k[1, 2, 3, 4, 5]",
    "k[(1, 2, 3, 4), 32]",
    "k[None, 32]",
    "k()",
    "k.typeof_pyval(object())",  # how a launch types its arguments (before any driver call)
    "k.forall(-1)",
    "cuda.compile_ptx(f, '(float32,)', abi='fortran')",
    "cuda.compile(f, '(float32,)', output='cubin')",
    "cuda.compile(f, '(float32,)', device=False, abi='c')",
)


def run():
    out = {}
    for case in CASES:
        try:
            eval(case)
            out[case] = None
        except Exception as exc:  # noqa: BLE001 -- the class is what is recorded
            out[case] = [f"{t.__module__}.{t.__qualname__}" for t in type(exc).__mro__]
    return out


if __name__ == "__main__":
    print("RESULT " + json.dumps(run()))
