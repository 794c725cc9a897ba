"""The layout of a debug kernel's *error record*: shared by the compiler, which emits it
(``numba_cuda.compiler.device_errors``), and the runtime, which reads it back after a launch
(``numba_cuda.runtime.kernel_errors``).  Neither imports the other.

The record is a device global of ``RECORD_WORDS`` little-endian ``int32``: the status code (an
exception id, 0 for none), then ``threadIdx.x/y/z`` and ``blockIdx.x/y/z`` of the first failing
thread.
"""

import struct

#: Words of the error record: status code, threadIdx.x/y/z, blockIdx.x/y/z.
RECORD_WORDS = 7
#: ``struct`` layout of the record as read back from the device (little-endian int32).
RECORD_FORMAT = "<7i"
RECORD_BYTES = struct.calcsize(RECORD_FORMAT)
