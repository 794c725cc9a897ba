"""In-memory link items (CUSource, PTXSource, ...) take bytes, str, buffers and
readable file-like objects (NVIDIA's numba-cuda accepts StringIO/BytesIO)."""

import io

import pytest

from numba_cuda.errors import LinkerError
from numba_cuda.linking import LTOIR, CUSource, PTXSource

SOURCE = '// ünïcode comment\nextern "C" __device__ int f(int x) { return x; }\n'


@pytest.mark.parametrize("make", [
    lambda: SOURCE,
    lambda: SOURCE.encode(),
    lambda: bytearray(SOURCE.encode()),
    lambda: memoryview(SOURCE.encode()),
    lambda: io.StringIO(SOURCE),
    lambda: io.BytesIO(SOURCE.encode()),
], ids=["str", "bytes", "bytearray", "memoryview", "StringIO", "BytesIO"])
def test_cusource_accepts_every_form_and_gives_utf8_bytes(make):
    assert CUSource(make()).data == SOURCE.encode("utf-8")


def test_file_like_is_read_once_when_data_is_first_used():
    class Counting(io.StringIO):
        reads = 0

        def read(self, *args):
            type(self).reads += 1
            return super().read(*args)

    buf = Counting(SOURCE)
    code = CUSource(buf, name="k.cu")
    assert Counting.reads == 0  # not read at construction
    assert code.data == SOURCE.encode() and code.data == SOURCE.encode()
    assert Counting.reads == 1
    assert code.digest == CUSource(SOURCE, name="k.cu").digest
    assert code == CUSource(SOURCE, name="k.cu")


def test_open_file_is_accepted(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text(SOURCE, encoding="utf-8")
    with open(path, "rb") as f:
        code = CUSource(f)
        assert code.data == SOURCE.encode()


def test_ptx_from_a_buffer_is_stripped_of_the_terminating_nul():
    assert PTXSource(io.BytesIO(b".version 8.0\n\x00")).data == b".version 8.0\n"
    assert PTXSource(b".version 8.0\n\x00").data == b".version 8.0\n"


def test_refusals_name_the_accepted_forms():
    with pytest.raises(TypeError, match=r"CUSource takes bytes, str or a readable file-like object.*not int"):
        CUSource(3)

    class BadRead:
        def read(self):
            return 42

    with pytest.raises(TypeError, match=r"LTOIR: BadRead.read\(\) returned int"):
        LTOIR(BadRead()).data

    class Failing:
        def read(self):
            raise OSError("device gone")

    with pytest.raises(LinkerError, match="cannot read the code to link.*device gone"):
        CUSource(Failing(), name="x.cu").data
