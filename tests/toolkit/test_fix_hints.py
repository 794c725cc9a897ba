"""Every fix hint ``numba-cuda sysinfo`` (and a ToolkitError) prints is true: the package or extra
it names really provides the missing piece.

* pip, the running venv's CUDA major: for each component discovery found, the distribution that
  owns its file (``importlib.metadata`` RECORDs) is installed by the hint -- the ``cuNN`` extra
  of pyproject.toml, followed through its requirements and their extras.
* nvdisasm, optional and in no extra: its hint names NVIDIA's wheel of it for CUDA 13 (the
  ``cuda-toolkit`` metapackage of the running major lists it) and none for CUDA 12 (the
  metapackage lists none).
* conda: each hint names the conda-forge packages that hold the piece (or the recipe's
  run-requirement that brings it).
* a damaged file: the hint reinstalls the wheel or conda package that owns it (installing the
  extra again would change nothing).
"""

import os
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from numba_cuda.toolkit import get_toolkit
from numba_cuda.toolkit.discovery import fix_command, reinstall_command
from numba_cuda.toolkit.layouts import COMPONENTS, OPTIONAL_COMPONENTS

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = [name for name in COMPONENTS if name not in OPTIONAL_COMPONENTS]


def _major():
    return int(metadata.version("cuda-bindings").split(".")[0])


def _extra_requirements(extra):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in project["optional-dependencies"][extra]]


def _installed_closure(requirements):
    """Canonical names of the installed distributions the requirements pull in (with their
    extras, markers evaluated for this machine)."""
    seen, todo = set(), [(r, frozenset(r.extras)) for r in requirements]
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for text in dist.requires or ():
            sub = Requirement(text)
            if sub.marker is not None and not any(
                    sub.marker.evaluate({"extra": e}) for e in (extras or {""})):
                continue
            todo.append((sub, frozenset(sub.extras)))
    return {name for name, _extras in seen}


def _owner(path):
    """The canonical name of the installed distribution whose RECORD lists ``path``."""
    target = os.path.realpath(path)
    probe = os.path.join(target, "cuda_runtime.h") if os.path.isdir(target) else target
    for dist in metadata.distributions():
        for f in dist.files or ():
            if os.path.realpath(str(dist.locate_file(f))) == probe:
                return canonicalize_name(dist.metadata["Name"])
    return None


def test_the_pip_hint_installs_every_required_component_of_this_major():
    major = _major()
    tk = get_toolkit()
    if tk.source != "pip":
        pytest.skip(f"the toolkit in use is from {tk.source}, not NVIDIA's wheels")
    hint = fix_command("venv", major)
    m = re.fullmatch(r'pip install "numba-cuda\[(cu\d+)\]"', hint)
    assert m, hint
    provided = _installed_closure(_extra_requirements(m.group(1)))
    for name in REQUIRED:
        assert fix_command("venv", major, name) == hint, name
        comp = tk.components[name]
        assert comp.found, (name, comp.error)
        owner = _owner(comp.path)
        assert owner is not None, (name, comp.path)
        assert owner in provided, (name, owner, sorted(provided))


def test_the_nvdisasm_hint_names_a_wheel_that_exists_for_this_major():
    major = _major()
    hint = fix_command("venv", major, "nvdisasm")
    toolkit_meta = metadata.distribution("cuda-toolkit")
    listed = [Requirement(r) for r in toolkit_meta.requires or ()]
    nvdisasm = [r for r in listed if "nvdisasm" in r.name]
    if major == 12:
        assert "pip install" not in hint and "no pip wheel" in hint
        assert not nvdisasm, nvdisasm  # NVIDIA's CUDA 12 metapackage lists no nvdisasm wheel
        return
    m = re.fullmatch(r'pip install "([\w-]+)(>=[\d.]+,<[\d.]+)"', hint)
    assert m, hint
    wheel, spec = m.groups()
    if not nvdisasm:
        # cuda-toolkit 13.1 (the floor of the cu13 extra) lists no nvdisasm wheel yet; the newer
        # metapackages of the other jobs do, and the check runs there
        pytest.skip(f"cuda-toolkit {toolkit_meta.version} lists no nvdisasm wheel to check the hint against")
    assert wheel in {canonicalize_name(r.name) for r in nvdisasm}, (wheel, nvdisasm)
    # the metapackage of this major pins a version the hint's range accepts
    from packaging.specifiers import SpecifierSet

    pinned = [str(s.version).rstrip(".*") for r in nvdisasm for s in r.specifier]
    assert any(SpecifierSet(spec).contains(v) for v in pinned), (spec, pinned)
    comp = get_toolkit().components["nvdisasm"]
    if comp.found and comp.source == "pip":  # installed: it is that wheel's file
        assert _owner(comp.path) == wheel


def test_sysinfo_prints_the_components_own_hints(tmp_path):
    """Only nvdisasm missing: the one fix line is nvdisasm's, not the extra's."""
    from numba_cuda.sysinfo import render

    major = _major()
    components = {name: {"path": f"/x/{name}", "source": "pip", "version": "1", "error": None}
                  for name in COMPONENTS}
    components["nvdisasm"] = {"path": None, "source": None, "version": None,
                              "error": f"nvdisasm not found for CUDA {major}",
                              "fix": fix_command("venv", major, "nvdisasm")}
    report = {"toolkit": {"source": "pip", "cuda_major": major, "root": "/x",
                          "components": components, "fix": fix_command("venv", major)},
              "driver": {}, "devices": [], "packages": {}}
    text = render(report)
    fixes = [line.strip() for line in text.splitlines() if line.strip().startswith("fix")]
    assert fixes == [f"fix (nvdisasm): {fix_command('venv', major, 'nvdisasm')}"], text


#: conda-forge packages holding each component (the layout the discovery tests fake), and what
#: the recipe's run-requirement cuda-nvcc-impl brings (the recipe's own note: libNVVM, libdevice,
#: ptxas and the headers).
CONDA_OWNER = {"nvvm": "cuda-nvvm-impl", "libdevice": "cuda-nvvm-tools", "nvrtc": "cuda-nvrtc",
               "cudart": "cuda-cudart", "nvjitlink": "libnvjitlink", "include": "cuda-cudart-dev",
               "ptxas": "cuda-nvcc-tools", "nvdisasm": "cuda-nvdisasm"}
BROUGHT_BY_NVCC_IMPL = {"cuda-nvvm-impl", "cuda-nvvm-tools", "cuda-nvcc-tools", "cuda-cudart-dev"}


def _recipe_run_requirements():
    text = (ROOT / "recipe" / "recipe.yaml").read_text()
    run = text.split("\n  run:\n", 1)[1].split("\n  run_constraints:", 1)[0]
    return {line.strip()[2:].split()[0] for line in run.splitlines() if line.strip().startswith("- ")}


@pytest.mark.parametrize("major", [12, 13])
@pytest.mark.parametrize("name", COMPONENTS)
def test_conda_hints_name_the_package_that_holds_the_piece(name, major, fakes, tmp_path):
    hint = fix_command("conda", major, name)
    m = re.fullmatch(r'conda install -c conda-forge ([\w\- ]+) "cuda-version=(\d+)"', hint)
    assert m and int(m.group(2)) == major, hint
    packages = set(m.group(1).split())
    run = _recipe_run_requirements()
    assert packages <= run | {"cuda-nvdisasm"}, (packages - run)
    owner = CONDA_OWNER[name]
    assert owner in packages or ("cuda-nvcc-impl" in packages and owner in BROUGHT_BY_NVCC_IMPL), \
        (name, hint)
    # the fake conda env (conda-forge's layout) agrees about who owns the file
    tree = fakes.make_conda_env(tmp_path / "env", major)
    assert (tmp_path / "env" / "conda-meta").is_dir() and tree is not None
    records = [p.name for p in (tmp_path / "env" / "conda-meta").iterdir()]
    assert any(r.startswith(owner + "-") for r in records), (owner, records)


@pytest.mark.parametrize("kind", ["pip", "conda"])
def test_a_damaged_file_is_fixed_by_reinstalling_its_owner(kind, fake_env, fakes, tmp_path):
    from numba_cuda.toolkit.discovery import discover

    major = 13
    if kind == "pip":
        site = tmp_path / "site-packages"
        fakes.make_wheels(site, major)
        env = fake_env(path=[str(site)])
    else:
        prefix = tmp_path / "python-prefix"
        prefix.mkdir(exist_ok=True)
        fakes.make_conda_env(prefix, major)
        env = fake_env(prefix=str(prefix))
    tk = discover(env)
    wanted = {"pip": {"nvvm": "nvidia_nvvm==13.0.88", "nvrtc": "nvidia_cuda_nvrtc==13.0.88",
                      "include": "nvidia_cuda_runtime==13.0.88"},
              "conda": {"nvvm": "cuda-nvvm-impl=13.0.88", "nvrtc": "cuda-nvrtc=13.0.88",
                        "include": "cuda-cudart-dev=13.0.88"}}[kind]
    for name, owner in wanted.items():
        fix = reinstall_command(tk.components[name], env)
        assert "--force-reinstall" in fix and f'"{owner}"' in fix, fix
        assert "numba-cuda" not in fix  # installing the extra again would change nothing
