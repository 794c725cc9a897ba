"""Decide which CUDA toolkit this process uses.

:func:`discover` is a pure function of an :class:`Environment` (the
interpreter's prefix, ``sys.path``, environment variables, platform ...), so
tests can run it against synthetic trees; :func:`current_environment` builds
the real one.  See :mod:`numba_cuda.toolkit` for the rules.
"""

import functools
import os
import re
import sys
import warnings
from typing import Callable, Mapping, Optional, Sequence

from numba_cuda.common.package_versions import version_in_file
from numba_cuda.common.records import Record
from numba_cuda.errors import ToolkitError

from . import layouts
from .layouts import COMPONENTS, DESCRIPTIONS, OPTIONAL_COMPONENTS
from .metadata import MetadataCache, header_version, major_of
from .model import Component, Toolkit

SUPPORTED_MAJORS = (12, 13)

#: Source names, in search order.
SOURCES = ("conda", "pip", "CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "system")

DISABLE_VARIABLE = "NUMBA_CUDA_DISABLE_SOURCES"

#: Components that are shared libraries (checked for a loadable header).
LIBRARIES = ("nvvm", "nvrtc", "cudart", "nvjitlink")


class ToolkitWarning(UserWarning):
    """Something about the toolkit set-up deserves attention but is not fatal."""


# ---- the environment discovery runs in ----------------------------------------------

def _platform_name():
    if sys.platform.startswith("win"):
        return "win-64"
    import platform

    machine = platform.machine().lower()
    return "linux-aarch64" if machine in ("aarch64", "arm64") else "linux-64"


_ELF_MACHINES = {"linux-64": 62, "linux-aarch64": 183}


def check_library_file(path, platform):
    """None when ``path`` looks like a shared library for ``platform``, else why not.

    Reads only the file header (no loading): ELF, 64-bit, right CPU on Linux;
    a PE image on Windows.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if layouts.is_windows(platform):
        return None if head[:2] == b"MZ" else "is not a Windows DLL (no MZ header)"
    if head[:4] != b"\x7fELF":
        return "is not a shared library (no ELF header)"
    if len(head) < 20 or head[4] != 2:
        return "is not a 64-bit library"
    machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    want = _ELF_MACHINES.get(platform)
    if want is not None and machine != want:
        names = {62: "x86-64", 183: "aarch64"}
        return (f"is built for {names.get(machine, f'ELF machine {machine}')}, "
                f"not for this {platform} machine")
    return None


_loader_cache = None


def loader_cache_dirs(refresh=False):
    """Folders holding CUDA libraries according to the dynamic loader's cache.

    ``ldconfig -p`` is a subprocess (a fork of this process), so its answer is
    kept for the life of the process; ``refresh=True`` asks again.  Raises
    ``OSError`` saying why when no ``ldconfig`` could be run (nothing is kept
    then); the system source reports that reason and searches on without it.
    """
    global _loader_cache
    if _loader_cache is None or refresh:
        _loader_cache = _read_loader_cache()
    return list(_loader_cache)


def _read_loader_cache():
    if sys.platform.startswith("win"):
        return []
    import subprocess  # only when the search reaches the system source

    out = []
    failures = []
    for exe in ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"):
        try:
            # paths are bytes: undecodable ones survive as surrogates (as os.listdir gives them)
            proc = subprocess.run([exe, "-p"], capture_output=True, timeout=10,
                                  encoding=sys.getfilesystemencoding(), errors="surrogateescape")
        except (OSError, subprocess.SubprocessError) as exc:
            failures.append(f"{exe}: {exc}")
            continue
        if proc.returncode != 0:
            failures.append(f"{exe} -p exited with status {proc.returncode}: "
                            f"{proc.stderr.strip() or 'no message'}")
            continue
        for line in proc.stdout.splitlines():
            m = re.match(r"\s*(libnvvm|libnvrtc|libcudart|libnvJitLink)\.so\S*\s.*=>\s*(\S+)", line)
            if m:
                folder = os.path.dirname(m.group(2))
                if folder not in out:
                    out.append(folder)
        return out
    raise OSError("; ".join(failures))


def _bindings_major():
    """The CUDA major of the installed cuda-bindings, or None when it is not installed.

    Read from the package's own version: the ``__version__`` line of its ``_version.py``
    (without importing ``cuda.bindings``, whose ``__init__`` imports ``cuda.bindings.utils``,
    a few ms that compiling never needs), else ``cuda.bindings.__version__``; reading the
    distribution metadata imports ``email``'s parser, so the metadata is the answer only when
    neither works."""
    __version__ = _bindings_version_file()
    if __version__ is None:
        try:
            from cuda.bindings import __version__
        except Exception:  # noqa: BLE001 - not installed or broken: ask the metadata
            __version__ = None
    if __version__ is None:
        try:
            from importlib.metadata import version

            __version__ = version("cuda-bindings")
        except Exception:  # noqa: BLE001 - not installed, broken metadata
            return None
    return major_of(__version__)


def _bindings_version_file():
    """``__version__`` of cuda-bindings: the imported module's when it is imported already, else
    the literal in its generated ``_version.py`` (None: not installed, another layout)."""
    module = sys.modules.get("cuda.bindings")
    if module is not None:
        return getattr(module, "__version__", None)
    return version_in_file("cuda.bindings")


class Environment(Record):
    """Everything discovery looks at.  Build fake ones in tests.

    ``loader_dirs`` is called at most once, only if the search reaches the system source;
    ``metadata`` caches the package metadata read during this run."""

    def __init__(self, prefix: str, base_prefix: str, path: Sequence[str],
                 environ: Mapping[str, str], platform: str, system_roots: Sequence[str] = (),
                 loader_dirs: Callable[[], Sequence[str]] = list,
                 bindings_major: Optional[int] = None,
                 check_library: Callable[[str, str], Optional[str]] = check_library_file,
                 metadata: Optional[MetadataCache] = None):
        self.prefix = prefix
        self.base_prefix = base_prefix
        self.path = path
        self.environ = environ
        self.platform = platform
        self.system_roots = system_roots
        self.loader_dirs = loader_dirs
        self.bindings_major = bindings_major
        self.check_library = check_library
        self.metadata = MetadataCache() if metadata is None else metadata


def default_system_roots(platform, environ):
    if layouts.is_windows(platform):
        base = os.path.join(environ.get("ProgramFiles", r"C:\Program Files"),
                            "NVIDIA GPU Computing Toolkit", "CUDA")
        try:
            versions = sorted(os.listdir(base), key=_version_key, reverse=True)
        except OSError:
            versions = []
        return [os.path.join(base, v) for v in versions]
    return ["/usr/local/cuda"]


def _version_key(name):
    return [int(x) for x in re.findall(r"\d+", name)]


def current_environment(refresh=False):
    """The real environment of this process.

    The loader cache is read only if a search reaches the system source;
    ``refresh=True`` makes that read ask ``ldconfig`` again instead of reusing
    this process's earlier answer.
    """
    platform = _platform_name()
    environ = dict(os.environ)
    return Environment(
        prefix=sys.prefix,
        base_prefix=getattr(sys, "base_prefix", sys.prefix),
        path=list(sys.path),
        environ=environ,
        platform=platform,
        system_roots=default_system_roots(platform, environ),
        loader_dirs=functools.partial(loader_cache_dirs, refresh=refresh),
        bindings_major=_bindings_major(),
    )


# ---- sources ----------------------------------------------------------------------------

class Source(Record):
    """One place searched: ``kind`` (``"conda"``, ``"pip"``, ``"CONDA_PREFIX"`` ...), ``label``
    (as reports name it), ``root``, ``skip`` (why this source is not searched at all: unset,
    disabled, missing ...), ``layout`` (``"prefix"``, ``"wheel"`` or ``"flat"``: libraries
    directly in loader folders) and ``wheel_major``."""

    def __init__(self, kind: str, label: str, root: Optional[str] = None,
                 skip: Optional[str] = None, layout: str = "prefix",
                 wheel_major: Optional[int] = None):
        self.kind = kind
        self.label = label
        self.root = root
        self.skip = skip
        self.layout = layout
        self.wheel_major = wheel_major

    def search_dirs(self, component, platform):
        if self.layout == "wheel":
            return layouts.wheel_search_dirs(self.wheel_major, component, platform)
        if self.layout == "flat":
            return ["."] if component in LIBRARIES else []
        return layouts.prefix_search_dirs(component, platform)

    def candidates(self, component, platform):
        if self.layout == "wheel":
            return layouts.wheel_candidates(self.root, self.wheel_major, component, platform)
        if self.layout == "flat":
            if component not in LIBRARIES:
                return []
            return layouts._candidates(self.root, ["."], component, platform)
        return layouts.prefix_candidates(self.root, component, platform)

    @property
    def report_root(self):
        if self.layout == "wheel":
            return layouts.wheel_root(self.root, self.wheel_major)
        return self.root


def _same(a, b):
    try:
        return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))
    except (TypeError, ValueError):
        return False


def disabled_sources(environ, notes):
    """The set of source names turned off by NUMBA_CUDA_DISABLE_SOURCES."""
    raw = environ.get(DISABLE_VARIABLE, "")
    out = set()
    lookup = {s.lower(): s for s in SOURCES}
    for item in re.split(r"[,\s]+", raw.strip()):
        if not item:
            continue
        key = item.lower()
        if key == "all":
            out.update(SOURCES)
        elif key in lookup:
            out.add(lookup[key])
        else:
            notes.append(f"{DISABLE_VARIABLE} names an unknown source {item!r} "
                         f"(known: {', '.join(SOURCES)}, all); it is ignored")
    return out


#: Why the system source is missing from a search that found everything earlier.
NOT_REACHED = "not searched (earlier sources provided every component)"


class SourceList:
    """The sources in search order; the system ones are built on first use.

    Finding the system toolkits reads the dynamic loader's cache (a
    subprocess), so that happens only when iteration reaches them: a search
    that is satisfied by an earlier source never pays for it.
    """

    def __init__(self, eager, system=None, system_label="system"):
        self._eager = list(eager)
        self._system_factory = system
        self._system_label = system_label
        self._system = None

    def _built_system(self):
        if self._system is None:
            self._system = list(self._system_factory())
        return self._system

    def __iter__(self):
        yield from self._eager
        if self._system_factory is not None:
            yield from self._built_system()

    def built(self):
        """The sources found so far: the system ones only if the search has reached them."""
        return self._eager + (self._system or [])

    def known(self):
        """Every source without building the system ones: the report's list.

        When the search never reached the system source, it stands as one
        skipped entry saying so.
        """
        if self._system_factory is None:
            return list(self._eager)
        if self._system is None:
            return self._eager + [Source("system", self._system_label, skip=NOT_REACHED)]
        return self._eager + self._system


def build_sources(env, notes):
    """Every source in search order (a :class:`SourceList`); ``notes`` collects
    warnings.  The system sources are found only when the search reaches them."""
    off = disabled_sources(env.environ, notes)
    why_off = f"disabled by {DISABLE_VARIABLE}"
    out = []

    # 1. the interpreter's own conda environment, activated or not
    is_conda = os.path.isdir(os.path.join(env.prefix, "conda-meta"))
    label = f"conda env {env.prefix} (this interpreter's)"
    if not is_conda:
        out.append(Source("conda", f"conda env of this interpreter ({env.prefix})", env.prefix,
                          skip="not a conda environment (no conda-meta folder)"))
    elif "conda" in off:
        out.append(Source("conda", label, env.prefix, skip=why_off))
    else:
        out.append(Source("conda", label, env.prefix))

    # 2. NVIDIA's pip wheels on sys.path
    wheel_sources = []
    seen = []
    for entry in env.path:
        if not entry or not os.path.isdir(entry) or any(_same(entry, s) for s in seen):
            continue
        seen.append(entry)
        for major in layouts.WHEEL_MAJORS:
            if layouts.wheel_present(entry, major):
                wheel_sources.append(Source(
                    "pip", f"pip wheels for CUDA {major} in {entry}", entry,
                    layout="wheel", wheel_major=major))
    # the wheels matching the installed cuda-bindings first, then newest first
    wheel_sources.sort(key=lambda s: (s.wheel_major != env.bindings_major, -s.wheel_major))
    if len({s.wheel_major for s in wheel_sources}) > 1:
        notes.append("pip wheels of several CUDA majors are installed ("
                     + ", ".join(sorted({f"CUDA {s.wheel_major}" for s in wheel_sources}))
                     + f"); CUDA {wheel_sources[0].wheel_major} wheels are searched first")
    if "pip" in off:
        out.append(Source("pip", "pip wheels on sys.path", skip=why_off))
    elif not wheel_sources:
        out.append(Source("pip", "pip wheels on sys.path",
                          skip="no nvidia/cu13 or nvidia/cuda_nvcc (CUDA 12) wheel folders "
                               "in any sys.path entry"))
    else:
        out.extend(wheel_sources)

    # 3. an activated conda environment that is not the interpreter's
    cp = env.environ.get("CONDA_PREFIX")
    if "CONDA_PREFIX" in off:
        out.append(Source("CONDA_PREFIX", "CONDA_PREFIX", cp, skip=why_off))
    elif not cp:
        out.append(Source("CONDA_PREFIX", "CONDA_PREFIX", skip="not set"))
    elif _same(cp, env.prefix):
        out.append(Source("CONDA_PREFIX", f"CONDA_PREFIX={cp}", cp,
                          skip="is this interpreter's environment (searched first)"))
    elif not os.path.isdir(cp):
        notes.append(f"CONDA_PREFIX={cp} does not exist")
        out.append(Source("CONDA_PREFIX", f"CONDA_PREFIX={cp}", cp, skip="does not exist"))
    else:
        out.append(Source("CONDA_PREFIX", f"activated conda env CONDA_PREFIX={cp}", cp))

    # 4. CUDA_HOME, then CUDA_PATH
    home, cpath = env.environ.get("CUDA_HOME"), env.environ.get("CUDA_PATH")
    if home and cpath and not _same(home, cpath):
        notes.append(f"CUDA_HOME={home} and CUDA_PATH={cpath} are both set and differ; "
                     "CUDA_HOME is searched first")
    for var, value in (("CUDA_HOME", home), ("CUDA_PATH", cpath)):
        if var in off:
            out.append(Source(var, var, value, skip=why_off))
        elif not value:
            out.append(Source(var, var, skip="not set"))
        elif not os.path.isdir(value):
            notes.append(f"{var}={value} does not exist (it is not used)")
            out.append(Source(var, f"{var}={value}", value, skip="does not exist"))
        else:
            out.append(Source(var, f"{var}={value}", value))

    # 5. the system: folders the dynamic loader knows, then the standard install
    where = [] if layouts.is_windows(env.platform) else ["LD_LIBRARY_PATH", "loader cache"]
    where += list(env.system_roots)
    system_label = f"system ({', '.join(where)})" if where else "system"
    if "system" in off:
        out.append(Source("system", "system (loader cache, " + ", ".join(env.system_roots) + ")",
                          skip=why_off))
        return SourceList(out)
    return SourceList(out, functools.partial(_system_sources, env), system_label)


_LIB_SUFFIXES = ("nvvm/lib64", "nvvm/lib", "lib64", "lib", "bin/x64", "bin")


def _root_of(folder):
    """The toolkit root above a library folder (``/opt/cuda/lib64`` -> ``/opt/cuda``)."""
    norm = folder.replace("\\", "/").rstrip("/")
    m = re.match(r"(.*)/targets/[^/]+/lib\Z", norm)
    if m:
        return m.group(1)
    for suffix in _LIB_SUFFIXES:
        if norm.endswith("/" + suffix):
            return norm[: -len(suffix) - 1]
    return None


def _looks_like_toolkit(root):
    return any(os.path.exists(os.path.join(root, p))
               for p in ("nvvm", os.path.join("bin", "ptxas"), os.path.join("bin", "nvcc"),
                         "version.json", "version.txt"))


def _system_sources(env):
    out = []
    roots, flat = [], []
    lib_dirs = []
    cache_error = None
    if not layouts.is_windows(env.platform):
        lib_dirs += [d for d in env.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
        try:
            lib_dirs += list(env.loader_dirs())
        except Exception as exc:  # noqa: BLE001 - reported below; the search goes on without it
            cache_error = f"loader cache not read: {exc or type(exc).__name__}"
    for folder in lib_dirs:
        root = _root_of(folder)
        if root and os.path.isdir(root) and _looks_like_toolkit(root):
            # spell it as the standard location when it is one (/usr/local/cuda)
            root = next((r for r in env.system_roots if _same(r, root)), root)
            if not any(_same(root, r) for r in roots):
                roots.append(root)
        elif os.path.isdir(folder) and not any(_same(folder, f) for f in flat):
            flat.append(folder)
    for root in env.system_roots:
        if os.path.isdir(root) and not any(_same(root, r) for r in roots):
            roots.append(root)
    if cache_error:
        # an honest entry in every report; the other system places are still searched
        out.append(Source("system", "system loader cache (ldconfig -p)", skip=cache_error))
    for root in roots:
        out.append(Source("system", f"system toolkit {root}", root))
    for folder in flat:
        out.append(Source("system", f"system library folder {folder}", folder, layout="flat"))
    if not roots and not flat:
        where = ", ".join(env.system_roots) or "no standard location"
        places = "at" if cache_error else "in the loader cache or at"
        out.append(Source("system", f"system ({where}, loader cache)",
                          skip=f"no CUDA toolkit {places} {where}"))
    return out


# ---- evaluating one candidate file ---------------------------------------------------

def _version_of(env, source, component, path):
    """(version, major, how) for a candidate file."""
    md = env.metadata
    # a folder has no owner record; its headers do
    owned = os.path.join(path, "cuda_runtime.h") if component == "include" else path
    name_major = layouts.major_from_name(component, os.path.basename(path), env.platform)
    if source.layout == "wheel":
        owner = md.dist_owner(source.root, owned)
        if owner:
            return owner[1], major_of(owner[1]), f"{owner[0]} {owner[1]} (pip)"
        return None, name_major or source.wheel_major, f"the nvidia/cu{source.wheel_major} layout" \
            if source.wheel_major == 13 else "the CUDA 12 wheel layout"
    root = source.root
    if os.path.isdir(os.path.join(root, "conda-meta")):
        owner = md.conda_owner(root, owned)
        if owner:
            return owner[1], major_of(owner[1]), f"conda package {owner[0]} {owner[1]}"
    version, how = md.root_component_version(root, component, owned)
    if version:
        return version, major_of(version), how
    if component == "include":
        version = header_version(path)
        if version:
            return version, major_of(version), "CUDART_VERSION in cuda_runtime_api.h"
    if name_major is not None:
        return None, name_major, "the file name"
    if os.path.isdir(os.path.join(root, "conda-meta")):
        pin = md.conda_cuda_version(root)
        if pin:
            return None, major_of(pin), f"the conda env's cuda-version {pin}"
    version, how = md.root_version(root)
    if version:
        return None, major_of(version), how
    return None, None, None


class _Found(Record):
    def __init__(self, path: str, version: Optional[str], major: Optional[int],
                 how: Optional[str], source: Source):
        self.path = path
        self.version = version
        self.major = major
        self.how = how
        self.source = source


def _examine(env, source, component):
    """(list of acceptable _Found in order, list of (place, reason) rejections)."""
    found, rejected = [], []
    cands = source.candidates(component, env.platform)
    if not cands:
        rejected.append((source.label, layouts.searched_text(
            source.report_root, source.search_dirs(component, env.platform), component,
            env.platform)))
        return found, rejected
    for path in cands:
        if component in LIBRARIES:
            problem = env.check_library(path, env.platform)
            if problem:
                rejected.append((source.label, f"{path} {problem}"))
                continue
        version, major, how = _version_of(env, source, component, path)
        if major is not None and major not in SUPPORTED_MAJORS:
            what = ("CUDA 11's cudatoolkit package layout" if source.layout == "prefix"
                    and layouts.is_cuda11_flat(source.root, env.platform) and major == 11
                    else f"CUDA {major}")
            rejected.append((source.label, f"{path} is {what} (from {how}); numba-cuda supports "
                                           f"CUDA {' and '.join(map(str, SUPPORTED_MAJORS))} only"))
            continue
        found.append(_Found(path, version, major, how, source))
    return found, rejected


# ---- the decision ----------------------------------------------------------------------

def environment_kind(env):
    if os.path.isdir(os.path.join(env.prefix, "conda-meta")):
        return "conda"
    if not _same(env.prefix, env.base_prefix):
        return "venv"
    return "system"


_CONDA_EXTRA = {"nvjitlink": ["libnvjitlink"], "cudart": ["cuda-cudart"], "nvdisasm": ["cuda-nvdisasm"]}


def fix_command(kind, major, component=None):
    """The command that installs what is missing, for this kind of environment."""
    if kind == "conda":
        pkgs = ["cuda-nvcc-impl", "cuda-nvrtc"] + _CONDA_EXTRA.get(component, [])
        return f'conda install -c conda-forge {" ".join(pkgs)} "cuda-version={major}"'
    if component == "nvdisasm":  # optional: in no extra (CUDA 12 has no wheel of it)
        if major == 12:
            return ("CUDA 12 has no pip wheel of nvdisasm: install cuda-nvdisasm with conda, or "
                    "a CUDA 12 toolkit (found through CUDA_HOME)")
        return f'pip install "nvidia-cuda-nvdisasm>={major}.0,<{major + 1}"'
    return f'pip install "numba-cuda[cu{major}]"'


def _holder(path, is_holder):
    """The nearest folder above ``path`` for which ``is_holder(folder)`` holds, or None."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if is_holder(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def reinstall_command(comp, env=None):
    """The command that reinstalls the package holding ``comp``'s file (found, but damaged or
    unloadable): the owning pip wheel or conda package when its record names it -- installing
    ``numba-cuda[cuNN]`` again would change nothing, the wheels being there already."""
    env = env or current_environment()
    md = env.metadata
    owned = os.path.join(comp.path, "cuda_runtime.h") if comp.name == "include" else comp.path
    site = _holder(comp.path, lambda f: os.path.basename(f).lower() == "nvidia")
    if site is not None:
        owner = md.dist_owner(os.path.dirname(site), owned)
        if owner:
            return f'pip install --force-reinstall --no-deps "{owner[0]}=={owner[1]}"'
    prefix = _holder(comp.path, lambda f: os.path.isdir(os.path.join(f, "conda-meta")))
    if prefix is not None:
        owner = md.conda_owner(prefix, owned)
        if owner:
            return f'conda install --force-reinstall -c conda-forge "{owner[0]}={owner[1]}"'
    return f"reinstall the CUDA toolkit that {comp.path} belongs to"


def _fix_major(toolkit_major, env):
    for m in (toolkit_major, env.bindings_major):
        if m in SUPPORTED_MAJORS:
            return m
    return SUPPORTED_MAJORS[-1]


def discover(env):
    """Run the search in ``env`` and return a :class:`Toolkit`.  Never raises but
    :class:`ToolkitError` (for a failure of the search itself, which is a bug:
    unreadable files are skipped and reported in the toolkit's warnings)."""
    try:
        return _discover(env)
    except ToolkitError:
        raise
    except Exception as exc:  # noqa: BLE001 - the search must never leak another exception
        import traceback

        where = traceback.extract_tb(exc.__traceback__)[-1]
        err = ToolkitError(
            f"CUDA toolkit discovery failed: {type(exc).__name__}: {exc} (at "
            f"{os.path.basename(where.filename)}:{where.lineno}). This is a bug in numba-cuda; "
            "please report it with the output of `numba-cuda sysinfo --explain`. "
            f"{DISABLE_VARIABLE} can skip the source that triggers it.")
        err.cause = exc
        raise err from None


def _discover(env):
    notes = []
    sources = build_sources(env, notes)
    tried = {name: [] for name in COMPONENTS}
    decider = nvvm = libdevice = None

    for src in sources:
        if src.skip:
            continue
        n_found, n_rej = _examine(env, src, "nvvm")
        d_found, d_rej = _examine(env, src, "libdevice")
        tried["nvvm"] += n_rej
        tried["libdevice"] += d_rej
        if n_found and d_found:
            n, d = n_found[0], d_found[0]
            if n.major and d.major and n.major != d.major:
                reason = (f"libNVVM {n.path} is CUDA {n.major} but libdevice {d.path} is "
                          f"CUDA {d.major}: a mixture of CUDA majors")
                tried["nvvm"].append((src.label, reason))
                tried["libdevice"].append((src.label, reason))
                continue
            decider, nvvm, libdevice = src, n, d
            break
        if n_found and not d_found:
            tried["nvvm"].append((src.label, f"{n_found[0].path} found, but this source has no "
                                             "libdevice, so it cannot be used"))
        if d_found and not n_found:
            tried["libdevice"].append((src.label, f"{d_found[0].path} found, but this source has "
                                                  "no libNVVM, so it cannot be used"))

    for rej in tried.values():
        for place, reason in rej:
            if "supports CUDA" in reason:
                note = f"ignored {reason.split(' (from')[0]} ({place}): unsupported CUDA major"
                if note not in notes:
                    notes.append(note)

    major = None
    if decider is not None:
        major = nvvm.major or libdevice.major

    components = {}
    if decider is not None:
        for name, f in (("nvvm", nvvm), ("libdevice", libdevice)):
            components[name] = Component(name, f.path, f.source.kind, f.version, None,
                                         f.major or major, f.how, tried=tried[name])
    def order(reach_system=True):
        # a generator: the system sources are built only if a component gets that far
        if decider:
            yield decider
        pool = sources if reach_system else sources.built()
        yield from (s for s in pool if s is not decider and not s.skip)

    for name in COMPONENTS:
        if name in components:
            continue
        comp, major = _resolve_other(env, name, order(name not in OPTIONAL_COMPONENTS), decider,
                                     major, tried[name])
        components[name] = comp

    for name in ("nvvm", "libdevice"):
        if decider is None:
            components[name] = Component(name, error=_missing_summary(name, env, None),
                                         tried=tried[name])

    # skipped sources (and a system source never reached) are part of every component's story
    reported = sources.known()
    for src in reported:
        if src.skip:
            for name in COMPONENTS:
                components[name].tried.append((src.label, src.skip))
    # keep the documented order in the tried lists
    rank = {s.label: i for i, s in enumerate(reported)}
    for comp in components.values():
        comp.tried.sort(key=lambda pr: rank.get(pr[0], len(rank)))

    if major and env.bindings_major and major != env.bindings_major:
        notes.append(f"the installed cuda-bindings is for CUDA {env.bindings_major}, but the "
                     f"toolkit found is CUDA {major}; install matching versions "
                     f"({fix_command(environment_kind(env), major)})")
    notes.extend(p for p in env.metadata.problems if p not in notes)
    kind = environment_kind(env)
    fix = fix_command(kind, _fix_major(major, env))
    tk = Toolkit(cuda_major=major if decider else None, source=decider.kind if decider else None,
                 root=decider.report_root if decider else None, components=components,
                 warnings=notes, environment=kind, fix=fix,
                 searched=[f"{s.label}" + (f" [{s.skip}]" if s.skip else "") for s in reported],
                 skipped={s.label for s in reported if s.skip})
    fix_major = _fix_major(major, env)
    for comp in components.values():
        if not comp.found:
            comp.fix = fix_command(kind, fix_major, comp.name)
            comp.message = error_message(tk, comp, env)
    return tk


def _resolve_other(env, name, order, decider, major, tried):
    mismatched = []
    for src in order:
        found, rejected = _examine(env, src, name)
        tried.extend(rejected)
        for f in found:
            if major is not None and f.major is not None and f.major != major:
                mismatched.append(f)
                tried.append((src.label, f"{f.path} is CUDA {f.major} (from {f.how}), but the "
                                         f"toolkit is CUDA {major}"))
                continue
            if f.major is None and decider is not None and src is not decider:
                tried.append((src.label, f"{f.path}: its CUDA major cannot be determined, so it "
                                         "is not mixed with the toolkit"))
                continue
            if major is None and f.major is not None:
                major = f.major
            comp = Component(name, f.path, src.kind, f.version, None, f.major or major, f.how,
                             tried=tried)
            return comp, major
    if mismatched:
        error = (f"mixed CUDA majors: the toolkit is CUDA {major}, but the only "
                 f"{DESCRIPTIONS[name]} found is "
                 + ", ".join(f"CUDA {f.major} ({f.path})" for f in mismatched))
    else:
        error = _missing_summary(name, env, major)
    return Component(name, error=error, tried=tried), major


def _missing_summary(name, env, major):
    what = DESCRIPTIONS[name]
    if major:
        return f"{what} not found for CUDA {major}"
    return f"{what} not found"


def error_message(tk, comp, env):
    """The full ToolkitError text for an unusable component."""
    lines = [f"CUDA toolkit component {comp.name!r} ({DESCRIPTIONS[comp.name]}) is not available: "
             f"{comp.error}."]
    if tk.source:
        lines.append(f"The toolkit in use is CUDA {tk.cuda_major or '(major unknown)'} from "
                     f"{tk.source} ({tk.root}); its libNVVM: {tk.components['nvvm'].path}.")
        if comp.error and comp.error.startswith("mixed CUDA majors"):
            majors = ", ".join(f"{c.name}: CUDA {c.major}" for c in tk.components.values()
                               if c.found and c.major)
            lines.append(f"Components found and their CUDA majors: {majors}. All components must "
                         "come from one CUDA major.")
    lines.append("Places tried:")
    for place, reason in comp.tried or [("(nothing)", "no source was searched")]:
        lines.append(f"  - {place}: {reason}")
    where = {"conda": "this conda environment", "venv": "this virtual environment",
             "system": "this Python"}[tk.environment]
    fix = fix_command(tk.environment, _fix_major(tk.cuda_major, env), comp.name)
    lines.append(f"Fix (for {where}): {fix}")
    if any(src_skip for _p, src_skip in comp.tried if DISABLE_VARIABLE in src_skip):
        lines.append(f"Some sources were disabled by {DISABLE_VARIABLE}="
                     f"{env.environ.get(DISABLE_VARIABLE, '')!r}.")
    lines.append("Run `numba-cuda sysinfo` for the full report.")
    return "\n".join(lines)


def warn_notes(toolkit):
    for note in toolkit.warnings:
        warnings.warn(note, ToolkitWarning, stacklevel=3)
