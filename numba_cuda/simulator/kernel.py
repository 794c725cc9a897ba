"""``numba.cuda.simulator.kernel``: the peers' names for the simulator's dispatcher classes.

Numba's and NVIDIA's simulators make kernels and device functions of one class,
``FakeCUDAKernel``, and libraries test ``isinstance(f, FakeCUDAKernel)``; here it is the common
base of :class:`~.dispatcher.SimKernel` and :class:`~.dispatcher.SimDeviceFunction` (tell them
apart by ``f._device``).  ``FakeOverloadDict``/``FakeOverload`` are the classes of
``f.overloads`` and of its entries; ``BlockThread`` the class of the OS threads that run
simulated threads in the OS-thread mode (none is left running after a launch).
"""

# The API first: importing .dispatcher before it, under NUMBA_ENABLE_CUDASIM=1, would resolve
# dispatcher's ``from .. import pickling`` through numba_cuda.__getattr__, i.e. the API, which
# imports the half-made dispatcher.
from . import api as _api  # noqa: F401
from .dispatcher import _FakeOverload as FakeOverload  # noqa: F401
from .dispatcher import _Overloads as FakeOverloadDict  # noqa: F401
from .dispatcher import _SimFunction as FakeCUDAKernel  # noqa: F401
from .scheduler import BlockThread  # noqa: F401
