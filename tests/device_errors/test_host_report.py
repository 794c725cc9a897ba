"""The host side of debug-kernel exceptions, without a GPU: decoding the error record read back
from the device (a fake memory reader), raising, clearing, and the launch path with a fake
driver."""

import contextlib
import struct
from types import SimpleNamespace

import pytest

from numba_cuda.compiler.device_errors import (
    RECORD_BYTES,
    RECORD_FORMAT,
    ExceptionTable,
    error_global_name,
)
from numba_cuda.runtime import kernel_errors

LOC = ("k", "/src/kern.py", 12)
TABLE = ExceptionTable("k", {
    11: (IndexError, ("index is out of bounds",), LOC),
    12: (AssertionError, ("value must be positive",), ("dev", "/src/kern.py", 4)),
    13: (AssertionError, None, None),
    14: (KeyError, ("missing",), None),
    15: (UnicodeDecodeError, ("utf-8", b"x", 0, 1, "bad"), None),
})


class FakeRecord:
    """Device memory holding an error record, as read back by the runtime."""

    def __init__(self, words=(0,) * 7, log=None):
        self.data = struct.pack(RECORD_FORMAT, *words)
        self.log = log if log is not None else []

    def read(self):
        self.log.append("read")
        return self.data

    def clear(self):
        self.log.append("clear")
        self.data = bytes(RECORD_BYTES)


def _raise(record, table=TABLE):
    log = record.log
    kernel_errors.raise_recorded_exception(record, table, lambda: log.append("sync"))


def test_layout_is_seven_int32():
    assert RECORD_BYTES == 28
    assert error_global_name("_Z1kPf") == "_Z1kPf__errors"


def test_no_error_reads_after_synchronising_and_leaves_the_record():
    record = FakeRecord()
    _raise(record)
    assert record.log == ["sync", "read"]


def test_out_of_bounds_is_raised_naming_kernel_thread_block_and_line_then_cleared():
    record = FakeRecord((11, 3, 0, 0, 1, 0, 0))
    with pytest.raises(IndexError) as info:
        _raise(record)
    assert str(info.value) == ("index is out of bounds in kernel 'k' at thread (3, 0, 0) of "
                               "block (1, 0, 0) (raised in k at /src/kern.py:12)")
    assert record.log == ["sync", "read", "clear"]
    _raise(record)  # cleared: the next launch reports nothing
    assert record.log[-2:] == ["sync", "read"]


def test_assertion_with_message_and_indices_in_every_dimension():
    with pytest.raises(AssertionError) as info:
        _raise(FakeRecord((12, 1, 2, 3, 4, 5, 6)))
    assert str(info.value) == ("value must be positive in kernel 'k' at thread (1, 2, 3) of "
                               "block (4, 5, 6) (raised in dev at /src/kern.py:4)")


def test_assertion_without_message_or_location():
    with pytest.raises(AssertionError) as info:
        _raise(FakeRecord((13, 0, 0, 0, 0, 0, 0)))
    assert str(info.value) == "assertion failed in kernel 'k' at thread (0, 0, 0) of block (0, 0, 0)"


def test_exception_classes_keep_their_type():
    with pytest.raises(KeyError) as info:
        _raise(FakeRecord((14, 0, 0, 0, 9, 0, 0)))
    assert "'missing' in kernel 'k'" in str(info.value)
    # a class that cannot be made from one message still reports, as a RuntimeError
    with pytest.raises(RuntimeError, match=r"^UnicodeDecodeError: .* in kernel 'k' at thread"):
        _raise(FakeRecord((15, 0, 0, 0, 0, 0, 0)))


@pytest.mark.parametrize("code, what", [(99, "unknown exception id 99"),
                                        (-1, "an error without an exception"),
                                        (-3, "StopIteration")])
def test_codes_without_an_entry_are_system_errors(code, what):
    record = FakeRecord((code, 2, 0, 0, 0, 0, 0))
    with pytest.raises(SystemError, match=f"device code reported {what} in kernel 'k' at thread "
                                          r"\(2, 0, 0\)"):
        _raise(record)
    assert record.log[-1] == "clear"


def test_short_read_is_an_error_not_a_silent_pass():
    record = FakeRecord()
    record.data = b"\x01\x00"
    with pytest.raises(RuntimeError, match="read 2 bytes of the error record, expected 28"):
        _raise(record)


# ---- the launch path, with a fake driver -----------------------------------------------------
class _FakeDriver:
    def __init__(self):
        from cuda.bindings import driver

        self.ok = driver.CUresult.CUDA_SUCCESS
        self.calls = []

    def cuLaunchKernel(self, *args):
        self.calls.append("launch")
        return (self.ok,)

    def cuStreamSynchronize(self, handle):
        self.calls.append("sync")
        return (self.ok,)


def _fake_loaded(monkeypatch, record):
    from numba_cuda.runtime import cudriver, launch, streams

    fake = _FakeDriver()
    monkeypatch.setattr(cudriver, "driver", lambda: fake)
    loaded = object.__new__(launch.LoadedKernel)
    loaded.name = "k"
    loaded.cooperative = False
    loaded.function = "FUNCTION"
    loaded.context = SimpleNamespace(device=SimpleNamespace(MULTIPROCESSOR_COUNT=1),
                                     active=contextlib.nullcontext)
    loaded.attributes = {"max_threads": 1024, "shared": 0}
    loaded.dynamic_shared_limit = launch.DEFAULT_DYNAMIC_SHARED_LIMIT
    loaded.packer = SimpleNamespace(pack=lambda args, state: 0)
    loaded._configs = {}
    if record is not None:
        loaded.error_record = record
        loaded.exceptions = TABLE
    stream = object.__new__(streams.Stream)
    stream.__dict__.update(handle="STREAM", context=loaded.context)  # the kernel's device
    return loaded, fake, stream


def test_launch_of_a_debug_kernel_synchronises_reads_and_raises(monkeypatch):
    record = FakeRecord((12, 5, 0, 0, 2, 0, 0))
    loaded, fake, stream = _fake_loaded(monkeypatch, record)
    with pytest.raises(AssertionError, match=r"in kernel 'k' at thread \(5, 0, 0\) of block \(2, 0, 0\)"):
        loaded.launch(4, 32, stream, 0, ())
    assert fake.calls == ["launch", "sync"]
    assert record.log == ["read", "clear"]


def test_launch_of_an_ordinary_kernel_does_not_synchronise(monkeypatch):
    loaded, fake, stream = _fake_loaded(monkeypatch, None)
    loaded.launch(4, 32, stream, 0, ())
    assert fake.calls == ["launch"]


class _ModuleDriver:
    """Fake driver for ErrorRecord: a module global in fake device memory."""

    def __init__(self, size=28):
        from cuda.bindings import driver

        self.ok = driver.CUresult.CUDA_SUCCESS
        self.memory = bytearray(struct.pack(RECORD_FORMAT, 12, 1, 0, 0, 3, 0, 0))
        self.size = size
        self.looked_up = []
        self.CUdeviceptr = int

    def cuModuleGetGlobal(self, module, name):
        self.looked_up.append((module, name))
        return (self.ok, 0xD000, self.size)

    def cuMemcpyDtoH(self, host_pointer, device_pointer, nbytes):
        import ctypes

        assert device_pointer == 0xD000 and nbytes == 28
        ctypes.memmove(host_pointer, bytes(self.memory[:nbytes]), nbytes)
        return (self.ok,)

    def cuMemsetD32(self, device_pointer, value, count):
        assert device_pointer == 0xD000 and count == 7
        self.memory[:] = struct.pack("<i", value) * count
        return (self.ok,)


def test_error_record_reads_and_clears_through_the_driver(monkeypatch):
    from numba_cuda.runtime import cudriver

    fake = _ModuleDriver()
    monkeypatch.setattr(cudriver, "driver", lambda: fake)
    record = kernel_errors.ErrorRecord("MODULE", "k__errors")
    assert fake.looked_up == [("MODULE", b"k__errors")]
    with pytest.raises(AssertionError, match=r"thread \(1, 0, 0\) of block \(3, 0, 0\)"):
        kernel_errors.raise_recorded_exception(record, TABLE, lambda: None)
    assert bytes(fake.memory) == bytes(28)
    kernel_errors.raise_recorded_exception(record, TABLE, lambda: None)  # nothing left


def test_error_record_of_the_wrong_size_is_refused(monkeypatch):
    from numba_cuda.runtime import cudriver

    monkeypatch.setattr(cudriver, "driver", lambda: _ModuleDriver(size=4))
    with pytest.raises(RuntimeError, match="has 4 bytes, expected 28"):
        kernel_errors.ErrorRecord("MODULE", "k__errors")
