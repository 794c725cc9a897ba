"""Array views as layouts only: ``numba.cuda.cudadrv.dummyarray`` (Numba's and NVIDIA's path).

An :class:`Array` is an offset, a shape, byte strides and an item size -- no memory.  Indexing
with ints and slices, ``reshape`` (of a contiguous layout), ``squeeze``, ``transpose``, the byte
``extent`` and ``iter_contiguous_extent()`` (the contiguous byte ranges a view covers, what a copy
of it moves) answer as NumPy would for an array of that layout.  As this package's device arrays
do, the index arithmetic is NumPy's own, done on a layout array that is never read
(:func:`numba_cuda.runtime.array_layout.layout_array`).

``Array.from_desc(offset, shape, strides, itemsize)`` makes one; ``reshape`` and ``squeeze``
return ``(array, extents)``, the view and the list of its contiguous extents, as the peers' do.
"""

import operator
from collections import namedtuple

import numpy as np

from numba_cuda.runtime.array_layout import (c_strides, f_strides, is_contiguous_layout,
                                             layout_array, span)

#: A byte range ``[begin, end)``.
Extent = namedtuple("Extent", ["begin", "end"])

_BASE = 1 << 44  # where layout arrays place offset 0 (never dereferenced)


class Array:
    """A layout: ``offset`` (bytes), ``shape``, ``strides`` (bytes), ``itemsize``."""

    def __init__(self, offset, shape, strides, itemsize):
        self.offset = operator.index(offset)
        self.shape = tuple(operator.index(n) for n in shape)
        self.strides = tuple(operator.index(s) for s in strides)
        self.itemsize = operator.index(itemsize)
        if len(self.shape) != len(self.strides):
            raise ValueError(f"shape {self.shape} and strides {self.strides} differ in length")
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.flags = {"C_CONTIGUOUS": self.is_c_contig, "F_CONTIGUOUS": self.is_f_contig}

    @classmethod
    def from_desc(cls, offset, shape, strides, itemsize):
        """An Array of this layout (NumPy integers are taken as ints)."""
        return cls(offset, shape, strides, itemsize)

    # -- properties ---------------------------------------------------------------
    @property
    def is_c_contig(self):
        return is_contiguous_layout(self.shape, self.strides, self.itemsize, "C")

    @property
    def is_f_contig(self):
        return is_contiguous_layout(self.shape, self.strides, self.itemsize, "F")

    @property
    def extent(self):
        """The byte range the view touches (``Extent(begin, end)``; empty: ``(offset, offset)``)."""
        lo, hi = span(self.shape, self.strides, self.itemsize)
        return Extent(self.offset + lo, self.offset + hi)

    def __repr__(self):
        return (f"Array(offset={self.offset}, shape={self.shape}, strides={self.strides}, "
                f"itemsize={self.itemsize})")

    # -- views --------------------------------------------------------------------
    def _layout(self):
        return layout_array(_BASE + self.offset, self.shape, self.strides,
                            np.dtype(("V", self.itemsize)))

    @classmethod
    def _of(cls, view, itemsize):
        offset = view.__array_interface__["data"][0] - _BASE
        return cls(offset, view.shape, view.strides, itemsize)

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        if any(item is Ellipsis for item in key):  # as the slices it stands for
            at = next(i for i, item in enumerate(key) if item is Ellipsis)
            used = sum(1 for item in key if item is not None and item is not Ellipsis)
            key = key[:at] + (slice(None),) * max(self.ndim - used, 0) + tuple(
                item for item in key[at + 1:] if item is not Ellipsis)
        picked, dropped, axis = [], [], 0
        for item in key:
            if item is None or isinstance(item, slice):
                picked.append(item)
                if item is not None:
                    axis += 1
                continue
            index = operator.index(item)
            if axis >= self.ndim:
                raise IndexError(f"too many indices for a {self.ndim}-d array: {key!r}")
            extent = self.shape[axis]
            if not -extent <= index < extent:
                raise IndexError(f"index {index} is out of bounds for axis {axis} with size "
                                 f"{extent}")
            index %= extent
            # an int is a one-element slice whose dimension is then dropped: the layout array
            # must never be indexed down to an element (that would read its memory)
            picked.append(slice(index, index + 1))
            dropped.append(len(picked) - 1)  # every item before it (a slice, None) is one dim
            axis += 1
        view = self._layout()[tuple(picked)]
        if dropped:
            view = view.squeeze(axis=tuple(dropped))
        return Array._of(view, self.itemsize)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def transpose(self, axes=None):
        return Array._of(self._layout().transpose(axes), self.itemsize)

    @property
    def T(self):  # noqa: N802 - NumPy's name
        return self.transpose()

    def squeeze(self, axis=None):
        """``(view without the length-1 dimensions, or the ``axis`` ones, its extents)``;
        ValueError for an ``axis`` whose length is not 1."""
        view = Array._of(self._layout().squeeze(axis=axis), self.itemsize)
        return view, list(view.iter_contiguous_extent())

    def reshape(self, *newshape, order="C"):
        """``(a view of ``newshape``, its extents)``: the layout must be contiguous in
        ``order`` ("C", "F" or "A"); one dimension may be -1 (inferred)."""
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        newshape = [operator.index(n) for n in newshape]
        if order not in ("C", "F", "A"):
            raise ValueError(f"order must be 'C', 'F' or 'A', not {order!r}")
        if order == "A":
            order = "F" if self.is_f_contig and not self.is_c_contig else "C"
        unknown = [i for i, n in enumerate(newshape) if n == -1]
        if len(unknown) > 1:
            raise ValueError("can only specify one unknown dimension")
        if any(n < -1 for n in newshape):
            raise ValueError(f"negative dimensions are not allowed: {tuple(newshape)}")
        if unknown:
            known = int(np.prod([n for n in newshape if n != -1], dtype=np.int64))
            if known == 0 or self.size % known:
                raise ValueError(f"cannot infer valid shape for unknown dimension: size "
                                 f"{self.size} into {tuple(newshape)}")
            newshape[unknown[0]] = self.size // known
        newshape = tuple(newshape)
        if int(np.prod(newshape, dtype=np.int64)) != self.size:
            raise ValueError(f"cannot reshape an array of size {self.size} into shape "
                             f"{newshape}")
        contiguous = self.is_c_contig if order == "C" else self.is_f_contig
        if not contiguous:
            raise NotImplementedError(f"reshape of a layout that is not {order}-contiguous "
                                      f"(shape {self.shape}, strides {self.strides}): it would "
                                      f"need a copy")
        strides = (c_strides if order == "C" else f_strides)(newshape, self.itemsize)
        view = Array(self.extent.begin if self.size else self.offset, newshape, strides,
                     self.itemsize)
        return view, list(view.iter_contiguous_extent())

    def ravel(self, order="C"):
        """``(the 1-d view, its extents)`` of a contiguous layout."""
        return self.reshape(self.size, order=order)

    # -- extents ------------------------------------------------------------------
    def iter_contiguous_extent(self):
        """The byte ranges of the view, each contiguous, in memory order of the outermost
        dimension: one for a C- or F-contiguous view, else one per contiguous piece."""
        if self.size == 0:
            return
        if self.is_c_contig or self.is_f_contig:
            yield self.extent
            return
        # split along the dimension of the largest stride and look inside each piece
        outer = max(range(self.ndim), key=lambda d: abs(self.strides[d]))
        for i in range(self.shape[outer]):
            index = [slice(None)] * self.ndim
            index[outer] = i
            yield from self[tuple(index)].iter_contiguous_extent()

