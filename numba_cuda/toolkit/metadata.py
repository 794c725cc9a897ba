"""Package metadata that says which version a toolkit file belongs to.

Read from what the installers leave behind, never by loading a library:

* conda: ``<prefix>/conda-meta/<name>-<version>-<build>.json`` records, whose
  ``files`` list the files each package installed;
* pip: ``nvidia_*-<version>.dist-info/RECORD`` next to the ``nvidia/`` folder;
* a CUDA toolkit install: ``version.json`` (``{"cuda": {"version": ...},
  "cuda_nvrtc": {...}}``), the older ``version.txt``, ``*.dist-info`` records
  shipped inside the tree, the ``CUDART_VERSION`` in ``cuda_runtime_api.h``,
  and finally the folder name (``cuda-13.0``, ``v12.4``).

One :class:`MetadataCache` lives for one discovery run.  A file that cannot
be read as what it should be (not UTF-8, not JSON, a JSON of another shape) is
skipped, never raised: the file and the reason land in
:attr:`MetadataCache.problems`, which discovery reports as warnings (shown by
``numba-cuda sysinfo`` and ``--explain``).
"""

import json
import os
import re

# conda packages that can own toolkit files (conda-meta file name prefixes)
_CONDA_PREFIXES = ("cuda-", "libnvjitlink", "libnvvm", "cudatoolkit", "libcublas")

# version.json keys per component (first present wins)
_VERSION_JSON_KEYS = {
    "nvvm": ("libnvvm", "nvvm", "cuda_nvcc"),
    "libdevice": ("libnvvm", "nvvm", "cuda_nvcc"),
    "nvrtc": ("cuda_nvrtc",),
    "cudart": ("cuda_cudart",),
    "nvjitlink": ("libnvjitlink", "nvjitlink"),
    "include": ("cuda_cudart",),
    "ptxas": ("cuda_nvcc",),
    "nvdisasm": ("cuda_nvdisasm",),
}

_DIST_INFO = re.compile(r"(?P<name>[A-Za-z0-9_.]+?)-(?P<version>\d[^-]*)\.dist-info\Z")


def major_of(version):
    """``"12.9.86"`` -> 12; None when it does not start with a number."""
    if not version:
        return None
    m = re.match(r"(\d+)", str(version))
    return int(m.group(1)) if m else None


def _norm(path):
    return os.path.normcase(os.path.abspath(path))


def _lookup(index, path):
    """Find ``path`` in an index keyed by _norm, as spelled or with links resolved."""
    return index.get(_norm(path)) or index.get(os.path.normcase(os.path.realpath(path)))


#: What :meth:`MetadataCache._read` returns for a file it could not read.
UNREADABLE = object()


def _reason(exc):
    if isinstance(exc, UnicodeDecodeError):
        return f"it is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    if isinstance(exc, ValueError):
        return f"it is not valid JSON ({exc})"
    return exc.strerror or str(exc)


class MetadataCache:
    def __init__(self):
        self._conda = {}
        self._dist = {}
        self._root = {}
        #: "could not read <file>: <why>; skipped" for every metadata file skipped.
        self.problems = []

    def _skip(self, path, why):
        note = f"could not read {path}: {why}; skipped"
        if note not in self.problems:
            self.problems.append(note)

    def _read(self, path, as_json=False, missing_ok=True):
        """The text (or parsed JSON) of ``path``; :data:`UNREADABLE`, with a problem
        noted, when it cannot be read (a missing file is no problem when ``missing_ok``)."""
        try:
            with open(path, "rb") as fh:
                data = fh.read()
            text = data.decode("utf-8")
            return json.loads(text) if as_json else text
        except FileNotFoundError:
            if not missing_ok:
                self._skip(path, "it does not exist")
            return UNREADABLE
        except NotADirectoryError:
            return UNREADABLE
        except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            self._skip(path, _reason(exc))
            return UNREADABLE

    # ---- conda ---------------------------------------------------------------
    def conda_index(self, prefix):
        """{normalised absolute path: (package name, version)} for toolkit packages."""
        if prefix in self._conda:
            return self._conda[prefix]
        index = {}
        meta = os.path.join(prefix, "conda-meta")
        try:
            names = sorted(os.listdir(meta))
        except OSError:
            names = []
        for name in names:
            if not name.endswith(".json") or not name.startswith(_CONDA_PREFIXES):
                continue
            path = os.path.join(meta, name)
            record = self._read(path, as_json=True)
            if record is UNREADABLE:
                continue
            if not isinstance(record, dict):
                self._skip(path, f"a conda-meta record is a JSON object, not {type(record).__name__}")
                continue
            pkg, version, files = record.get("name"), record.get("version"), record.get("files")
            if not isinstance(pkg, str) or not isinstance(version, (str, int, float)) \
                    or not pkg or version == "":
                self._skip(path, "its \"name\" and \"version\" are not both non-empty strings")
                continue
            if files is None:
                files = []
            if not isinstance(files, list) or not all(isinstance(rel, str) for rel in files):
                self._skip(path, "its \"files\" is not a list of paths")
                continue
            for rel in files:
                index[_norm(os.path.join(prefix, *rel.split("/")))] = (pkg, str(version))
        self._conda[prefix] = index
        return index

    def conda_owner(self, prefix, path):
        """(package, version) of the conda package that installed ``path``, or None."""
        return _lookup(self.conda_index(prefix), path)

    def conda_cuda_version(self, prefix):
        """The version of the ``cuda-version`` (or CUDA 11 ``cudatoolkit``) package, or None."""
        meta = os.path.join(prefix, "conda-meta")
        try:
            names = os.listdir(meta)
        except OSError:
            return None
        for name in sorted(names):
            m = re.match(r"(cuda-version|cudatoolkit)-(\d[^-]*)-[^-]+\.json\Z", name)
            if m:
                return m.group(2)
        return None

    # ---- pip -----------------------------------------------------------------
    def dist_index(self, site_dir):
        """{normalised absolute path: (distribution, version)} from nvidia_* RECORDs."""
        if site_dir in self._dist:
            return self._dist[site_dir]
        index = {}
        try:
            names = os.listdir(site_dir)
        except OSError:
            names = []
        base = _norm(site_dir)
        for name in names:
            m = _DIST_INFO.match(name)
            if not m or not name.lower().startswith("nvidia"):
                continue
            text = self._read(os.path.join(site_dir, name, "RECORD"))
            if text is UNREADABLE:
                continue
            lines = text.splitlines()
            owner = (m.group("name"), m.group("version"))
            for line in lines:
                rel = line.split(",", 1)[0]
                if not rel:
                    continue
                parts = rel.split("/")
                if rel.startswith("/") or "" in parts or "." in parts or ".." in parts:
                    key = _norm(os.path.join(site_dir, *parts))  # ../../bin/x, a/ : normalise fully
                else:
                    key = os.path.normcase(os.path.join(base, *parts))  # == _norm of the joined path
                index[key] = owner
        self._dist[site_dir] = index
        return index

    def dist_owner(self, site_dir, path):
        return _lookup(self.dist_index(site_dir), path)

    # ---- toolkit installs (CUDA_HOME, CUDA_PATH, system) -------------------------
    def root_info(self, root):
        """What a toolkit root says about itself: version.json, version.txt, dist-infos."""
        if root in self._root:
            return self._root[root]
        info = {"version_json": {}, "version_txt": None, "by_basename": {}}
        path = os.path.join(root, "version.json")
        data = self._read(path, as_json=True)
        if isinstance(data, dict):
            info["version_json"] = data
        elif data is not UNREADABLE:
            self._skip(path, f"it is a JSON {type(data).__name__}, not an object")
        text = self._read(os.path.join(root, "version.txt"))
        if text is not UNREADABLE:
            m = re.search(r"CUDA Version\s+(\d[\d.]*)", text)
            if m:
                info["version_txt"] = m.group(1)
        # Some installs carry the wheels' dist-info records inside the tree
        # (``<root>/dist-info/nvidia_nvvm-13.0.88.dist-info``); their RECORD
        # paths do not match the tree, so they are matched by file name.
        for holder in (os.path.join(root, "dist-info"), root):
            try:
                names = os.listdir(holder)
            except OSError:
                continue
            for name in names:
                m = _DIST_INFO.match(name)
                if not m or not name.lower().startswith("nvidia"):
                    continue
                text = self._read(os.path.join(holder, name, "RECORD"))
                if text is UNREADABLE:
                    continue
                for line in text.splitlines():
                    rel = line.split(",", 1)[0]
                    if rel and not rel.endswith("/") and ".dist-info/" not in rel:
                        base = rel.rsplit("/", 1)[-1]
                        info["by_basename"].setdefault(base, (m.group("name"), m.group("version")))
        self._root[root] = info
        return info

    def root_component_version(self, root, component, path):
        """(version, how) for ``path`` inside a toolkit root, or (None, None)."""
        info = self.root_info(root)
        vj = info["version_json"]
        for key in _VERSION_JSON_KEYS.get(component, ()):
            entry = vj.get(key)
            if isinstance(entry, dict) and entry.get("version"):
                return str(entry["version"]), f"{root}/version.json[{key}]"
        if path:
            for name in (os.path.basename(path), os.path.basename(os.path.realpath(path))):
                hit = info["by_basename"].get(name)
                if hit:
                    return hit[1], f"{hit[0]} {hit[1]} record in {root}"
        return None, None

    def root_version(self, root):
        """(version, how) for the whole toolkit at ``root``, or (None, None)."""
        info = self.root_info(root)
        entry = info["version_json"].get("cuda")
        if isinstance(entry, dict) and entry.get("version"):
            return str(entry["version"]), f"{root}/version.json"
        if info["version_txt"]:
            return info["version_txt"], f"{root}/version.txt"
        name = os.path.basename(os.path.realpath(root).rstrip("/\\"))
        m = re.match(r"(?:cuda-|v)(\d+\.\d+)\Z", name, re.IGNORECASE)
        if m:
            return m.group(1), f"the folder name {name}"
        return None, None


def header_version(include_dir):
    """``"13.0"`` from ``#define CUDART_VERSION 13000`` in cuda_runtime_api.h, or None."""
    try:
        with open(os.path.join(include_dir, "cuda_runtime_api.h"), encoding="utf-8",
                  errors="replace") as fh:
            text = fh.read(200_000)
    except OSError:
        return None
    m = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", text)
    if not m:
        return None
    number = int(m.group(1))
    return f"{number // 1000}.{(number % 1000) // 10}"
