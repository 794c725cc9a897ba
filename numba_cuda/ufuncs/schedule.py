"""How a gufunc call loops: core dimensions, loop dimensions and broadcast inputs.

:class:`GUFuncEngine` holds a gufunc's core dimensions (from its layout string,
``"(m,n),(n,p)->(m,p)"``); :meth:`GUFuncEngine.schedule` takes the shapes of the
inputs of one call and answers a :class:`GUFuncSchedule`: the core shape of each
input and output, the loop dimensions (the inputs' outer dimensions, broadcast
together by NumPy's rules) and which inputs are *pinned* (broadcast: the same
core slice for every loop index).  :class:`numba_cuda.ufuncs.gufunc.CUDAGUFunc`
schedules each call with it.

``numba.cuda.deviceufunc.GUFuncEngine`` (the class's path in Numba and NVIDIA's
numba-cuda) is this one: ``GUFuncEngine.from_signature(layout).schedule(shapes)``
gives ``ishapes``, ``oshapes``, ``loopdims``, ``loopn`` and ``pinned`` as theirs.
"""

import math

import numpy as np
from numba.np.ufunc.sigparse import parse_signature


class GUFuncSchedule:
    """One call's loop: what :meth:`GUFuncEngine.schedule` answers.

    ``ishapes``/``oshapes``: the core shape of each input/output (an output's is
    ``None`` when one of its core dimensions is fixed by no input: the caller must pass
    that output); ``loopdims``: the loop dimensions; ``loopn``: their product;
    ``pinned``: per input, True when it is broadcast over the loop; ``sizes``: each core
    dimension's extent; ``output_shapes``: ``loopdims + oshape`` per output.
    """

    def __init__(self, engine, ishapes, oshapes, loopdims, pinned, sizes):
        self.parent = engine
        self.ishapes = ishapes
        self.oshapes = oshapes
        self.loopdims = loopdims
        self.loopn = math.prod(loopdims)
        self.pinned = pinned
        self.sizes = sizes
        self.output_shapes = [None if s is None else loopdims + s for s in oshapes]

    def __repr__(self):
        return (f"GUFuncSchedule(ishapes={self.ishapes}, oshapes={self.oshapes}, "
                f"loopdims={self.loopdims}, loopn={self.loopn}, pinned={self.pinned})")


class GUFuncEngine:
    """A gufunc's core dimensions; schedules calls (see the module's docstring)."""

    @classmethod
    def from_signature(cls, signature):
        """From a layout string such as ``"(m,n),(n,p)->(m,p)"``."""
        return cls(*parse_signature(signature))

    def __init__(self, inputsig, outputsig, name="gufunc"):
        self.sin = tuple(tuple(dims) for dims in inputsig)
        self.sout = tuple(tuple(dims) for dims in outputsig)
        self.nin = len(self.sin)
        self.nout = len(self.sout)
        self.name = name

    @staticmethod
    def bind(sizes, dims, extents, where):
        """Record ``dims``' ``extents`` in ``sizes``; ValueError if one disagrees."""
        for dim, extent in zip(dims, extents):
            have = sizes.setdefault(dim, extent)
            if have != extent:
                raise ValueError(f"core dimension {dim!r} is {have} elsewhere but {extent} in "
                                 f"{where}")

    def schedule(self, ishapes):
        """The :class:`GUFuncSchedule` of a call whose inputs have shapes ``ishapes``."""
        ishapes = [tuple(shape) for shape in ishapes]
        if len(ishapes) != self.nin:
            raise TypeError(f"{self.name}: takes {self.nin} input(s), got {len(ishapes)}")
        sizes, outer_shapes, core_shapes = {}, [], []
        for k, (shape, dims) in enumerate(zip(ishapes, self.sin)):
            if len(shape) < len(dims):
                raise ValueError(f"{self.name}: input {k} has {len(shape)} dimension(s), "
                                 f"its core dimensions {dims} need at least {len(dims)}")
            split = len(shape) - len(dims)
            self.bind(sizes, dims, shape[split:], f"input {k}")
            outer_shapes.append(shape[:split])
            core_shapes.append(shape[split:])
        try:
            loopdims = tuple(np.broadcast_shapes(*outer_shapes)) if outer_shapes else ()
        except ValueError:
            raise ValueError(f"{self.name}: the loop dimensions of the inputs "
                             f"{outer_shapes} do not broadcast together") from None
        oshapes = [tuple(sizes[d] for d in dims) if all(d in sizes for d in dims) else None
                   for dims in self.sout]
        pinned = [outer != loopdims for outer in outer_shapes]
        return GUFuncSchedule(self, core_shapes, oshapes, loopdims, pinned, sizes)
