"""The CUDA driver API's constants (``CUDA_SUCCESS``,
``CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK``, ``CU_JIT_INPUT_PTX`` ...), as ints.

``numba.cuda.cudadrv.enums`` (Numba's path for them) is this module, on the GPU target and in
the simulator.  Each name is the member of that name of an enum of
``cuda.bindings.driver`` (``CUresult``, ``CUdevice_attribute``, ``CUjitInputType`` ...), so the
values are those of the installed driver bindings, never a copied table.
"""


def _constants():
    from cuda.bindings import driver

    table = {}
    for attr in dir(driver):
        members = getattr(getattr(driver, attr), "__members__", None)
        if isinstance(attr, str) and attr.startswith("CU") and isinstance(members, dict):
            for name, member in members.items():
                table.setdefault(name, int(member))
    return table


_TABLE = None


def __getattr__(name):
    global _TABLE
    if name.startswith("CU"):
        if _TABLE is None:
            _TABLE = _constants()
        if name in _TABLE:
            globals()[name] = _TABLE[name]
            return _TABLE[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    global _TABLE
    if _TABLE is None:
        _TABLE = _constants()
    return sorted(set(globals()) | set(_TABLE))
