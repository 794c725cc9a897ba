"""Checking a CUDA Array Interface (version 3) dict, for both targets.

:func:`parse_cuda_array_interface` refuses what the specification forbids or
what cannot be device memory (missing keys, malformed entries, Python object
items, ``"stream": 0``, a null pointer for a non-empty array, masks) and
normalises the rest (explicit byte strides, numpy dtype, byte span).  It
touches no memory and no GPU: the real target (:mod:`numba_cuda.runtime.interop`)
and the simulator (which reads the memory on the host) share it.
"""

import collections
import math
import numbers

import numpy as np

from numba_cuda.common.array_layout import c_strides, span

ArrayInterface = collections.namedtuple(
    "ArrayInterface",
    ["shape", "strides", "dtype", "pointer", "readonly", "stream", "version", "lo", "hi"])
ArrayInterface.__doc__ = """A checked CUDA Array Interface: byte ``strides`` always explicit,
``stream`` None or a handle value (1 legacy default, 2 per-thread default), the bytes
spanned are ``pointer + lo`` .. ``pointer + hi``."""

_REQUIRED = ("shape", "typestr", "data", "version")


def _fail(message):
    raise ValueError(f"invalid __cuda_array_interface__: {message}")


def _dtype_from_descr(descr):
    """A structured dtype from an interface ``descr`` (unnamed entries are padding)."""
    names, formats, offsets = [], [], []
    offset = 0
    for field in descr:
        name, fmt = field[0], field[1]
        sub = np.dtype(_dtype_from_descr(fmt) if isinstance(fmt, list) else fmt)
        if len(field) > 2:
            sub = np.dtype((sub, tuple(field[2])))
        if name:
            names.append(name)
            formats.append(sub)
            offsets.append(offset)
        offset += sub.itemsize
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": offset})


def _dtype(desc):
    typestr = desc["typestr"]
    if not isinstance(typestr, str):
        _fail(f"'typestr' must be a string, got {typestr!r}")
    try:
        dtype = np.dtype(typestr)
    except Exception as exc:  # noqa: BLE001 - numpy raises TypeError, ValueError, SyntaxError ...
        _fail(f"'typestr' {typestr!r} is not a numpy type string ({exc})")
    descr = desc.get("descr")
    if dtype.kind == "V" and descr:
        try:
            structured = _dtype_from_descr(descr)
        except Exception as exc:  # noqa: BLE001 - any malformed nesting
            _fail(f"'descr' {descr!r} does not describe a structured type ({exc})")
        if structured.itemsize != dtype.itemsize:
            _fail(f"'descr' describes {structured.itemsize}-byte items but 'typestr' "
                  f"{typestr!r} has {dtype.itemsize}")
        if structured.fields is not None:
            dtype = structured
    if dtype.hasobject:
        _fail("Python object items cannot live in device memory")
    return dtype


def parse_cuda_array_interface(desc):
    """Check a CUDA Array Interface dict; return an :data:`ArrayInterface`."""
    if not isinstance(desc, dict):
        raise TypeError(f"__cuda_array_interface__ must be a dict, got {type(desc).__name__}")
    for key in _REQUIRED:
        if key not in desc:
            _fail(f"the required key {key!r} is missing")
    version = desc["version"]
    if not isinstance(version, numbers.Integral) or isinstance(version, bool) or version < 0:
        _fail(f"'version' must be a non-negative integer, got {version!r}")

    shape = desc["shape"]
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 0 for s in shape):
        _fail(f"'shape' must be a tuple of non-negative integers, got {shape!r}")
    shape = tuple(int(s) for s in shape)
    dtype = _dtype(desc)

    data = desc["data"]
    if not isinstance(data, (tuple, list)) or len(data) != 2 \
            or not isinstance(data[0], numbers.Integral) or isinstance(data[0], bool):
        _fail(f"'data' must be a (pointer: int, read_only: bool) pair, got {data!r}")
    pointer, readonly = int(data[0]), bool(data[1])
    if pointer < 0:
        _fail(f"the data pointer {pointer} is negative")

    strides = desc.get("strides")
    if strides is None:
        strides = c_strides(shape, dtype.itemsize)
    else:
        if not isinstance(strides, (tuple, list)) or len(strides) != len(shape) or not all(
                isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in strides):
            _fail(f"'strides' must be None or {len(shape)} integers (bytes), got {strides!r}")
        strides = tuple(int(s) for s in strides)

    mask = desc.get("mask")
    if mask is not None:
        raise NotImplementedError("masked CUDA arrays ('mask' is not None) are not supported")

    stream = desc.get("stream")
    if stream is not None:
        if not isinstance(stream, numbers.Integral) or isinstance(stream, bool):
            _fail(f"'stream' must be None or an integer stream handle, got {stream!r}")
        stream = int(stream)
        if stream == 0:
            _fail("'stream' is 0, which version 3 disallows as ambiguous: use 1 for the "
                  "legacy default stream, 2 for the per-thread default stream, or None")

    lo, hi = span(shape, strides, dtype.itemsize)
    size = math.prod(shape)  # exact: a product that overflows int64 must not look empty
    if size and pointer == 0:
        _fail(f"the data pointer is null for an array of {size} elements")
    return ArrayInterface(shape, strides, dtype, pointer, readonly, stream, int(version), lo, hi)
