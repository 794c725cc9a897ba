"""``KernelImage`` (numba_cuda.common.kernel_image): the frozen value that crosses from the
compiler (or the disk cache) to the runtime, which reads its fields and nothing else."""

import dataclasses
import pathlib
import re
import struct

import pytest
from numba.core import types

from numba_cuda.common.kernel_image import KernelImage
from tests.support.fake_driver import installed_for_launches

FIELDS = ("entry_name", "argtypes", "cc", "ptx", "ltoir", "link_files", "cooperative", "debug",
          "lineinfo", "max_registers", "error_global", "exceptions", "nrt_global")

# A kernel written by hand: no compiler involved.
PTX = """
.version 8.0
.target sm_80
.address_size 64

.visible .entry hand_made(
    .param .u64 hand_made_param_0,
    .param .u32 hand_made_param_1
)
{
    ret;
}
"""


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch)


def _image(**changes):
    fields = dict(entry_name="hand_made", argtypes=[types.uint64, types.int32], cc=[8, 0],
                  ptx=PTX)
    fields.update(changes)
    return KernelImage(**fields)


def test_the_fields_and_that_they_are_frozen():
    image = _image(link_files=["a.cu"])
    assert KernelImage.FIELDS == FIELDS
    # containers are normalised to tuples: immutable all the way down
    assert image.argtypes == (types.uint64, types.int32) and image.cc == (8, 0)
    assert image.link_files == ("a.cu",)
    assert not image.lto and image.cooperative is False and image.error_global is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        image.ptx = "changed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del image.ptx
    assert image.ptx == PTX
    assert hash(image) != hash(_image())  # keyed by identity (the runtime's cache of loads)


def test_exactly_one_of_ptx_and_ltoir():
    assert _image(ptx=None, ltoir=b"\x00lto").lto
    for code in ({"ptx": None}, {"ltoir": b"\x00lto"}):
        with pytest.raises(ValueError, match="exactly one of ptx and ltoir"):
            _image(**code)


def test_the_runtime_launches_an_image_made_by_hand(fake):
    from numba_cuda.runtime.launch import load_kernel

    image = _image()
    loaded = load_kernel(image)
    assert load_kernel(image) is loaded  # loaded once per context
    loaded.launch((2, 1, 1), (32, 1, 1), 0, 0, (0xABCDEF, -3))
    launch = fake.launches[-1]
    assert launch["entry"] == "hand_made" and launch["grid"] == (2, 1, 1)
    assert [struct.unpack(c, raw)[0] for c, raw in zip(("<Q", "<i"), launch["params"])] == \
        [0xABCDEF, -3]


def test_the_runtime_reads_no_defaults_off_a_compiled_kernel():
    # Every attribute the runtime reads of what it is given is a field of KernelImage: no
    # ``getattr(compiled, name, default)`` duck typing is left in numba_cuda/runtime/.
    runtime = pathlib.Path(__file__).resolve().parents[2] / "numba_cuda" / "runtime"
    pattern = re.compile(r"getattr\(\s*(compiled|image|kernel)\b")
    offenders = [f"{path.name}:{n}" for path in sorted(runtime.glob("*.py"))
                 for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert offenders == []


def test_the_compiler_and_the_disk_cache_build_the_same_value():
    from numba import cuda, float32

    from numba_cuda.dispatch.disk_cache import CachedKernel, kernel_payload

    @cuda.jit("void(float32[::1])", debug=True, opt=False)
    def k(a):
        a[0] = 1

    compiled = k.overloads[(float32[::1],)]
    image = compiled.image((8, 0))
    assert type(image) is KernelImage and image.cc == (8, 0) and ".entry" in image.ptx
    assert image.debug and image.error_global and image.exceptions is compiled.exceptions
    cached = CachedKernel(kernel_payload(compiled, image), (8, 0), recompile=None)
    again = cached.image((8, 0))
    assert type(again) is KernelImage
    assert {f: getattr(again, f) for f in FIELDS if f != "exceptions"} == \
        {f: getattr(image, f) for f in FIELDS if f != "exceptions"}
