"""The array views of a sanitized launch (:mod:`.sanitizer`): numpy arrays whose element
accesses, while the launch runs, go through the sanitizer's checks.

A module of its own, importing only numpy and :mod:`.threadstate`, so that modules below the
sanitizer (:mod:`.fixedwidth`) can name the classes: a checked array must be treated as the
plain array it views.
"""

import numpy as np

from .threadstate import state

#: The sanitized launch running now (:class:`.sanitizer.Launch`), set by the sanitizer; None
#: otherwise (views left over from a launch are then plain arrays).
launch = None


class CheckedArray(np.ndarray):
    """A view whose element accesses the running sanitized launch checks and records."""

    def __array_finalize__(self, obj):
        region = getattr(obj, "_san_region", None)
        self._san_region = None
        if region is not None:
            ptr = self.__array_interface__["data"][0]
            if region.lo <= ptr < region.hi:  # a view of the region (not a new result array)
                self._san_region = region
                self._san_off = ptr - region.lo
                self._san_misaligned = not self.flags.aligned

    def __getitem__(self, idx):
        checker = launch
        if checker is None or self._san_region is None or state.current is None:
            return super().__getitem__(idx)
        return checker.load(self, idx, super().__getitem__)

    def __setitem__(self, idx, value):
        checker = launch
        if checker is None or self._san_region is None or state.current is None:
            return super().__setitem__(idx, value)
        return checker.store(self, idx, value, super().__setitem__)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # whole-array arithmetic in a kernel: plain numpy on plain arrays
        inputs = tuple(x.view(np.ndarray) if isinstance(x, CheckedArray) else x for x in inputs)
        out = kwargs.get("out")
        if out:
            kwargs["out"] = tuple(x.view(np.ndarray) if isinstance(x, CheckedArray) else x
                                  for x in out)
        return getattr(ufunc, method)(*inputs, **kwargs)


class CheckedRecArray(CheckedArray, np.recarray):
    """:class:`CheckedArray` of records, with ``rec.field`` access as kernels spell it."""


#: Both classes, for type tests that must see a checked array as an array.
CLASSES = (CheckedArray, CheckedRecArray)


def checked(ary, region):
    """A checking view of ``ary``, whose memory lies in ``region``."""
    cls = CheckedRecArray if isinstance(ary, np.recarray) else CheckedArray
    view = ary.view(cls)
    view._san_region = region
    view._san_off = ary.__array_interface__["data"][0] - region.lo
    view._san_misaligned = not ary.flags.aligned
    return view
