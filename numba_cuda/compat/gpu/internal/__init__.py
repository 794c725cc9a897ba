"""``numba.cuda._internal``: NVIDIA's private package (its tests import ``nv_bfloat16`` and the
bf16 functions from ``numba.cuda._internal.cuda_bf16``, a row of its own in the compat table)."""


def __getattr__(name):
    # ``from numba.cuda._internal import cuda_bf16`` before anything imported it
    if name == "cuda_bf16":
        import importlib

        return importlib.import_module("numba_cuda._internal.cuda_bf16")
    raise AttributeError(f"module 'numba.cuda._internal' has no attribute {name!r}")
