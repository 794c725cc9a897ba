"""A ``numba.cuda`` kernel over the chunks of a large array, in Dask tasks, one GPU per worker.

Run it as a script::

    python examples/dask_chunked_kernel.py              # one worker per visible GPU
    NUMBA_ENABLE_CUDASIM=1 python examples/dask_chunked_kernel.py --workers 2   # no GPU

What it shows:

* the kernel and the task function live in an importable module, so Dask pickles them by
  reference and each worker imports them once (numba-cuda dispatchers pickle like functions);
* one worker per GPU, each worker process seeing only its own device through
  ``CUDA_VISIBLE_DEVICES`` -- the layout ``dask_cuda.LocalCUDACluster`` makes;
  :func:`gpu_cluster` builds it with ``distributed.SpecCluster`` and ``Nanny`` workers;
* each task copies its chunk to its worker's device, launches the kernel, and returns a
  partial result; the client reduces the partial results;
* with CuPy installed, the same kernel maps over a CuPy-backed Dask array
  (:func:`cupy_map_blocks`): the kernel takes each CuPy chunk through the CUDA Array
  Interface, without a copy.
"""

import argparse
import os

import numpy as np
from numba import cuda

THREADS_PER_BLOCK = 128


@cuda.jit
def polynomial(x, out):
    """``out = 3 x**2 + 2 x + 1``, one element per thread."""
    i = cuda.grid(1)
    if i < x.size:
        out[i] = 3.0 * x[i] * x[i] + 2.0 * x[i] + 1.0


def expected(x):
    """What the kernel computes, in NumPy."""
    return 3.0 * x * x + 2.0 * x + 1.0


def _launch(d_x, d_out):
    blocks = (d_x.size + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    polynomial[blocks, THREADS_PER_BLOCK](d_x, d_out)


def process_chunk(chunk):
    """One Dask task: the kernel over ``chunk`` on this worker's device.

    Returns ``(partial_sum, device)``: the sum of the kernel's results over the chunk and
    which device ran it (``CUDA_VISIBLE_DEVICES`` of the worker, ``cuda.get_current_device()``
    within it).
    """
    d_x = cuda.to_device(np.ascontiguousarray(chunk))
    d_out = cuda.device_array_like(d_x)
    _launch(d_x, d_out)
    partial = float(d_out.copy_to_host().sum())
    device = cuda.get_current_device()
    return partial, (os.environ.get("CUDA_VISIBLE_DEVICES", ""), device.id)


def gpu_cluster(n_workers=None, simulator=False, host="127.0.0.1"):
    """A local Dask cluster with one single-threaded worker process per GPU.

    Worker ``i`` runs with ``CUDA_VISIBLE_DEVICES=i``, so device 0 inside it is GPU ``i``.
    ``n_workers`` defaults to the number of GPUs.  ``simulator=True`` runs every worker in
    the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), for machines without a GPU.  The
    scheduler and the workers listen on ``host`` only (loopback by default).
    """
    import logging

    from distributed import Nanny, Scheduler, SpecCluster

    if n_workers is None:
        n_workers = 1 if simulator else len(cuda.gpus)
    workers = {}
    for i in range(n_workers):
        env = {"CUDA_VISIBLE_DEVICES": str(i)}
        if simulator:
            env["NUMBA_ENABLE_CUDASIM"] = "1"
        workers[f"gpu-{i}"] = {"cls": Nanny, "options": {
            "nthreads": 1, "env": env, "memory_limit": 0, "host": host,
            "dashboard_address": None, "silence_logs": logging.ERROR}}
    scheduler = {"cls": Scheduler, "options": {"host": host, "dashboard_address": None}}
    return SpecCluster(workers=workers, scheduler=scheduler, silence_logs=logging.ERROR)


def chunked_sum(client, x, nchunks):
    """Sum of the kernel's results over ``x``, computed chunk by chunk on the workers.

    Returns ``(total, devices)``: the reduced sum and the set of devices that ran tasks.
    """
    chunks = np.array_split(x, nchunks)
    futures = client.map(process_chunk, chunks, pure=False)
    results = client.gather(futures)
    return sum(r[0] for r in results), {r[1] for r in results}


def cupy_map_blocks(x_chunks):
    """The kernel over a CuPy-backed Dask array (``dask.array`` of ``cupy.ndarray`` chunks).

    Each block goes to the kernel as is: CuPy arrays export the CUDA Array Interface, so
    numba-cuda uses their memory without copying.
    """
    import cupy

    def apply(block):
        out = cupy.empty_like(block)
        _launch(block, out)
        return out

    return x_chunks.map_blocks(apply, dtype=x_chunks.dtype)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per GPU)")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--chunks", type=int, default=16)
    args = parser.parse_args(argv)
    from distributed import Client

    from numba import config

    simulator = bool(config.ENABLE_CUDASIM)
    x = np.linspace(-1.0, 1.0, args.size)
    with gpu_cluster(args.workers, simulator=simulator) as cluster, Client(cluster) as client:
        total, devices = chunked_sum(client, x, args.chunks)
    want = float(expected(x).sum())
    print(f"sum over {args.size} elements in {args.chunks} chunks: {total:.6f} (NumPy {want:.6f}); "
          f"devices used (CUDA_VISIBLE_DEVICES, id): {sorted(devices)}"
          f"{' [simulator]' if simulator else ''}")
    return 0 if np.isclose(total, want) else 1


if __name__ == "__main__":
    raise SystemExit(main())
