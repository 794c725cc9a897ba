"""pip distribution: the sdist and the py3-none-any wheel, and installing the wheel.

``scripts/build-dist`` builds both (the wheel from the sdist).  The install
test puts the wheel with the extra of this run's CUDA major (``cu12`` in the
CUDA 12 venv, ``cu13`` in the CUDA 13 one: scripts/run-tests runs the suite
once per major) into a fresh venv, and checks ``pip check``, that no package
of the other major came along, and -- with recipe/tests/check_install.py,
the script the conda recipe runs too -- that ``numba-cuda sysinfo --json``
finds every toolkit component from the pip wheels with the right major and
that a kernel compiles to PTX.  Downloads are served from pip's cache after
the first run.
"""

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def dist(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("dist")
    env = dict(os.environ, PYTHON=sys.executable)
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "build-dist"), str(outdir)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = outdir.glob("*.whl")
    (sdist,) = outdir.glob("*.tar.gz")
    return wheel, sdist


def test_wheel_is_pure_python(dist, deps):
    wheel, _ = dist
    assert wheel.name == f"numba_cuda-{deps.package_version()}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        wheel_meta = zf.read(f"numba_cuda-{deps.package_version()}.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: true" in wheel_meta
    assert "Tag: py3-none-any" in wheel_meta


def test_wheel_contents(dist, deps):
    wheel, _ = dist
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        info = f"numba_cuda-{deps.package_version()}.dist-info"
        entry_points = zf.read(f"{info}/entry_points.txt").decode()
        metadata = zf.read(f"{info}/METADATA").decode()
        pth = zf.read("numba_cuda_redirector.pth").decode()
    assert "numba_cuda/__init__.py" in names
    assert "numba_cuda/toolkit/__init__.py" in names
    assert "_numba_cuda_redirector.py" in names
    assert "numba_cuda_redirector.pth" in names  # at the top level: site-packages runs it
    assert pth.strip() == "import _numba_cuda_redirector"
    assert not any(n.startswith(("tests/", "docs/", "recipe/")) for n in names)
    assert re.search(r"^numba-cuda = numba_cuda\.cli:main$", entry_points, re.M)
    assert "Requires-Python: >=3.11" in metadata
    for extra in ("cu12", "cu13", "test", "docs"):
        assert f"Provides-Extra: {extra}" in metadata


def test_sdist_contents(dist, deps):
    _, sdist = dist
    top = f"numba_cuda-{deps.package_version()}"
    with tarfile.open(sdist) as tf:
        names = {n[len(top) + 1:] for n in tf.getnames() if n.startswith(top + "/")}
    for required in ("pyproject.toml", "README.md", "LICENSE", "numba_cuda_redirector.pth",
                     "_numba_cuda_redirector.py", "numba_cuda/__init__.py", "conda_build_config.yaml",
                     "environment-cuda12.yml", "environment-cuda13.yml", "pixi.toml", "recipe/recipe.yaml", "recipe/tests/check_install.py",
                     "lock/virtual-packages.yml", "docs/conf.py", "docs/index.rst",
                     "scripts/build-dist", "scripts/modulefiles/numba-cuda.lua", "tests/conftest.py",
                     "tests/packaging/test_build_dist.py"):
        assert required in names, required


def _run(cmd, **kwargs):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, **kwargs)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def _other_major_names(deps, major):
    """Distributions that only the other major's extra installs."""
    other = 25 - major
    return set(deps.TOOLKIT_WHEELS[other].values()) - set(deps.TOOLKIT_WHEELS[major].values())


def test_wheel_installs_with_the_extra_of_this_major(dist, deps, fake_conda, tmp_path):
    wheel, _ = dist
    major = fake_conda.venv_cuda_major()
    venv_dir = tmp_path / f"venv-cu{major}"
    _run([sys.executable, "-m", "venv", str(venv_dir)])
    python = str(venv_dir / "bin" / "python")
    env = fake_conda.clean_environ(extra_path=str(venv_dir / "bin"))
    env["HOME"] = os.environ.get("HOME", str(tmp_path))  # keep pip's cache
    _run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"], env=env)
    _run([python, "-m", "pip", "install", "-q", f"{wheel}[cu{major}]"], env=env)
    _run([python, "-m", "pip", "check"], env=env)

    installed = {d["name"].lower(): d["version"] for d in
                 json.loads(_run([python, "-m", "pip", "list", "--format", "json"], env=env).stdout)}
    assert installed["cuda-bindings"].split(".")[0] == str(major)
    assert not (_other_major_names(deps, major) & set(installed)), installed
    for name, version in installed.items():
        if name.startswith("nvidia-"):
            assert version.split(".")[0] == str(major), (name, version)
            assert name.endswith("-cu12") == (major == 12), name
    for req in deps.requirements(f"cu{major}"):
        assert req.name.lower() in installed, req.name

    # Installed from the wheel (not the checkout), .pth included.
    where = _run([python, "-c", "import numba_cuda, numba.cuda; print(numba_cuda.__file__); "
                  "print(numba.cuda is numba_cuda)"], env=env, cwd=tmp_path).stdout.split()
    assert where[0].startswith(str(venv_dir)) and where[1] == "True", where

    proc = _run([python, str(ROOT / "recipe" / "tests" / "check_install.py"), "--source", "pip",
                 "--major", str(major)], env=env, cwd=tmp_path)
    assert "every component found" in proc.stdout and "compile_ptx" in proc.stdout
