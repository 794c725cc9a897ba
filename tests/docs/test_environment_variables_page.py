"""docs/user/environment-variables.rst lists every environment variable the package reads (found
in its source: ``os.environ`` / ``getenv`` reads, ``NUMBA_*`` names, and the ``numba.config``
settings it reads, mapped to Numba's variable names), and every CUDA variable of Numba's own
configuration and of NVIDIA's package (supported or not, with the reason)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "user" / "environment-variables.rst"

#: Variables NVIDIA's numba-cuda 0.30.4 adds to Numba's (facts from its configuration).
NVIDIA_ADDED = ("NUMBA_CUDA_ENABLE_NRT", "NUMBA_CUDA_NRT_STATS", "NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS")


def numba_config_variables():
    """``{config attribute: environment variable}`` of Numba's ``numba.config``."""
    import numba.core.config as config

    source = Path(config.__file__).read_text()
    return dict(re.findall(r"^\s*([A-Z_0-9]+)\s*=\s*_readenv\(\s*[\"'](\w+)[\"']", source, re.M))


def _module_constants(tree):
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    out[target.id] = node.value.value
    return out


def _dotted_tail(node):
    if isinstance(node, ast.Attribute):
        return node.attr
    return getattr(node, "id", "")


def variables_read(path, config_names):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    consts = _module_constants(tree)

    def text(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return consts.get(node.id)
        return None

    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = _dotted_tail(func)
            owner = _dotted_tail(func.value) if isinstance(func, ast.Attribute) else ""
            if (name in ("get", "pop", "setdefault") and owner.endswith("environ")) \
                    or name == "getenv" or name.startswith("_env_"):
                found.add(text(node.args[0]))
            elif name == "getattr" and len(node.args) >= 2 and _dotted_tail(node.args[0]) == "config":
                found.add(config_names.get(text(node.args[1])))
        elif isinstance(node, ast.Subscript) and _dotted_tail(node.value) == "environ":
            found.add(text(node.slice))
        elif isinstance(node, ast.Attribute) and _dotted_tail(node.value) == "config":
            found.add(config_names.get(node.attr))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and re.fullmatch(r"NUMBA_[A-Z0-9_]+", node.value):
            found.add(node.value)
    found.discard(None)
    return found


def package_variables():
    config_names = numba_config_variables()
    files = sorted((ROOT / "numba_cuda").rglob("*.py")) + [ROOT / "_numba_cuda_redirector.py"]
    found = {}
    for path in files:
        for name in variables_read(path, config_names):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def _listed():
    return set(re.findall(r"``([A-Za-z_][A-Za-z0-9_]*)``", PAGE.read_text(encoding="utf-8")))


def test_every_variable_the_package_reads_is_on_the_page():
    found = package_variables()
    # the scan sees what it must (guards against a scan that finds nothing)
    for name in ("NUMBA_ENABLE_CUDASIM", "NUMBA_CUDA_DEFAULT_PTX_CC", "NUMBA_FORCE_CUDA_CC",
                 "CUDA_HOME", "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "NUMBA_BOUNDSCHECK"):
        assert name in found, (name, sorted(found))
    missing = {name: where for name, where in found.items() if name not in _listed()}
    assert not missing, f"read by the package but not documented in {PAGE.name}: {missing}"


def test_every_cuda_variable_of_numba_and_nvidia_is_on_the_page():
    numbas = {v for v in numba_config_variables().values() if "CUDA" in v}
    assert {"NUMBA_CUDA_DEFAULT_PTX_CC", "NUMBA_CUDA_LOG_LEVEL", "NUMBA_ENABLE_CUDASIM"} <= numbas
    missing = sorted((numbas | set(NVIDIA_ADDED)) - _listed())
    assert not missing, f"Numba/NVIDIA CUDA variables missing from {PAGE.name}: {missing}"


def test_the_scan_finds_each_kind_of_read(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nfrom numba.core import config\nNAME = 'A_CONST'\n"
        "os.environ.get(NAME)\nos.getenv('B_GETENV')\nos.environ['C_ITEM']\n"
        "config.CUDA_LOG_LEVEL\ngetattr(config, 'FORCE_CUDA_CC', None)\n_env_flag('D_FLAG')\n"
        "x = 'NUMBA_E_LITERAL'\n")
    assert variables_read(sample, numba_config_variables()) == {
        "A_CONST", "B_GETENV", "C_ITEM", "NUMBA_CUDA_LOG_LEVEL", "NUMBA_FORCE_CUDA_CC", "D_FLAG",
        "NUMBA_E_LITERAL"}
