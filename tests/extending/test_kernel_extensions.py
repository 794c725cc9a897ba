"""Numba's kernel extensions (``kernel.extensions``, ``cuda.jit(extensions=[...])``): each
argument passes through ``prepare_args(ty, val, stream=, retr=)`` before the launch and the
``retr`` callables run after it -- on the fake driver and in the simulator."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.support.fake_driver import installed_for_launches

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch)


class Recorder:
    def __init__(self):
        self.seen, self.after = [], 0

    def prepare_args(self, ty, val, stream=None, retr=None):
        from numba.cuda.args import wrap_arg

        from numba import cuda

        self.seen.append((ty, type(val).__name__))
        retr.append(self._done)
        return ty, wrap_arg(val, default=cuda.In) if isinstance(val, np.ndarray) else val

    def _done(self):
        self.after += 1


def test_extensions_rewrite_arguments_and_run_writebacks(fake):
    from numba import cuda, types

    def kernel(a, x):
        a[0] = x

    k = cuda.jit(kernel)
    ext = Recorder()
    k.extensions.append(ext)
    host = np.zeros(4, np.float32)
    k[1, 1](host, 2.0)
    assert [name for _, name in ext.seen] == ["ndarray", "float"]
    assert ext.seen[0][0] == types.Array(types.float32, 1, "C")
    assert ext.after == 2
    # the In hint the extension returned: copied to the device, never back
    copies = [e[0] for e in fake.log if e[0].startswith("cuMemcpy")]
    assert [c.replace("Async", "") for c in copies] == ["cuMemcpyHtoD"], copies
    k2 = cuda.jit(extensions=[Recorder()])(kernel)
    k2[1, 1](np.zeros(2, np.float32), 1.0)
    assert k2.extensions[0].after == 2


def test_extensions_in_the_simulator():
    code = textwrap.dedent("""
        import numpy as np
        from numba import cuda
        from numba.cuda.args import wrap_arg

        class DefaultIn:
            def prepare_args(self, ty, val, **kwargs):
                assert ty is None and "retr" in kwargs
                kwargs["retr"].append(lambda: done.append(1))
                return ty, wrap_arg(val, default=cuda.In)

        done = []

        @cuda.jit
        def set3(a):
            a[0] = 3

        set3.extensions.append(DefaultIn())
        a = np.zeros(1)
        set3[1, 1](a)
        assert a[0] == 0 and done == [1], (a, done)
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT, NUMBA_ENABLE_CUDASIM="1"),
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"
