"""Compiling from several threads: libNVVM's API is thread-safe (its manual: "clients can take
advantage of improved compilation speeds by spawning multiple compilation threads
concurrently") and releases the GIL while it compiles, so ``nvvm.compile_ir`` takes no lock of its
own: two threads compile two programs at once, each getting the PTX a serial compile gives."""

import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from numba_cuda.compiler import nvvm
from tests.compiler import corpus_compiler

CC = (9, 0)


@pytest.fixture(scope="module")
def serial_programs(cuda):
    """``[(args, kwargs, result)]`` of every ``nvvm.compile_ir`` call the compiler corpus makes,
    compiled serially."""
    calls = []
    original = nvvm.compile_ir

    def recording(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append((args, kwargs, result))
        return result

    nvvm.compile_ir = recording
    try:
        for _name, fn, sig, device in corpus_compiler.CORPUS:
            cuda.compile_ptx(fn, sig, device=device, cc=CC)
    finally:
        nvvm.compile_ir = original
    assert len(calls) >= len(corpus_compiler.CORPUS)
    return calls


def test_two_threads_are_inside_libnvvm_at_once(serial_programs, monkeypatch):
    """Each of two threads waits inside ``nvvmCompileProgram`` for the other one to get there too
    (a barrier): a lock around the compile would keep the second thread out, and the barrier
    would time out."""
    bindings = nvvm.bindings()
    original = bindings.compile_program
    barrier = threading.Barrier(2, timeout=30)
    met = []

    def meeting(*args):
        if len(met) < 2:
            met.append(barrier.wait())
        return original(*args)

    monkeypatch.setattr(bindings, "compile_program", meeting)
    (args_a, kwargs_a, ptx_a), (args_b, kwargs_b, ptx_b) = serial_programs[:2]
    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(nvvm.compile_ir, *args_a, **kwargs_a)
        b = pool.submit(nvvm.compile_ir, *args_b, **kwargs_b)
        assert (a.result(timeout=60), b.result(timeout=60)) == (ptx_a, ptx_b)
    assert sorted(met) == [0, 1]


def test_concurrent_libnvvm_programs_give_the_serial_ptx(serial_programs):
    work = serial_programs * 3
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda call: nvvm.compile_ir(*call[0], **call[1]), work))
    for (args, _kwargs, expected), got in zip(work, results):
        assert got == expected, args[0][0][0]


def _compile_ptx(cuda, entry):
    fn, sig, device = entry
    ptx, resty = cuda.compile_ptx(fn, sig, device=device, cc=CC)
    return _UNIQUE_ABI_TAG.sub("Bv", ptx), resty  # (a counter per compile: B3v57 ...)


_UNIQUE_ABI_TAG = re.compile(r"B\d+v\d+")


def test_compile_ptx_from_threads_gives_the_serial_ptx(cuda):
    entries = [(fn, sig, device) for _name, fn, sig, device in corpus_compiler.CORPUS]
    serial = [_compile_ptx(cuda, entry) for entry in entries]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda entry: _compile_ptx(cuda, entry), entries * 2))
    assert threaded == serial * 2
