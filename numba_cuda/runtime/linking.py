"""Compile and link device code to a cubin with nvJitLink (no GPU needed).

Inputs are the kernel's PTX plus its link files: ``.ptx``, ``.cubin``,
``.fatbin``, ``.o``, ``.a``, ``.ltoir`` and ``.cu`` (compiled with NVRTC
first).  The nvJitLink used is the one the toolkit module chose.
"""

import os

from numba_cuda.errors import LinkerError, ToolkitError

_KIND_BY_EXT = {
    ".ptx": "PTX", ".cubin": "CUBIN", ".fatbin": "FATBIN", ".o": "OBJECT", ".obj": "OBJECT",
    ".a": "LIBRARY", ".lib": "LIBRARY", ".ltoir": "LTOIR",
}


def load_toolkit_library(name):
    """Have the toolkit module load its copy of ``name`` so the bindings use that one."""
    try:
        from numba_cuda import toolkit
    except ImportError:
        return
    loader = getattr(toolkit, "load_library", None)
    if loader is not None:
        loader(name)


def nvjitlink():
    """The ``cuda.bindings.nvjitlink`` module with the toolkit's library loaded
    (raises ToolkitError when nvJitLink is missing)."""
    try:
        load_toolkit_library("nvjitlink")
        from cuda.bindings import nvjitlink as module

        module.version()
    except ToolkitError:
        raise
    except Exception as exc:  # noqa: BLE001 - the library could not be loaded
        raise ToolkitError(
            f"nvJitLink could not be loaded ({exc}); install it with "
            f'pip install "numba-cuda[cu13]" (or [cu12]), or in conda: '
            f"conda install -c conda-forge libnvjitlink") from exc
    return module


def nvjitlink_version():
    """(major, minor) of the usable nvJitLink, or None when there is none."""
    try:
        return tuple(nvjitlink().version())
    except ToolkitError:
        return None


def input_kind(path):
    ext = os.path.splitext(str(path))[1].lower()
    if ext == ".cu":
        return "CU"
    kind = _KIND_BY_EXT.get(ext)
    if kind is None:
        raise LinkerError(f"don't know how to link {path!r}: expected one of "
                          f"{', '.join(sorted(_KIND_BY_EXT))} or .cu")
    return kind


def compile_cuda_source(source, name, arch, include_dirs=()):
    """CUDA C++ source -> PTX with NVRTC (for ``.cu`` link files)."""
    load_toolkit_library("nvrtc")
    from cuda.bindings import nvrtc

    if isinstance(source, str):
        source = source.encode()
    err, prog = nvrtc.nvrtcCreateProgram(source, str(name).encode(), 0, [], [])
    if err:
        raise LinkerError(f"NVRTC could not create a program for {name}: {err.name}")
    try:
        opts = [f"-arch=compute_{arch[3:]}".encode(), b"-rdc=true"]
        opts += [f"-I{d}".encode() for d in include_dirs]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        if err:
            raise LinkerError(f"NVRTC failed to compile {name}:\n"
                              f"{log.decode(errors='replace').rstrip(chr(0))}")
        _, size = nvrtc.nvrtcGetPTXSize(prog)
        ptx = b" " * size
        nvrtc.nvrtcGetPTX(prog, ptx)
        return ptx
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _toolkit_include_dirs():
    try:
        from numba_cuda import toolkit

        path = toolkit.get_toolkit().components["include"].path
        return [path] if path else []
    except Exception:  # noqa: BLE001 - headers are only needed by sources that include them
        return []


def _log(module, handle, error=True):
    try:
        size = (module.get_error_log_size if error else module.get_info_log_size)(handle)
        buf = bytearray(size)
        (module.get_error_log if error else module.get_info_log)(handle, buf)
        return bytes(buf).rstrip(b"\0").decode(errors="replace").strip()
    except Exception:  # noqa: BLE001
        return ""


def link_to_cubin(ptx, arch, link_files=(), max_registers=None, lineinfo=False, debug=False,
                  entry_name="kernel"):
    """Link ``ptx`` (str/bytes) and ``link_files`` into a cubin for ``arch`` (``"sm_90"``)."""
    module = nvjitlink()
    options = [f"-arch={arch}"]
    if max_registers:
        options.append(f"-maxrregcount={int(max_registers)}")
    if lineinfo:
        options.append("-lineinfo")
    if debug:
        options.append("-g")
    try:
        handle = module.create(len(options), options)
    except Exception as exc:  # noqa: BLE001
        raise LinkerError(f"nvJitLink rejected the options {options}: {exc}") from exc
    try:
        inputs = [(module.InputType.PTX, ptx.encode() if isinstance(ptx, str) else bytes(ptx),
                   f"{entry_name}.ptx")]
        for path in link_files:
            kind = input_kind(path)
            with open(path, "rb") as fh:
                data = fh.read()
            if kind == "CU":
                data = compile_cuda_source(data, path, arch, _toolkit_include_dirs())
                kind = "PTX"
            inputs.append((getattr(module.InputType, kind), data, os.path.basename(str(path))))
        for kind, data, name in inputs:
            try:
                module.add_data(handle, kind, data, len(data), name)
            except Exception as exc:  # noqa: BLE001
                raise LinkerError(f"nvJitLink could not add {name}: {exc}\n"
                                  f"{_log(module, handle)}") from exc
        try:
            module.complete(handle)
        except Exception as exc:  # noqa: BLE001
            raise LinkerError(f"nvJitLink failed to link {entry_name} for {arch}: {exc}\n"
                              f"{_log(module, handle)}") from exc
        size = module.get_linked_cubin_size(handle)
        cubin = bytearray(size)
        module.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        module.destroy(handle)
