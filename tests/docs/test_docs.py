"""The Sphinx documentation builds with warnings as errors, and its examples run.

The examples (``testcode`` blocks) run with ``sphinx-build -b doctest``: in
the simulator (``NUMBA_ENABLE_CUDASIM=1``) everywhere, and on the GPU too
where there is one.  The API reference is checked to name every public
``numba.cuda`` name, and the pages to agree with the code they describe.
"""

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _sphinx(builder, outdir, **env_overrides):
    env = dict(os.environ)
    env.update(env_overrides)
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", builder, str(DOCS), str(outdir)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def _text(path):
    """The page's text; tags are dropped without a space (Sphinx splits ``numba.cuda.`` and ``jit``)."""
    raw = Path(path).read_text(encoding="utf-8")
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", raw)).split())


def _rst(name):
    return " ".join((DOCS / name).read_text(encoding="utf-8").split())


@pytest.fixture(scope="module")
def html_build(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("html")
    proc = _sphinx("html", outdir)
    return proc, outdir


@pytest.mark.slow
def test_html_builds_without_warnings(html_build):
    proc, outdir = html_build
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-6000:]
    for page in ("index", "toolkit", "migration", "api", "cuda-array-interface", "changelog", "maintainers", "architecture",
                 "install/conda", "install/pip", "install/hpc-modules", "install/lockfiles", "install/source",
                 "user/kernels", "user/launch-keywords", "user/memory", "user/streams", "user/graphs", "user/simulator", "user/caching",
                 "user/linking", "user/multi-gpu", "user/external-memory", "user/devices",
                 "user/random", "user/fastmath", "user/intrinsics", "user/python-support",
                 "user/compatibility", "user/faq", "user/examples", "user/environment-variables"):
        assert (outdir / f"{page}.html").is_file(), page


@pytest.mark.slow
def test_api_reference_names_every_public_name(html_build):
    proc, outdir = html_build
    assert proc.returncode == 0
    exports = importlib.import_module("numba_cuda._exports")
    text = _text(outdir / "api.html")
    for name in exports.GPU:
        assert re.search(rf"numba\.cuda\.{re.escape(name)}\b", text), name
    errors = importlib.import_module("numba_cuda.errors")
    for name, obj in vars(errors).items():
        if isinstance(obj, type) and issubclass(obj, errors.CudaError):
            assert f"numba_cuda.errors.{name}" in text, name


def _count_examples():
    return sum(p.read_text().count(".. testcode::") for p in DOCS.rglob("*.rst"))


def _run_examples(tmp_path, **env):
    proc = _sphinx("doctest", tmp_path / "doctest", **env)
    report = (tmp_path / "doctest" / "output.txt")
    output = report.read_text() if report.exists() else ""
    assert proc.returncode == 0, output[-6000:] + proc.stderr[-3000:]
    match = re.search(r"(\d+) tests\s+0 failures in tests", output)
    assert match, output[-3000:]
    assert int(match.group(1)) == _count_examples() and _count_examples() >= 5
    return output


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("numba_cuda.simulator.api") is None,
                    reason="numba_cuda.simulator has not landed yet; the examples need it without a GPU")
def test_examples_run_in_the_simulator(tmp_path):
    _run_examples(tmp_path, NUMBA_ENABLE_CUDASIM="1")


@pytest.mark.slow
@pytest.mark.gpu
def test_examples_run_on_the_gpu(tmp_path):
    _run_examples(tmp_path, NUMBA_ENABLE_CUDASIM="0")


# ---- the pages agree with the code ---------------------------------------------

def test_toolkit_page_names_every_source_and_fix():
    discovery = importlib.import_module("numba_cuda.toolkit.discovery")
    text = _rst("toolkit.rst")
    for source in discovery.SOURCES:
        assert f"**{source}**" in text, source
    assert discovery.DISABLE_VARIABLE in text
    for kind in ("conda", "venv"):
        fix = discovery.fix_command(kind, 13).replace("13", "N")
        assert " ".join(fix.split()) in text.replace("``", ""), fix
    for component in importlib.import_module("numba_cuda.toolkit").COMPONENTS:
        assert f"``{component}``" in text, component


def test_cuda_array_interface_page_covers_every_key():
    text = _rst("cuda-array-interface.rst")
    for key in ("shape", "typestr", "data", "version", "strides", "descr", "mask", "stream"):
        assert f"``{key}`` --" in text, key
    for version in ("Version 3", "Version 2", "Version 1", "Version 0"):
        assert f"**{version}**" in text


def test_scripts_named_in_the_docs_exist_and_are_documented():
    text = (DOCS / "maintainers.rst").read_text()
    named = set(re.findall(r"``(scripts/[\w./-]+)", text))
    assert {"scripts/build-dist", "scripts/render-recipe", "scripts/sysinfo"} <= named
    for path in named:
        assert (ROOT / path).exists(), path
    for script in ("build-dist", "render-recipe", "sysinfo"):
        lines = (ROOT / "scripts" / script).read_text().splitlines()
        assert lines[0].startswith("#!") and lines[1].startswith("# "), script


def test_install_pages_match_the_packaging_files():
    conda = _rst("install/conda.rst")
    recipe = (ROOT / "recipe" / "recipe.yaml").read_text()
    for package in ("cuda-nvcc-impl", "cuda-nvrtc", "cuda-cudart", "libnvjitlink"):
        assert package in conda and f"- {package}" in recipe, package
    pip_page = _rst("install/pip.rst")
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in ("cu12", "cu13"):
        for req in extras[extra]:
            name = re.match(r"[A-Za-z0-9_.-]+", req).group(0)
            assert f"``{name}``" in pip_page, name


def test_multi_gpu_page_names_the_example_and_its_api():
    text = _rst("user/multi-gpu.rst")
    example = (ROOT / "examples" / "dask_chunked_kernel.py").read_text()
    for name in ("gpu_cluster", "chunked_sum", "cupy_map_blocks"):
        assert f"def {name}(" in example and name in text, name
    for api in ("cuda.select_device", "cuda.gpus.current", "can_access_peer",
                "enable_peer_access", "cuMemcpyPeer", "NUMBA_CUDA_MEMORY_MANAGER",
                "__cuda_array_interface__", "CUDA_VISIBLE_DEVICES"):
        assert api in text, api


# ---- intersphinx and Read the Docs ------------------------------------------

def _conf(**environ):
    """docs/conf.py evaluated with ``environ`` as the whole environment."""
    import runpy
    from unittest import mock

    with mock.patch.dict(os.environ, environ, clear=True):
        return runpy.run_path(str(DOCS / "conf.py"))


def test_intersphinx_is_off_without_a_known_network():
    """Offline builds (CI, these machines) never try to fetch inventories."""
    conf = _conf()
    assert "sphinx.ext.intersphinx" in conf["extensions"]
    assert conf["intersphinx_mapping"] == {}


@pytest.mark.parametrize("environ", [{"READTHEDOCS": "True"}, {"NUMBA_CUDA_DOCS_INTERSPHINX": "1"}])
def test_intersphinx_links_python_numpy_numba_and_cuda_python_where_online(environ):
    mapping = _conf(**environ)["intersphinx_mapping"]
    assert set(mapping) == {"python", "numpy", "numba", "cuda-bindings"}
    for url, inventory in mapping.values():
        assert url.startswith("https://") and inventory is None


def test_intersphinx_switch_overrides_read_the_docs():
    assert _conf(READTHEDOCS="True", NUMBA_CUDA_DOCS_INTERSPHINX="0")["intersphinx_mapping"] == {}


def test_read_the_docs_config():
    import tomllib

    import yaml

    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text())
    assert config["version"] == 2
    assert (ROOT / config["sphinx"]["configuration"]) == DOCS / "conf.py"
    assert config["sphinx"]["fail_on_warning"] is True
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (install,) = config["python"]["install"]
    assert install["path"] == "." and install["extra_requirements"] == ["docs"]
    assert any(r.startswith("sphinx") for r in project["optional-dependencies"]["docs"])
    python = tuple(int(x) for x in config["build"]["tools"]["python"].split("."))
    floor = tuple(int(x) for x in project["requires-python"].lstrip(">=").split("."))
    assert python >= floor
    assert project["urls"]["Documentation"].endswith(".readthedocs.io")


# ---- the reference pages agree with the code -----------------------------------

def test_intrinsics_page_names_every_kernel_language_function_and_atomic():
    exports = importlib.import_module("numba_cuda._exports")
    text = _rst("user/intrinsics.rst")
    vector_types = set(exports._VECTOR_TYPES)
    for name in exports.KERNEL_LANGUAGE:
        if name in vector_types:
            continue
        assert f"cuda.{name}" in text, name
    atomics = importlib.import_module("numba_cuda.lang.atomics")
    for op in (*atomics.OPERATIONS, "cas", "compare_and_swap"):
        assert f"``{op}``" in text or f"``{op}(" in text, op


def test_fastmath_page_matches_the_compiler():
    pipeline = importlib.import_module("numba_cuda.compiler.pipeline")
    mathfuncs = importlib.import_module("numba_cuda.lang.mathfuncs")
    text = _rst("user/fastmath.rst")
    fast = pipeline.CompileOptions(fastmath=True).nvvm_options()
    flags = [o for o in fast if o not in pipeline.CompileOptions().nvvm_options()]
    assert flags and f"``{' '.join(flags)}``" in text
    for flag in flags:
        assert f"``{flag}``" in text, flag
    for base in mathfuncs.FAST_FLOAT32:
        assert f"``math.{base}``" in text, base


def test_compatibility_page_lists_the_ptx_isa_table():
    ptx_compat = importlib.import_module("numba_cuda.runtime.ptx_compat")
    text = (DOCS / "user" / "compatibility.rst").read_text()
    for (major, minor), (isa_major, isa_minor) in ptx_compat.PTX_ISA_BY_CUDA.items():
        if major >= 12:
            assert re.search(rf"^{major}\.{minor} +{isa_major}\.{isa_minor}$", text, re.M), (major, minor)
    assert "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" in text and "LinkerError" in text


def test_faq_names_every_implementation_string():
    text = _rst("user/faq.rst")
    import numba_cuda

    for value in (numba_cuda.implementation, "numba-cuda (simulator)", "NVIDIA", "Built-in"):
        assert f'``"{value}"``' in text, value
