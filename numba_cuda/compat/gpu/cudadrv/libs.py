"""Numba's ``cudadrv.libs``: ``test()`` reports each toolkit component found."""


def test():
    """Print where each CUDA toolkit component was found (or why not); True if all were."""
    from numba_cuda.toolkit import COMPONENTS, get_toolkit
    from numba_cuda.toolkit.layouts import OPTIONAL_COMPONENTS

    toolkit = get_toolkit()
    major = f"CUDA {toolkit.cuda_major}" if toolkit.cuda_major else "no CUDA toolkit"
    print(f"Toolkit: {major}" + (f" from {toolkit.source} ({toolkit.root})" if toolkit.source
                                 else ""))
    ok = True
    for name in COMPONENTS:
        comp = toolkit.components.get(name)
        if comp is None:
            continue
        if comp.found:
            version = f" version {comp.version}" if comp.version else ""
            print(f"Finding {name} from {comp.source}\n\tLocated at {comp.path}{version}\n"
                  f"\tChecking {name} library... ok")
        else:
            optional = name == "ptxas" or name in OPTIONAL_COMPONENTS
            ok = ok and optional
            print(f"Finding {name}\n\t{'(optional) ' if optional else ''}ERROR: {comp.error}")
    if not ok:
        from numba_cuda.toolkit.model import fixes_of

        for fix, names in fixes_of(toolkit.components.values()):
            print(f"Fix ({', '.join(names)}): {fix}")
    return ok


def get_cudalib(lib):
    """Absolute path of a toolkit library: ``nvvm``, ``nvrtc``, ``cudart``, ``nvjitlink``."""
    from numba_cuda.toolkit import get_toolkit

    return get_toolkit().require(lib).path
