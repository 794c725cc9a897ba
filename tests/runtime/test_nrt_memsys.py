"""The device NRT's statistics counters, end to end on the host-memory fake driver: loading an
NRT kernel points its ``numba_cuda_nrt_memsys`` global at the context's counters, ``rtsys``
switches and reads them.  No kernel runs on the fake: the launch effect plays the device NRT,
counting one array made and freed per launch while counting is on."""

import struct

import numpy as np
import pytest
from numba.core import config

from tests.support.fake_driver import installed_for_launches

GLOBAL = "numba_cuda_nrt_memsys"


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(config, "CUDA_ENABLE_NRT", True, raising=False)
    monkeypatch.setattr(config, "CUDA_NRT_STATS", False, raising=False)
    yield from installed_for_launches(monkeypatch)


def _memsys_pointers(drv):
    """The value of every loaded module's NRT global (the counters' device address)."""
    found = []
    for module in drv._modules.values():
        if GLOBAL in module.globals:
            address, size = module.globals[GLOBAL]
            assert size == 8
            found.append(struct.unpack("<Q", drv.read(address, 8))[0])
    return found


def device_nrt(drv, launch):
    """What the NRT functions of an allocating kernel do to the counters, once per launch."""
    for pointer in set(_memsys_pointers(drv)):
        enabled, *counts = struct.unpack("<5Q", drv.read(pointer, 40))
        if enabled:
            drv.write(pointer + 8, struct.pack("<4Q", *(c + 1 for c in counts)))


def test_nrt_kernels_point_at_the_contexts_counters_and_rtsys_reads_them(fake):
    from numba import cuda
    from numba.cuda.memory_management import rtsys

    @cuda.jit
    def kernel(out):
        t = np.zeros(3)
        out[0] = t[0]

    @cuda.jit
    def other(out):
        t = np.ones(2)
        out[0] = t[1]

    fake.on_launch = device_nrt
    out = cuda.device_array(1)
    kernel[1, 1](out)
    other[1, 1](out)
    pointers = _memsys_pointers(fake)
    assert len(pointers) == 2 and pointers[0] == pointers[1] != 0  # one block per context
    assert not rtsys.memsys_stats_enabled()
    with pytest.raises(RuntimeError, match="NRT stats are disabled."):
        rtsys.get_allocation_stats()
    with pytest.raises(RuntimeError, match="NRT stats are disabled."):
        rtsys.memsys_get_stats_free()

    rtsys.memsys_enable_stats()
    assert rtsys.memsys_stats_enabled()
    before = rtsys.get_allocation_stats()
    kernel[1, 1](out)
    other[1, 1](out)
    after = rtsys.get_allocation_stats()
    assert tuple(after) == tuple(b + 2 for b in before)
    assert rtsys.memsys_get_stats_alloc() == after.alloc
    assert rtsys.memsys_get_stats_mi_free() == after.mi_free

    rtsys.memsys_disable_stats()
    kernel[1, 1](out)  # not counted
    rtsys.memsys_enable_stats()
    assert rtsys.get_allocation_stats() == after
    rtsys.memsys_disable_stats()


def test_kernels_without_nrt_calls_get_no_counters(fake):
    from numba import cuda

    @cuda.jit
    def plain(out):
        out[0] = 1.0

    monkeypatched = config.CUDA_ENABLE_NRT
    config.CUDA_ENABLE_NRT = False
    try:
        plain[1, 1](cuda.device_array(1))
    finally:
        config.CUDA_ENABLE_NRT = monkeypatched
    assert _memsys_pointers(fake) == []


def test_nrt_stats_setting_starts_counting(fake, monkeypatch):
    from numba import cuda
    from numba.cuda.memory_management import rtsys

    monkeypatch.setattr(config, "CUDA_NRT_STATS", True)

    @cuda.jit
    def kernel(out):
        out[0] = np.zeros(2)[0]

    fake.on_launch = device_nrt
    kernel[1, 1](cuda.device_array(1))
    assert rtsys.memsys_stats_enabled()
    assert tuple(rtsys.get_allocation_stats()) == (1, 1, 1, 1)
