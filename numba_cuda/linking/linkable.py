"""In-memory pieces of code to link: ``link=[...]`` items once read and classified.

A ``link=`` item is a path (``str`` / ``os.PathLike``) or one of the classes below,
which let code that never touched the disk be linked (``CUSource(text)``,
``PTXSource(ptx)``, ``LTOIR(bytes)`` ...).  The classes take ``bytes``, ``str``
(UTF-8), a buffer, or a readable file-like object (``io.StringIO``,
``io.BytesIO``, an open file): the latter is read once, when ``.data`` is first
used, as NVIDIA's numba-cuda does.
"""

import hashlib
import os

from ..errors import LinkerError
from . import filekinds


class LinkableCode:
    """Code of one ``kind`` (see :mod:`.filekinds`) with a ``name`` used in messages."""

    kind = None
    default_name = "<code>"

    def __init__(self, data, name=None, nrt=False):
        self.name = name or self.default_name
        #: the code calls the device NRT (``NRT_Allocate`` ...): kernels linking it link the NRT
        #: with its functions visible (NVIDIA's ``nrt=True``)
        self.nrt = bool(nrt)
        if callable(getattr(data, "read", None)):
            self._data, self._source = None, data  # read when .data is first used
        else:
            self._data, self._source = self._normalise(self._as_bytes(data)), None

    def _as_bytes(self, data):
        if isinstance(data, str):
            return data.encode("utf-8")
        if isinstance(data, (bytearray, memoryview)):
            return bytes(data)
        if isinstance(data, bytes):
            return data
        raise TypeError(
            f"{type(self).__name__} takes bytes, str or a readable file-like object "
            f"(io.StringIO, io.BytesIO, an open file), not {type(data).__name__}"
        )

    def _normalise(self, data):
        return data

    @property
    def data(self):
        if self._source is not None:
            source, self._source = self._source, None
            try:
                read = source.read()
            except Exception as exc:  # noqa: BLE001 - named with the code object in the message
                raise LinkerError(f"cannot read the code to link from {source!r} ({self.name}): {exc}") from exc
            if not isinstance(read, (str, bytes, bytearray, memoryview)):
                raise TypeError(
                    f"{type(self).__name__}: {type(source).__name__}.read() returned "
                    f"{type(read).__name__}, not bytes or str"
                )
            self._data = self._normalise(self._as_bytes(read))
        return self._data

    @data.setter
    def data(self, value):
        self._data, self._source = self._normalise(self._as_bytes(value)), None

    @property
    def code(self):
        """The bytes (cuda.core's ``ObjectCode.code`` spelling of :attr:`data`)."""
        return self.data

    @property
    def digest(self):
        return hashlib.sha256(self.data).hexdigest()

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, {len(self.data)} bytes)"

    def __eq__(self, other):
        return type(self) is type(other) and self.data == other.data and self.name == other.name

    def __hash__(self):
        return hash((type(self), self.name, self.data))


class CUSource(LinkableCode):
    """CUDA C/C++ source, compiled with NVRTC for the target when linked."""

    kind = filekinds.CU
    default_name = "<source>.cu"


class PTXSource(LinkableCode):
    kind = filekinds.PTX
    default_name = "<code>.ptx"

    def _normalise(self, data):
        # NVRTC and NVVM hand PTX back NUL-terminated; nvJitLink wants the text.
        return data.rstrip(b"\x00")


class Cubin(LinkableCode):
    kind = filekinds.CUBIN
    default_name = "<code>.cubin"


class Fatbin(LinkableCode):
    kind = filekinds.FATBIN
    default_name = "<code>.fatbin"


class Object(LinkableCode):
    kind = filekinds.OBJECT
    default_name = "<code>.o"


class Archive(LinkableCode):
    kind = filekinds.LIBRARY
    default_name = "<code>.a"


class LTOIR(LinkableCode):
    kind = filekinds.LTOIR
    default_name = "<code>.ltoir"


BY_KIND = {cls.kind: cls for cls in (CUSource, PTXSource, Cubin, Fatbin, Object, Archive, LTOIR)}


def from_bytes(data, name, kind=None):
    """A LinkableCode of ``kind`` (detected from ``data`` and ``name`` when None)."""
    kind = kind or filekinds.detect_kind(name, data)
    try:
        cls = BY_KIND[kind]
    except KeyError:
        raise ValueError(f"unknown kind of code {kind!r}; known: {', '.join(filekinds.KINDS)}") from None
    return cls(data, name)


def from_file(path, kind=None):
    """Read ``path`` and classify it (magic bytes, then extension)."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise LinkerError(f"cannot read the file to link {path!r}: {exc}").with_cause(exc) from None
    return from_bytes(data, path, kind)


def as_linkable(item):
    """Turn a ``link=`` item (path or LinkableCode) into a LinkableCode."""
    if isinstance(item, LinkableCode):
        return item
    if isinstance(item, (str, os.PathLike)):
        return from_file(item)
    raise TypeError(
        f"link= items are file paths or numba_cuda.linking code objects "
        f"(CUSource, PTXSource, Cubin, Fatbin, Object, Archive, LTOIR), not {type(item).__name__}"
    )


def is_ltoir(item):
    """Whether a ``link=`` item (path or LinkableCode) is LTO-IR, which only an ``lto=True`` link
    takes: a code object by its kind, a file by its magic number (``from_file`` classifies
    LTO-IR by nothing else).  A file that cannot be read is not (the link reports it)."""
    if isinstance(item, LinkableCode):
        return item.kind == filekinds.LTOIR
    if not isinstance(item, (str, os.PathLike)):
        return False
    try:
        with open(os.fspath(item), "rb") as f:
            head = f.read(20)
    except OSError:
        return False
    return filekinds.binary_kind(head) == filekinds.LTOIR
