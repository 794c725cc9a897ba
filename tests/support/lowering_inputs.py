"""What a compile hands lowering and libNVVM, recorded, for the tests that compare a replaced
compiler piece with Numba's own (tests/compiler/test_front_end.py, test_strip_phis.py,
test_operator_lowering.py, test_statement_lowering.py, test_lowering_fast_paths.py,
test_type_inference.py).

``compile_recording(cuda, monkeypatch, fn, sig, device, describe, cc=...)`` compiles with
``cuda.compile_ptx`` for ``sm_<cc>`` and returns ``(seen, ptx)``: ``seen`` holds
``describe(state)`` for every function lowered on the way (device functions first, the kernel
last).  ``assert_same_lowering(ours, our_ptx, numbas, numba_ptx)`` is the comparison the
front-end tests make.  ``nvvm_inputs`` records the NVVM IR texts instead.
"""

import re
from collections import Counter


def normalised_ptx(ptx):
    """PTX lines as a multiset, with register numbers and mangled names blanked (both differ
    with the order the compiler happened to number things in)."""
    body = [line.strip() for line in ptx.splitlines()
            if line.strip() and not line.startswith("//")]
    return Counter(re.sub(r"%(r[dfhsp]?|p|f|fd|rs)\d+", r"%\1", re.sub(r"_ZN\w+", "SYM", line))
                   for line in body)


def compile_recording(cuda, monkeypatch, fn, sig, device, describe, *, cc):
    from numba_cuda.compiler import pipeline

    seen = []
    original = pipeline.CUDANativeLowering.run_pass

    def recording(self, state):
        seen.append(describe(state))
        return original(self, state)

    monkeypatch.setattr(pipeline.CUDANativeLowering, "run_pass", recording)
    try:
        ptx, _ = cuda.compile_ptx(fn, sig, device=device, cc=cc)
    finally:
        monkeypatch.undo()
    return seen, ptx


def assert_same_lowering(ours, our_ptx, numbas, numba_ptx):
    """Device functions compiled on the way are cached after the first compile: compare the
    kernel's own function (the last one lowered) and every function both compiles lowered
    (``describe`` puts the function's name first), then the PTX."""
    assert ours and numbas
    assert ours[-1] == numbas[-1]
    theirs = {entry[0]: entry for entry in numbas}
    for entry in ours:
        if entry[0] in theirs:
            assert entry == theirs[entry[0]]
    assert normalised_ptx(our_ptx) == normalised_ptx(numba_ptx)


#: What differs between two compiles of the same kernel: Numba IR variable numbers, unique
#: ids in mangled names and the status codes of raised exceptions.
UNIQUE = re.compile(r"\$\d+|v\d+(?=B)|_ZN\w+|(?<=ret i32 )[1-9]\d*")


def nvvm_inputs(cuda, monkeypatch, fn, sig, device, replacements=(), *, cc, **options):
    """``(NVVM IR texts handed to libNVVM with UNIQUE masked, PTX)`` of one compile, with
    ``replacements`` (``(owner, attribute, value)`` triples) set for its duration."""
    from numba_cuda.compiler import nvvm

    for owner, name, value in replacements:
        monkeypatch.setattr(owner, name, value)
    texts = []
    original = nvvm.compile_ir

    def recording(modules, *args, **kwargs):
        texts.extend(UNIQUE.sub("ID", text) for _name, text in modules)
        return original(modules, *args, **kwargs)

    monkeypatch.setattr(nvvm, "compile_ir", recording)
    try:
        ptx, _ = cuda.compile_ptx(fn, sig, device=device, cc=cc, **options)
    finally:
        monkeypatch.undo()
    return texts, ptx
