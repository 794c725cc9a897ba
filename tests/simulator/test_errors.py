"""Error reporting of the simulator: out-of-bounds accesses, launch configuration, arity."""

import numpy as np
import pytest

from numba_cuda.errors import LaunchConfigError
from numba_cuda.simulator import api as cuda


@cuda.jit
def write_all(a):
    a[cuda.grid(1)] = 1


def test_out_of_bounds_names_thread_and_block():
    with pytest.raises(IndexError) as info:
        write_all[2, 8](np.zeros(10))
    assert str(info.value) == (
        "tid=[2, 0, 0] ctaid=[1, 0, 0]: index 10 is out of bounds for axis 0 with size 10"
    )


def test_out_of_bounds_in_a_cooperative_kernel_and_2d():
    @cuda.jit
    def k(a):
        s = cuda.shared.array((4, 4), np.float64)
        x, y = cuda.grid(2)
        cuda.syncthreads()
        s[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]

    with pytest.raises(IndexError, match=r"tid=\[3, 0, 0\] ctaid=\[0, 0, 0\]: index 3 is out of "
                                         r"bounds for axis 1 with size 3"):
        k[1, (4, 4)](np.zeros((4, 3)))


def test_other_exceptions_are_annotated_too():
    @cuda.jit
    def k(a):
        if cuda.threadIdx.x == 5:
            raise ValueError("bad value")

    with pytest.raises(ValueError, match=r"^tid=\[5, 0, 0\] ctaid=\[0, 0, 0\]: bad value$"):
        k[1, 8](np.zeros(1))

    class MyError(Exception):
        pass

    @cuda.jit
    def bare(a):
        raise MyError

    with pytest.raises(MyError, match=r"^tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]$"):
        bare[1, 1](np.zeros(1))


@pytest.mark.parametrize(
    "config, message",
    [
        ((0, 32), r"griddim.x must be at least 1, got 0"),
        ((4, -1), r"blockdim.x must be at least 1, got -1"),
        ((4, (32, 0)), r"blockdim.y must be at least 1, got 0"),
        ((1, 1025), r"blockdim.x = 1025 exceeds the device limit of 1024"),
        ((1, (32, 32, 2)), r"2048 threads per block, more than the device limit of 1024"),
        ((1, (1, 1, 65)), r"blockdim.z = 65 exceeds the device limit of 64"),
        ((1, (1, 1, 1, 1)), r"blockdim must be a sequence of 1, 2 or 3 integers, got \[1, 1, 1, 1\]"),
        ((1, 1.5), r"blockdim must be a sequence of integers, got \[1.5\]"),
        ((1, (2, 2.0)), r"blockdim must be a sequence of integers, got \[2, 2.0\] \(blockdim.y is 2.0\)"),
        (((1, 70000), 1), r"griddim.y = 70000 exceeds the device limit of 65535"),
        ((1, 1, 0, -4), r"dynamic shared memory must be a non-negative number of bytes"),
        ((1, 1, 0, 1 << 20), r"1048576 bytes exceeds the device limit of 49152"),
    ],
)
def test_launch_configuration_is_validated(config, message):
    with pytest.raises(LaunchConfigError, match=message):
        write_all[config]
    assert issubclass(LaunchConfigError, ValueError)


def test_missing_launch_configuration():
    with pytest.raises(LaunchConfigError, match=r"write_all\[griddim, blockdim\]"):
        write_all(np.zeros(1))


def test_wrong_argument_count():
    with pytest.raises(TypeError, match=r"^write_all\(\) takes 1 positional argument but 2 were given$"):
        write_all[1, 1](np.zeros(1), 2)


def test_compile_functions_say_they_need_the_real_target():
    for call in (lambda: cuda.compile_ptx(lambda: None, ()),
                 lambda: cuda.compile(lambda: None, ()),
                 lambda: cuda.compile_ptx_for_current_device(lambda: None, ()),
                 lambda: cuda.declare_device("f", "int32(int32)"),
                 lambda: write_all.inspect_asm(),
                 lambda: cuda.jit(link=["x.cu"])(lambda: None)):
        with pytest.raises(cuda.NotAvailableInSimulator, match="not available in the simulator"):
            call()
    assert issubclass(cuda.NotAvailableInSimulator, NotImplementedError)
