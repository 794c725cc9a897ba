"""Exceptions of debug kernels, raised on the host after the launch.

A kernel compiled with ``debug=True`` or ``boundscheck=True`` has an *error record* in its module
(layout in :mod:`numba_cuda.common.error_record`; the compiler's ``device_errors`` emits it and
its ``ExceptionTable``, which travels with the kernel image, decodes it): the first thread whose code
raised stores the exception id and its thread and block indices there.  After each launch of
such a kernel the runtime synchronises the launch's stream, reads the record, and when it holds
an error clears it and raises the Python exception, e.g.::

    IndexError: index is out of bounds in kernel 'k' at thread (3, 0, 0) of block (1, 0, 0)
    (raised in k at /path/to/file.py:12)

Kernels compiled without these options have no record and skip all of this.
"""

import struct

from numba_cuda.common.error_record import RECORD_BYTES, RECORD_FORMAT, RECORD_WORDS
from numba_cuda.runtime import cudriver


class ErrorRecord:
    """The error record of one loaded module: ``read()`` its bytes, ``clear()`` it to zero."""

    def __init__(self, module, name):
        drv = cudriver.driver()
        pointer, size = cudriver.call(drv.cuModuleGetGlobal, module, name.encode())
        if int(size) < RECORD_BYTES:
            raise RuntimeError(f"the error record {name} has {int(size)} bytes, expected "
                               f"{RECORD_BYTES}: the kernel was compiled by another version")
        self.name = name
        self.pointer = int(pointer)

    def read(self):
        import numpy as np

        drv = cudriver.driver()
        host = np.zeros(RECORD_WORDS, dtype=np.int32)
        cudriver.check(drv.cuMemcpyDtoH(host.ctypes.data, drv.CUdeviceptr(self.pointer),
                                        RECORD_BYTES)[0], f"reading the error record {self.name}")
        return host.tobytes()

    def clear(self):
        drv = cudriver.driver()
        cudriver.check(drv.cuMemsetD32(drv.CUdeviceptr(self.pointer), 0, RECORD_WORDS)[0],
                       f"clearing the error record {self.name}")


def raise_recorded_exception(record, table, synchronize):
    """After a launch: ``synchronize()`` (the launch's stream), read ``record`` (anything with
    ``read() -> bytes`` and ``clear()``) and, when it holds an error, clear it and raise the
    exception ``table`` (an ``ExceptionTable``) decodes from it."""
    synchronize()
    data = bytes(record.read())
    if len(data) < RECORD_BYTES:
        raise RuntimeError(f"read {len(data)} bytes of the error record, expected {RECORD_BYTES}")
    exc = table.exception_for(struct.unpack(RECORD_FORMAT, data[:RECORD_BYTES]))
    if exc is not None:
        record.clear()
        raise exc
