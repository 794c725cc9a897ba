"""Device arrays pickle as their host copy (real target on the fake driver; simulator)."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.support.fake_driver import FakeDriver

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def fake(monkeypatch):
    drv = FakeDriver(ndevices=2).install(monkeypatch)
    yield drv
    from numba import cuda

    cuda.close()


@pytest.mark.parametrize("order", ["C", "F"])
def test_device_array_round_trips_through_pickle(fake, order):
    from numba import cuda

    host = np.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), order=order)
    d = cuda.to_device(host)
    clone = pickle.loads(pickle.dumps(d))
    assert type(clone) is type(d)
    assert clone.device_ctypes_pointer.value != d.device_ctypes_pointer.value
    assert clone.shape == d.shape and clone.dtype == d.dtype
    np.testing.assert_array_equal(clone.copy_to_host(), host)
    # a strided view travels as the elements it shows
    view = d[:, ::2]
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(view)).copy_to_host(), host[:, ::2])


def test_device_array_lands_on_the_loading_threads_current_device(fake):
    from numba import cuda

    d = cuda.to_device(np.arange(4))
    blob = pickle.dumps(d)
    with cuda.gpus[1]:
        clone = pickle.loads(blob)
        assert clone.gpu_data.context.device.id == 1
    assert d.gpu_data.context.device.id == 0
    np.testing.assert_array_equal(clone.copy_to_host(), np.arange(4))


def test_simulator_device_array_pickles():
    code = textwrap.dedent("""
        import pickle
        import numpy as np
        from numba import cuda
        h = np.asfortranarray(np.arange(6.0).reshape(2, 3))
        d = cuda.to_device(h)
        c = pickle.loads(pickle.dumps(d))
        assert type(c) is type(d), type(c)
        assert np.array_equal(c.copy_to_host(), h)
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=REPO, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
