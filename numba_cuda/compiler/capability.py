"""Compute capabilities: which ones the installed libNVVM accepts, the default, validation.

Where no compute capability is given (:func:`resolve_cc`), the caller's default is used: the
dispatch layer's objects pass the current device's compute capability; without one (no GPU, or
the compiler used alone) it is the **lowest one the installed libNVVM accepts**: 5.0 with CUDA
12's libNVVM, 7.5 with CUDA 13's.  This module never asks the runtime, and nothing installs a
global default into it.

Numba's settings (``numba.config``, from the environment or ``.numba_config.yaml``):

* ``NUMBA_CUDA_DEFAULT_PTX_CC`` -- the default of ``compile``/``compile_ptx`` (``cc=None``) when
  set (:func:`default_ptx_cc`); one the installed libNVVM does not accept is an error naming it.
* ``NUMBA_FORCE_CUDA_CC`` -- every compilation targets this cc, whatever was asked
  (:func:`forced_cc`, applied where PTX / LTO-IR is made).
"""

import os

from ..errors import NvvmError

#: Every compute capability we know how to name, in ascending order.  What the installed
#: libNVVM really accepts is found by asking it (``supported_ccs``).
KNOWN_CCS = (
    (5, 0), (5, 2), (5, 3), (6, 0), (6, 1), (6, 2), (7, 0), (7, 2), (7, 5),
    (8, 0), (8, 6), (8, 7), (8, 9), (9, 0), (10, 0), (10, 3), (11, 0), (12, 0), (12, 1),
)


class UnsupportedCCError(NvvmError, ValueError):
    """A compute capability that the installed libNVVM does not accept (or that is malformed)."""


def arch_name(cc, prefix="compute"):
    """``(9, 0)`` -> ``"compute_90"``; a third element is a suffix: ``(9, 0, "a")`` -> ``"compute_90a"``."""
    suffix = cc[2] if len(cc) > 2 else ""
    return f"{prefix}_{cc[0]}{cc[1]}{suffix}"


def _is_whole_number(value):
    """An int (NumPy's too), never a float, bool or string: ``(8.6, 0)`` must not become 8.0."""
    import numbers

    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def normalize(cc):
    """Accept ``(9, 0)``, ``"9.0"``, ``"90"``, ``"sm_90"``, ``"compute_90a"``; return a tuple."""
    if isinstance(cc, str):
        text = cc.strip().lower()
        for prefix in ("compute_", "sm_"):
            if text.startswith(prefix):
                text = text[len(prefix):]
        suffix = ""
        if text and text[-1] in "af":
            text, suffix = text[:-1], text[-1]
        try:
            if "." in text:
                major, minor = (int(p) for p in text.split("."))
            else:
                major, minor = int(text[:-1]), int(text[-1])
        except ValueError:
            raise UnsupportedCCError(
                f"compute capability {cc!r} is malformed; write it as (major, minor), e.g. (8, 0)"
            ) from None
        return (major, minor, suffix) if suffix else (major, minor)
    try:
        parts = tuple(cc)
        if len(parts) not in (2, 3):
            raise ValueError
        major, minor = parts[0], parts[1]
        if not all(_is_whole_number(p) for p in (major, minor)):
            raise ValueError
        major, minor = int(major), int(minor)
        if major < 0 or minor < 0:
            raise ValueError
    except (TypeError, ValueError):
        raise UnsupportedCCError(
            f"compute capability {cc!r} is malformed; write it as two integers (major, minor), "
            "e.g. (8, 6) for 8.6"
        ) from None
    if len(parts) == 3 and parts[2]:
        return (major, minor, str(parts[2]))
    return (major, minor)


def supported_ccs():
    """The compute capabilities (among ``KNOWN_CCS``) the installed libNVVM accepts, ascending."""
    from . import nvvm

    return tuple(cc for cc in KNOWN_CCS if nvvm.accepts_arch(arch_name(cc)))


#: Where to start looking for the lowest accepted cc, per CUDA major (saves NVVM probes).
_LOWEST_HINT = {12: (5, 0), 13: (7, 5)}


def lowest_supported_cc():
    """The lowest of ``KNOWN_CCS`` libNVVM accepts (CUDA 12: 5.0, CUDA 13: 7.5), found by asking
    libNVVM, starting from the documented minimum of the toolkit's CUDA major."""
    from . import nvvm

    accepts = lambda cc: nvvm.accepts_arch(arch_name(cc))  # noqa: E731
    start = 0
    try:
        from .. import toolkit

        hint = _LOWEST_HINT.get(toolkit.get_toolkit().cuda_major)
        if hint is not None:
            start = KNOWN_CCS.index(hint)
    except Exception:  # noqa: BLE001 - the hint is only an optimisation
        start = 0
    index = start
    if accepts(KNOWN_CCS[index]):
        while index > 0 and accepts(KNOWN_CCS[index - 1]):
            index -= 1
        return KNOWN_CCS[index]
    for cc in KNOWN_CCS[start + 1:]:
        if accepts(cc):
            return cc
    raise UnsupportedCCError("the installed libNVVM accepts none of the known compute capabilities")


def check_cc(cc):
    """Normalise ``cc`` and make sure libNVVM accepts it; else raise ``UnsupportedCCError``
    listing the supported ones."""
    from . import nvvm

    cc = normalize(cc)
    if not nvvm.accepts_arch(arch_name(cc)):
        listed = ", ".join(f"{c[0]}.{c[1]}" for c in supported_ccs())
        raise UnsupportedCCError(
            f"compute capability {cc[0]}.{cc[1]}{cc[2] if len(cc) > 2 else ''} is not supported by "
            f"the installed libNVVM (NVVM {'.'.join(map(str, nvvm.version()))}); supported: {listed}"
        )
    return cc


#: Numba's value of ``config.CUDA_DEFAULT_PTX_CC`` when the variable is not set.
_NUMBA_DEFAULT_PTX_CC = (5, 0)


def __getattr__(name):
    # ``numba.cuda.config_default_cc`` (NVIDIA's name): Numba's configured default cc,
    # ``numba.config.CUDA_DEFAULT_PTX_CC`` (NUMBA_CUDA_DEFAULT_PTX_CC, else Numba's 5.0), read
    # when first asked for.  Not necessarily what compile_ptx uses: see default_ptx_cc().
    if name == "config_default_cc":
        from numba.core import config

        value = tuple(getattr(config, "CUDA_DEFAULT_PTX_CC", _NUMBA_DEFAULT_PTX_CC))
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_ptx_cc():
    """The cc of ``compile``/``compile_ptx`` without ``cc``: ``NUMBA_CUDA_DEFAULT_PTX_CC`` when set
    (in the environment or ``numba.config``), else the lowest cc the installed libNVVM accepts."""
    from numba.core import config

    cc = getattr(config, "CUDA_DEFAULT_PTX_CC", None)
    if cc is None or (tuple(cc) == _NUMBA_DEFAULT_PTX_CC
                      and not os.environ.get("NUMBA_CUDA_DEFAULT_PTX_CC", "").strip()):
        return lowest_supported_cc()
    return _setting_cc("NUMBA_CUDA_DEFAULT_PTX_CC", cc)


def forced_cc():
    """``NUMBA_FORCE_CUDA_CC`` (``numba.config.FORCE_CUDA_CC``) as a checked cc, or None."""
    from numba.core import config

    cc = getattr(config, "FORCE_CUDA_CC", None)
    return _setting_cc("NUMBA_FORCE_CUDA_CC", cc) if cc else None


def _setting_cc(variable, cc):
    try:
        return check_cc(cc)
    except UnsupportedCCError as exc:
        raise UnsupportedCCError(f"{variable}={cc[0]}.{cc[1]}: {exc}; set {variable} to one of "
                                 "those, or unset it") from None


def resolve_cc(cc, default=None):
    """The compute capability to compile for: ``cc`` when given (checked); else what the
    caller's ``default()`` returns, when it returns one (the dispatch layer passes the current
    device's compute capability, ``compile_ptx`` passes :func:`default_ptx_cc`); else the lowest
    the installed libNVVM accepts.  The compiler never asks for a device itself."""
    if cc is not None:
        return check_cc(cc)
    if default is not None:
        cc = default()
        if cc is not None:
            return check_cc(cc)
    return lowest_supported_cc()
