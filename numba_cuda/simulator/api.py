"""The public ``numba.cuda`` API as the simulator provides it.

With ``NUMBA_ENABLE_CUDASIM=1`` every ``numba.cuda.<name>`` is looked up
here first (see ``numba_cuda/__init__.py``); tests may also use this module
directly: ``from numba_cuda.simulator import api as cuda``.
"""

from ..common.args import In, InOut, Out  # noqa: F401 - the GPU target's classes too
from ..errors import CudaError, CudaSupportError, KernelRuntimeError, LaunchConfigError  # noqa: F401
from ..errors import GraphCaptureError, GraphUpdateError  # noqa: F401
from .devicearray import (  # noqa: F401
    DeviceNDArray,
    DeviceRecord,
    MappedNDArray,
    ManagedNDArray,
    as_cuda_array,
    from_dlpack,
    auto_device,
    device_array,
    device_array_like,
    from_cuda_array_interface,
    is_cuda_array,
    managed_array,
    mapped,
    mapped_array,
    mapped_array_like,
    pinned,
    pinned_array,
    pinned_array_like,
    to_device,
)
from .devices import (  # noqa: F401
    close,
    current_context,
    defer_cleanup,
    detect,
    get_current_device,
    gpus,
    is_available,
    list_devices,
    profile_start,
    profile_stop,
    profiling,
    require_context,
    select_device,
)
from .dispatcher import (  # noqa: F401
    NotAvailableInSimulator,
    compile,
    compile_all,
    compile_for_current_device,
    compile_ptx,
    compile_ptx_for_current_device,
    declare_device,
    jit,
)
from .kernelapi import (  # noqa: F401
    activemask,
    all_sync,
    any_sync,
    atomic,
    ballot_sync,
    blockDim,
    blockIdx,
    brev,
    cbrt,
    cg,
    clz,
    const,
    eq_sync,
    ffs,
    fma,
    fp16,
    grid,
    gridDim,
    gridsize,
    laneid,
    lanemask_lt,
    local,
    match_all_sync,
    match_any_sync,
    nanosleep,
    popc,
    selp,
    shared,
    shfl_down_sync,
    shfl_sync,
    shfl_up_sync,
    shfl_xor_sync,
    syncthreads,
    syncthreads_and,
    syncthreads_count,
    syncthreads_or,
    syncwarp,
    threadfence,
    threadfence_block,
    threadfence_system,
    threadIdx,
    warpsize,
    wmma,
)
from numba.misc.special import literal_unroll  # noqa: F401
from numba.core import config as _numba_config

#: NVIDIA's ``numba.cuda.config_default_cc``: Numba's configured default compute capability
#: (``NUMBA_CUDA_DEFAULT_PTX_CC``, else Numba's 5.0), as on the GPU target.
config_default_cc = tuple(getattr(_numba_config, "CUDA_DEFAULT_PTX_CC", (5, 0)))
from ..linking.linkable import (  # noqa: F401  (pure Python: the GPU's classes)
    LTOIR,
    Archive,
    CUSource,
    Cubin,
    Fatbin,
    LinkableCode,
    Object,
    PTXSource,
)
from ..types import *  # noqa: F401,F403  (float32, void ...: Numba's types, as on the GPU)
from .bfloat16 import bf16, bfloat16  # noqa: F401
from . import libdevice  # noqa: F401 - cuda.libdevice (numba.cuda.libdevice is this module too)
from .cachehints import ldca, ldcg, ldcs, ldcv, ldlu, stcg, stcs, stwb, stwt  # noqa: F401
from .memory_managers import *  # noqa: F401,F403  (the EMM/IPC names, as in cudadrv.driver)
from .memory_managers import open_ipc_array  # noqa: F401
from .reduction import Reduce, reduce  # noqa: F401
from ..ufunc_decorators import guvectorize, vectorize  # noqa: F401  (pick the simulator's backend)
from .graphs import Graph, graph  # noqa: F401
from .streams import (  # noqa: F401
    Event,
    Stream,
    default_stream,
    event,
    event_elapsed_time,
    external_stream,
    legacy_default_stream,
    per_thread_default_stream,
    stream,
    synchronize,
)

#: Lets code ask whether it runs under the simulator.
USE_SIMULATOR = True


def is_supported_version():
    """The simulator needs no CUDA toolkit."""
    return True


def cuda_error():
    """The simulator never fails to initialise: None."""
    return None


def is_float16_supported():
    return True


def is_bfloat16_supported():
    return True


def is_fp8_supported():
    """True, as on the GPU target: the FP8 types and their conversions (numba.cuda.fp8)."""
    return True


def _add_vector_types():
    from .vectortypes import VECTOR_TYPES

    globals().update(VECTOR_TYPES)


_add_vector_types()


#: Numba's ``numba.cuda`` has its ``cudadrv`` modules as attributes (``cuda.devicearray``,
#: ``cuda.driver`` ...) and ``cuda.runtime`` (``cuda.runtime.get_version()``): here those of the
#: peers' simulator path ``numba.cuda.simulator.cudadrv``, a row of the compat table, imported by
#: that path on first use.
_CUDADRV_ATTRIBUTES = ("devicearray", "devices", "driver", "runtime")


def __getattr__(name):
    """``Dim3``/``GridGroup``: the ``numba.cuda.types`` classes, as on the GPU target (looked up
    on first use: they come from the kernel-language modules); ``devicearray``, ``devices``,
    ``driver``, ``runtime``: see ``_CUDADRV_ATTRIBUTES``."""
    if name in ("Dim3", "GridGroup"):
        from .. import types as _types

        return getattr(_types, name)
    if name in _CUDADRV_ATTRIBUTES:
        import importlib

        value = importlib.import_module(f"numba_cuda.simulator.cudadrv.{name}")
        if name == "runtime":
            value = value.runtime
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
