"""Numba's and NVIDIA's ``numba.cuda.cuda_paths``, answered from toolkit discovery.

Code written for those packages asks where the CUDA toolkit's parts are with
``get_cuda_paths()`` (``{"nvvm": (by, path), "libdevice": ..., "cudalib_dir": ...,
"include_dir": ..., "nvrtc": ...}``) or the ``_get_*_path_decision()`` functions, each
``(by, path)``.  Here the paths are the ones discovery chose (:func:`numba_cuda.toolkit.get_toolkit`,
one toolkit of one CUDA major) and ``by`` names the source in those packages' words
("Conda environment", "NVIDIA NVCC Wheel", "CUDA_HOME", "System"); a part not found is
``(why not, None)``.  ``get_system_ctk()``/``get_cuda_home()`` join sub-folders onto the
system toolkit (``/usr/local/cuda``) / ``CUDA_HOME`` (else ``CUDA_PATH``);
``_find_cuda_home_from_lib_path(path)`` walks up from a library to the folder holding ``nvvm/``.
"""

import os
import pathlib
from collections import namedtuple

_env_path_tuple = namedtuple("_env_path_tuple", ["by", "info"])

#: discovery's source kinds -> the words Numba and NVIDIA's numba-cuda use for them
SOURCE_WORDS = {"conda": "Conda environment", "CONDA_PREFIX": "Conda environment",
                "pip": "NVIDIA NVCC Wheel", "CUDA_HOME": "CUDA_HOME", "CUDA_PATH": "CUDA_HOME",
                "system": "System"}


def _decision(component, folder=False):
    from . import get_toolkit

    comp = get_toolkit().components.get(component)
    if comp is None or not comp.found:
        return _env_path_tuple(getattr(comp, "error", None) or f"{component} not found", None)
    path = os.path.dirname(comp.path) if folder else comp.path
    return _env_path_tuple(SOURCE_WORDS.get(comp.source, comp.source), path)


def _get_nvvm_path_decision():
    return _decision("nvvm")


def _get_libdevice_path_decision():
    return _decision("libdevice")


def _get_nvrtc_path_decision():
    return _decision("nvrtc")


def _get_cudalib_dir_path_decision():
    """The folder of the toolkit's shared libraries (the one holding cudart)."""
    return _decision("cudart", folder=True)


def _get_include_dir_decision():
    return _decision("include")


def get_cuda_paths():
    """``{part: (by, path)}`` for ``nvvm``, ``libdevice``, ``nvrtc``, ``cudalib_dir`` and
    ``include_dir``, from toolkit discovery."""
    return {"nvvm": _get_nvvm_path_decision(), "libdevice": _get_libdevice_path_decision(),
            "nvrtc": _get_nvrtc_path_decision(), "cudalib_dir": _get_cudalib_dir_path_decision(),
            "include_dir": _get_include_dir_decision()}


def get_system_ctk(*subdirs):
    """``/usr/local/cuda`` (on Windows: the newest ``CUDA\\vX.Y`` under Program Files) joined with
    ``subdirs`` when that exists, else None."""
    from .discovery import current_environment

    for root in current_environment().system_roots:
        path = os.path.join(root, *subdirs)
        if os.path.exists(path):
            return path
    return None


def get_system_ctk_libdir():
    """The system toolkit's library folder (``lib64``; ``bin`` on Windows), or None."""
    root = get_system_ctk()
    if root is None:
        return None
    for sub in (("bin", "x64"), ("bin",)) if os.name == "nt" else (("lib64",), ("lib",)):
        path = os.path.join(root, *sub)
        if os.path.isdir(path):
            return os.path.normpath(path)
    return None


def get_cuda_home(*subdirs):
    """``CUDA_HOME`` (else ``CUDA_PATH``) joined with ``subdirs``, or None when neither is set."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    return os.path.join(home, *subdirs) if home else None


def _find_cuda_home_from_lib_path(lib_path):
    """The nearest folder above ``lib_path`` that holds ``nvvm/`` (a toolkit root:
    ``/usr/local/cuda/lib64/libnvrtc.so.12`` -> ``/usr/local/cuda``), or None."""
    for parent in pathlib.Path(lib_path).resolve().parents:
        if (parent / "nvvm").is_dir():
            return str(parent)
    return None
