"""Where each toolkit component lives inside one installation: pure path logic.

Every function here works on a root folder plus a platform string
(``"linux-64"``, ``"linux-aarch64"``, ``"win-64"``) and only looks at file
names, so the tests can point them at synthetic trees for every layout.

Two families of layouts:

* *prefix* layouts (a conda environment, ``CUDA_HOME``/``CUDA_PATH``, the
  system toolkit): :func:`prefix_candidates`.  One set of relative locations
  covers the CUDA toolkit installer, conda-forge's split packages (Windows:
  under ``Library\\``), the odd "everything in ``lib/``" layout, and CUDA 11's
  flat ``cudatoolkit`` package.
* NVIDIA's pip wheels under a ``site-packages`` folder:
  :func:`wheel_candidates` for the CUDA 12 per-component folders
  (``nvidia/cuda_nvcc`` ...) and the CUDA 13 shared folder (``nvidia/cu13``).

A candidate is only a file (or, for ``include``, a folder) that exists with
the right name; whether it is usable, and of which CUDA major, is decided by
:mod:`numba_cuda.toolkit.discovery`.
"""

import os
import re

COMPONENTS = ("nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink", "include", "ptxas", "nvdisasm")

#: Components only some features use (``inspect_sass``); the search for them never reaches the
#: system sources on its own (reading the loader cache costs a subprocess at start-up).
OPTIONAL_COMPONENTS = ("nvdisasm",)

#: Human-readable names used in reports and error messages.
DESCRIPTIONS = {
    "nvvm": "libNVVM",
    "libdevice": "libdevice (libdevice.10.bc)",
    "nvrtc": "NVRTC",
    "cudart": "the CUDA runtime (cudart)",
    "nvjitlink": "nvJitLink",
    "include": "the CUDA headers (cuda_runtime.h, cuda_fp16.h)",
    "ptxas": "ptxas",
    "nvdisasm": "nvdisasm",
}

PLATFORMS = ("linux-64", "linux-aarch64", "win-64")

#: Headers that make a folder "the CUDA include directory".
REQUIRED_HEADERS = ("cuda_runtime.h", "cuda_fp16.h")

LIBDEVICE = "libdevice.10.bc"


def is_windows(platform):
    return platform.startswith("win")


def target_triple(platform):
    """The ``targets/<name>`` folder a CUDA toolkit uses on ``platform``."""
    return {"linux-64": "x86_64-linux", "linux-aarch64": "sbsa-linux", "win-64": "x64"}[platform]


# ---- file names ---------------------------------------------------------------
# Each entry: a regex on the file name, and how to read a CUDA major out of the
# match (None when the name carries no CUDA major, e.g. libnvvm.so.4, whose 4
# is NVVM's own ABI number).

_LINUX_NAMES = {
    "nvvm": [(r"libnvvm\.so\.4", None), (r"libnvvm\.so", None), (r"libnvvm\.so\.\d+(\.\d+)*", None)],
    "nvrtc": [(r"libnvrtc\.so\.(?P<major>\d+)", "major"), (r"libnvrtc\.so", None)],
    "cudart": [(r"libcudart\.so\.(?P<major>\d+)", "major"), (r"libcudart\.so", None)],
    "nvjitlink": [(r"libnvJitLink\.so\.(?P<major>\d+)", "major"), (r"libnvJitLink\.so", None)],
    "ptxas": [(r"ptxas", None)],
    "nvdisasm": [(r"nvdisasm", None)],
    "libdevice": [(re.escape(LIBDEVICE), None)],
}

_WINDOWS_NAMES = {
    "nvvm": [(r"nvvm64_\d+_\d+\.dll", None), (r"nvvm70\.dll", None), (r"nvvm64\.dll", None)],
    # nvrtc64_120_0.dll, nvrtc64_130_0.dll (CUDA 11: nvrtc64_112_0.dll)
    "nvrtc": [(r"nvrtc64_(?P<code>\d+)_0\.dll", "code")],
    # cudart64_12.dll, cudart64_13.dll (CUDA 11: cudart64_110.dll)
    "cudart": [(r"cudart64_(?P<code>\d+)\.dll", "code")],
    # nvJitLink_120_0.dll, nvJitLink_130_0.dll
    "nvjitlink": [(r"nvJitLink_(?P<code>\d+)_0\.dll", "code")],
    "ptxas": [(r"ptxas\.exe", None)],
    "nvdisasm": [(r"nvdisasm\.exe", None)],
    "libdevice": [(re.escape(LIBDEVICE), None)],
}


def file_patterns(component, platform):
    """[(compiled regex, group name or None)] in preference order."""
    table = _WINDOWS_NAMES if is_windows(platform) else _LINUX_NAMES
    return [(re.compile(rx + r"\Z"), group) for rx, group in table[component]]


def display_name(component, platform):
    """How a component's file is spelled in messages (``libnvrtc.so.*``)."""
    if component == "include":
        return "include/cuda_runtime.h"
    if is_windows(platform):
        return {
            "nvvm": "nvvm64_*.dll", "nvrtc": "nvrtc64_*_0.dll", "cudart": "cudart64_*.dll",
            "nvjitlink": "nvJitLink_*_0.dll", "ptxas": "ptxas.exe", "nvdisasm": "nvdisasm.exe",
            "libdevice": LIBDEVICE,
        }[component]
    return {
        "nvvm": "libnvvm.so*", "nvrtc": "libnvrtc.so.*", "cudart": "libcudart.so.*",
        "nvjitlink": "libnvJitLink.so.*", "ptxas": "ptxas", "nvdisasm": "nvdisasm",
        "libdevice": LIBDEVICE,
    }[component]


def major_from_name(component, filename, platform):
    """The CUDA major a file name states (``libnvrtc.so.13`` -> 13), else None."""
    if component == "include":
        return None
    for rx, group in file_patterns(component, platform):
        m = rx.match(filename)
        if m and group:
            code = m.group(group)
            number = int(code)
            if group == "code" and len(code) >= 3:
                number = int(code[:-1])  # 120 -> 12, 112 -> 11
            return number
    return None


def _matches(folder, component, platform):
    """Files in ``folder`` named like ``component``, best first."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for rx, _group in file_patterns(component, platform):
        hits = sorted((n for n in names if rx.match(n) and n not in found), reverse=True)
        found.extend(hits)
    return [os.path.join(folder, n) for n in found if os.path.isfile(os.path.join(folder, n))]


def _has_headers(folder):
    return all(os.path.isfile(os.path.join(folder, h)) for h in REQUIRED_HEADERS)


# ---- prefix layouts (conda env, CUDA_HOME / CUDA_PATH, system toolkit) ---------

def prefix_search_dirs(component, platform):
    """Relative folders searched under a prefix for ``component``, in order."""
    t = target_triple(platform)
    if is_windows(platform):
        lib_dirs = ["bin/x64", "bin", "Library/bin/x64", "Library/bin"]
        return {
            "nvvm": ["nvvm/bin/x64", "nvvm/bin", "Library/nvvm/bin/x64", "Library/nvvm/bin",
                     # CUDA 11's flat cudatoolkit package
                     "Library/bin"],
            "libdevice": ["nvvm/libdevice", "Library/nvvm/libdevice", "Library/bin"],
            "nvrtc": lib_dirs,
            "cudart": lib_dirs,
            "nvjitlink": lib_dirs,
            "include": ["include", "Library/include"],
            "ptxas": ["bin/x64", "bin", "Library/bin/x64", "Library/bin"],
            "nvdisasm": ["bin/x64", "bin", "Library/bin/x64", "Library/bin"],
        }[component]
    lib_dirs = ["lib64", "lib", f"targets/{t}/lib"]
    return {
        # nvvm/lib64: toolkit installer and conda; lib/, lib64/: the odd layout
        # on some machines and CUDA 11's flat cudatoolkit package.
        "nvvm": ["nvvm/lib64", "nvvm/lib", "lib64", "lib", f"targets/{t}/lib"],
        # lib/: CUDA 11's flat cudatoolkit package
        "libdevice": ["nvvm/libdevice", "lib"],
        "nvrtc": lib_dirs,
        "cudart": lib_dirs,
        "nvjitlink": lib_dirs,
        "include": [f"targets/{t}/include", "include"],
        "ptxas": ["bin"],
        "nvdisasm": ["bin"],
    }[component]


def prefix_candidates(root, component, platform):
    """Existing files (folders for ``include``) for ``component`` under ``root``."""
    return _candidates(root, prefix_search_dirs(component, platform), component, platform)


def _candidates(root, rel_dirs, component, platform):
    out = []
    folders = [os.path.normpath(os.path.join(root, *rel.split("/"))) for rel in rel_dirs]
    for folder in folders:
        # lib64 -> lib style links: report the real folder's spelling only
        if os.path.islink(folder) and any(
                f != folder and os.path.realpath(f) == os.path.realpath(folder) for f in folders):
            continue
        if component == "include":
            if _has_headers(folder):
                out.append(folder)
        else:
            for path in _matches(folder, component, platform):
                if path not in out:
                    out.append(path)
    return out


def is_cuda11_flat(root, platform):
    """True for CUDA 11's ``cudatoolkit`` conda layout (NVVM and libdevice side by side)."""
    lib = os.path.join(root, "Library", "bin") if is_windows(platform) else os.path.join(root, "lib")
    return os.path.isfile(os.path.join(lib, LIBDEVICE)) and bool(_matches(lib, "nvvm", platform))


# ---- pip wheel layouts ----------------------------------------------------------

#: CUDA major -> relative folders (under site-packages) per component.
def wheel_search_dirs(major, component, platform):
    win = is_windows(platform)
    if major == 13:
        base = "nvidia/cu13"
        if win:
            bins = [f"{base}/bin/x86_64", f"{base}/bin"]
            dirs = {
                "nvvm": bins, "nvrtc": bins, "cudart": bins, "nvjitlink": bins,
                "libdevice": [f"{base}/nvvm/libdevice"], "include": [f"{base}/include"],
                "ptxas": bins, "nvdisasm": bins,
            }
        else:
            dirs = {
                "nvvm": [f"{base}/lib"], "nvrtc": [f"{base}/lib"], "cudart": [f"{base}/lib"],
                "nvjitlink": [f"{base}/lib"], "libdevice": [f"{base}/nvvm/libdevice"],
                "include": [f"{base}/include"], "ptxas": [f"{base}/bin"],
                "nvdisasm": [f"{base}/bin"],  # wheel nvidia-cuda-nvdisasm
            }
        return dirs[component]
    if major == 12:
        lib = "bin" if win else "lib"
        return {
            "nvvm": ["nvidia/cuda_nvcc/nvvm/bin" if win else "nvidia/cuda_nvcc/nvvm/lib64"],
            "libdevice": ["nvidia/cuda_nvcc/nvvm/libdevice"],
            "nvrtc": [f"nvidia/cuda_nvrtc/{lib}"],
            "cudart": [f"nvidia/cuda_runtime/{lib}"],
            "nvjitlink": [f"nvidia/nvjitlink/{lib}"],
            "include": ["nvidia/cuda_runtime/include"],
            "ptxas": ["nvidia/cuda_nvcc/bin"],
            # CUDA 12 has no nvdisasm wheel: conda (cuda-nvdisasm) or a toolkit install
            "nvdisasm": [],
        }[component]
    raise ValueError(f"no pip wheel layout for CUDA {major}")


WHEEL_MAJORS = (13, 12)


def wheel_root(site_dir, major):
    """The folder reported as the toolkit root for CUDA ``major`` wheels."""
    return os.path.join(site_dir, "nvidia", "cu13") if major == 13 else os.path.join(site_dir, "nvidia")


def wheel_present(site_dir, major):
    """True when any CUDA ``major`` toolkit wheel is installed under ``site_dir``."""
    if major == 13:
        return os.path.isdir(os.path.join(site_dir, "nvidia", "cu13"))
    return any(
        os.path.isdir(os.path.join(site_dir, "nvidia", d))
        for d in ("cuda_nvcc", "cuda_nvrtc", "cuda_runtime", "nvjitlink")
    )


def wheel_candidates(site_dir, major, component, platform):
    return _candidates(site_dir, wheel_search_dirs(major, component, platform), component, platform)


def searched_text(root, rel_dirs, component, platform):
    """``root/{a,b}/name`` style description of what was looked for."""
    name = display_name(component, platform)
    if component == "include":
        name = "cuda_runtime.h + cuda_fp16.h"
    dirs = ", ".join(rel_dirs)
    return f"no {name} in {{{dirs}}} under {root}"
