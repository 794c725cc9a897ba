"""``numba.cuda.itanium_mangler``: Numba's ``numba.core.itanium_mangler`` (NVIDIA's numba-cuda
ships a copy of it here), plus ``escape_string``, the public name NVIDIA's copy gives Numba's
``_escape_string`` (the same function).

Every other name is the attribute of Numba's module (``mangle``, ``mangle_identifier``,
``mangle_type_or_value`` ...).
"""

from numba.core import itanium_mangler as _numba_mangler
from numba.core.itanium_mangler import *  # noqa: F401,F403
from numba.core.itanium_mangler import _escape_string  # noqa: F401

#: Hex-escapes every character outside ``[a-zA-Z0-9_]`` (``"<lambda>"`` -> ``"_3clambda_3e"``).
escape_string = _escape_string


def __getattr__(name):
    return getattr(_numba_mangler, name)
