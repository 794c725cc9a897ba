"""Where the CUDA toolkit is: the one place that decides it.

Components: ``nvvm`` (libNVVM), ``libdevice`` (``libdevice.10.bc``),
``nvrtc``, ``cudart``, ``nvjitlink``, ``include`` (the folder with
``cuda_runtime.h`` and ``cuda_fp16.h``), ``ptxas`` and ``nvdisasm`` (both optional;
``nvdisasm`` is for ``inspect_sass()``: CUDA 13 wheel ``nvidia-cuda-nvdisasm``, conda
``cuda-nvdisasm``, or a toolkit install; CUDA 12 has no wheel of it).  The driver
(``libcuda``) is not a toolkit component: :mod:`numba_cuda.runtime` owns it.

Search order (sources):

1. ``conda`` -- the running interpreter's own conda environment, recognised by
   ``sys.prefix/conda-meta``, so it works when the environment is not
   activated (``CONDA_PREFIX`` unset: ``conda run``, HPC modules, an absolute
   path to python).  Layouts: ``nvvm/lib64``, ``nvvm/libdevice``, ``lib/``,
   ``targets/<x86_64-linux|sbsa-linux>/include``, ``bin/ptxas``; Windows under
   ``Library\\`` (``Library\\nvvm\\bin[\\x64]``, ``Library\\bin``).  CUDA 11's
   flat ``cudatoolkit`` layout is recognised and reported as unsupported.
2. ``pip`` -- NVIDIA's wheels in ``sys.path`` folders: CUDA 13 under
   ``nvidia/cu13/``, CUDA 12 in per-component folders (``nvidia/cuda_nvcc``,
   ``nvidia/cuda_nvrtc``, ``nvidia/cuda_runtime``, ``nvidia/nvjitlink``).  If
   both majors are installed, the one matching the installed cuda-bindings
   is searched first.
3. ``CONDA_PREFIX`` -- an activated conda environment that is not the
   interpreter's.
4. ``CUDA_HOME``, then ``CUDA_PATH`` (a warning when both are set and differ;
   a path that does not exist is reported, not used).
5. ``system`` -- toolkits behind ``LD_LIBRARY_PATH`` and the dynamic loader's
   cache (``ldconfig -p``), then ``/usr/local/cuda`` (Windows: ``Program
   Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v*``), including odd layouts
   such as ``lib/libnvvm.so`` with ``nvvm/libdevice``.

The first source with a usable libNVVM *and* libdevice decides the toolkit and
its CUDA major (12 or 13).  Every other component is looked up in that source
first, then in the other sources in the same order, accepting only files of
the same CUDA major: components never mix majors.  A component whose only
candidates have another major is reported as a "mixed CUDA majors" error.
CUDA majors come from package metadata (conda-meta records, the wheels'
dist-info, ``version.json``), the file names (``libnvrtc.so.13``), the
headers' ``CUDART_VERSION`` or the folder name; once loaded, NVRTC's and
nvJitLink's own version calls are checked too.

Nothing happens at import: :func:`get_toolkit` searches once per process, on
first use, and caches the result.  The loader cache (``ldconfig -p``, a
subprocess) is read only when the search reaches the ``system`` source, at
most once per process (``get_toolkit(refresh=True)`` reads it again); when
earlier sources provide every component, reports list ``system`` as not
searched.  A missing component never raises there;
:meth:`Toolkit.require`, :func:`load_library` and :func:`libdevice_path`
raise :class:`numba_cuda.errors.ToolkitError` naming the component, every
place tried with why it failed, and the install command for this kind of
environment.

Environment variables:

``NUMBA_CUDA_DISABLE_SOURCES``
    Comma-separated sources to skip (``conda``, ``pip``, ``CONDA_PREFIX``,
    ``CUDA_HOME``, ``CUDA_PATH``, ``system``, or ``all``); case-insensitive.
    For debugging a set-up ("which toolkit would be used without the pip
    wheels?") and for tests.  Skipped sources are listed as such in reports.
``CONDA_PREFIX``, ``CUDA_HOME``, ``CUDA_PATH``, ``LD_LIBRARY_PATH``
    Searched as described above.
"""

COMPONENTS = ("nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink", "include", "ptxas", "nvdisasm")

_cached = None


def get_toolkit(refresh=False):
    """The toolkit of this process (searched once, then cached).  Never raises
    for a missing component; see :meth:`Toolkit.require`."""
    global _cached
    tk = _cached
    if tk is None or refresh:
        from . import discovery

        # refresh also re-reads the loader cache (if the search gets that far)
        tk = discovery.discover(discovery.current_environment(refresh=refresh))
        discovery.warn_notes(tk)
        _cached = tk
    return tk


def load_library(name):
    """dlopen the chosen ``nvvm``/``nvrtc``/``nvjitlink``/``cudart`` by absolute
    path (before cuda-bindings loads anything), so the bindings use exactly it.
    Returns the path; raises ToolkitError."""
    from .loading import load_library as _load

    return _load(name)


def libdevice_path():
    """Absolute path of ``libdevice.10.bc``, checked to be LLVM bitcode that is not
    truncated (libNVVM aborts the process on a damaged one); raises ToolkitError."""
    tk = get_toolkit()
    comp = tk.require("libdevice")
    from .validation import bitcode_problem

    problem = bitcode_problem(comp.path)
    if problem is not None:
        from numba_cuda.errors import ToolkitError

        from .discovery import reinstall_command

        fix = reinstall_command(comp)
        exc = ToolkitError(f"libdevice at {comp.path} (from {comp.source}) {problem}; libNVVM "
                           f"cannot use it.\nFix (reinstall it): {fix}\nRun `numba-cuda sysinfo` "
                           "for the full report.")
        exc.component = "libdevice"
        exc.fix = fix
        raise exc
    return comp.path


def ptxas_path():
    """Absolute path of ``ptxas`` from the chosen toolkit, or None."""
    comp = get_toolkit().components.get("ptxas")
    return comp.path if comp is not None and comp.found else None


def nvdisasm_path():
    """Absolute path of ``nvdisasm`` from the chosen toolkit, or None."""
    comp = get_toolkit().components.get("nvdisasm")
    return comp.path if comp is not None and comp.found else None


def include_dir():
    """The CUDA include folder (``cuda_runtime.h``, ``cuda_fp16.h``); raises ToolkitError."""
    return get_toolkit().require("include").path


def __getattr__(name):
    # Toolkit / Component / ToolkitWarning without importing them eagerly.
    if name in ("Toolkit", "Component"):
        from . import model

        return getattr(model, name)
    if name == "ToolkitWarning":
        from .discovery import ToolkitWarning

        return ToolkitWarning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
