"""One CUDA-graph scenario for both targets: the same work run eagerly and captured into a
graph, replayed with new host data and updated with new parameters (``cuda`` is the API of
either target: ``numba.cuda`` on a GPU, ``numba_cuda.simulator.api`` under the simulator)."""

import numpy as np

N = 100


def kernels(cuda):
    @cuda.jit
    def axpy(out, a, x, y):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    @cuda.jit
    def accumulate(total, values):
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.add(total, 0, values[i])

    return axpy, accumulate


def _issue(cuda, k, stream, a, hx, dx, dy, dout, dtotal, hout, htotal):
    """Copy in, memset, two launches, copy out: everything on ``stream``."""
    axpy, accumulate = k
    dx.copy_to_device(hx, stream=stream)
    cuda.driver.device_memset(dtotal, 0, dtotal.nbytes, stream=stream)
    axpy[(N + 31) // 32, 32, stream](dout, a, dx, dy)
    accumulate[(N + 31) // 32, 32, stream](dtotal, dout)
    dout.copy_to_host(hout, stream=stream)
    dtotal.copy_to_host(htotal, stream=stream)


def _buffers(cuda):
    hx = cuda.pinned_array(N, np.float32)
    hout = cuda.pinned_array(N, np.float32)
    htotal = cuda.pinned_array(1, np.float32)
    dx = cuda.device_array(N, np.float32)
    dy = cuda.to_device(np.arange(N, dtype=np.float32))
    dout = cuda.device_array(N, np.float32)
    dtotal = cuda.device_array(1, np.float32)
    return hx, dx, dy, dout, dtotal, hout, htotal


def inputs(step):
    # small integers: every float32 sum is exact, whatever order the atomics add in
    return ((np.arange(N) % 7 - 3) * (step + 1)).astype(np.float32)


def eager(cuda, steps, a_of_step):
    """[(out, total)] of running the work eagerly ``steps`` times."""
    k = kernels(cuda)
    s = cuda.stream()
    hx, dx, dy, dout, dtotal, hout, htotal = _buffers(cuda)
    results = []
    for step in range(steps):
        hx[:] = inputs(step)
        _issue(cuda, k, s, a_of_step(step), hx, dx, dy, dout, dtotal, hout, htotal)
        s.synchronize()
        results.append((hout.copy(), htotal.copy()))
    return results


def captured(cuda, steps, a_of_step, update_at):
    """The same work captured once, replayed ``steps`` times with new host inputs, the scalar
    ``a`` changed by ``graph.update()`` at the steps in ``update_at``; [(out, total)] and the
    graph."""
    k = kernels(cuda)
    s = cuda.stream()
    hx, dx, dy, dout, dtotal, hout, htotal = _buffers(cuda)
    # once eagerly first: the kernels are compiled and loaded before the capture
    _issue(cuda, k, s, a_of_step(0), hx, dx, dy, dout, dtotal, hout, htotal)
    s.synchronize()
    hout[:] = 0
    with cuda.graph(s) as g:
        _issue(cuda, k, s, a_of_step(0), hx, dx, dy, dout, dtotal, hout, htotal)
    results = []
    for step in range(steps):
        if step in update_at:
            with g.update():
                _issue(cuda, k, s, a_of_step(step), hx, dx, dy, dout, dtotal, hout, htotal)
        hx[:] = inputs(step)
        g.launch()
        s.synchronize()
        results.append((hout.copy(), htotal.copy()))
    return results, g
