"""docs/architecture.rst agrees with the package: its layer list is the layers contract of
pyproject.toml (same layers, same order, same independent rooms), and every subpackage of
numba_cuda/ on disk is named under its "Rooms" heading.

The page's layer list is a ``code-block:: text`` captioned ``layers of <container>, top to
bottom``, one layer a line, independent rooms separated by ``|`` (import-linter's own
notation); there is one such block for each container of each ``layers`` contract."""

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.rst"
PACKAGE = ROOT / "numba_cuda"

_CAPTION = re.compile(r"^\s+:caption:\s*layers of (\S+), top to bottom\s*$")


def _layer(text):
    """``"compiler | runtime"`` -> ``("compiler", "|", "runtime")``: names and separators."""
    return tuple(t for t in re.split(r"\s*([|:])\s*", text.strip()) if t)


def page_layers(text):
    """``{container: [layer, ...]}`` from the page's captioned layer blocks."""
    lines = text.splitlines()
    found = {}
    for at, line in enumerate(lines):
        match = _CAPTION.match(line)
        if not match:
            continue
        assert lines[at - 1].strip() == ".. code-block:: text", \
            f"line {at + 1}: a layer caption belongs to a '.. code-block:: text'"
        body = []
        for follow in lines[at + 1:]:
            if follow.strip() and not follow.startswith("   "):
                break
            body.append(follow)
        layers = [_layer(b) for b in body if b.strip()]
        assert match.group(1) not in found, f"two layer blocks for {match.group(1)}"
        found[match.group(1)] = layers
    return found


def contract_layers(pyproject):
    """``{container: [layer, ...]}`` of every ``layers`` contract of ``[tool.importlinter]``."""
    found = {}
    for contract in pyproject["tool"]["importlinter"]["contracts"]:
        if contract["type"] != "layers":
            continue
        for layer in contract["layers"]:
            assert isinstance(layer, str), f"{contract['name']}: a layer the page cannot spell: {layer!r}"
        containers = contract.get("containers") or [pyproject["tool"]["importlinter"]["root_package"]]
        for container in containers:
            assert container not in found, f"two layers contracts for {container}"
            found[container] = [_layer(layer) for layer in contract["layers"]]
    return found


def rooms_named(text):
    """The ``numba_cuda/<room>/`` names under the page's "Rooms" heading."""
    match = re.search(r"^Rooms\n-+\n(.*?)(?=^\S[^\n]*\n[-=~^]{3,}\n|\Z)", text, re.M | re.S)
    assert match, "docs/architecture.rst has no 'Rooms' section"
    return set(re.findall(r"``numba_cuda/(\w+)/``", match.group(1)))


def subpackages_on_disk(package=PACKAGE):
    return {p.parent.name for p in package.glob("*/__init__.py")}


def test_page_layers_are_the_layers_contracts():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    expected = contract_layers(pyproject)
    assert expected, "pyproject.toml has no layers contract"
    assert page_layers(PAGE.read_text(encoding="utf-8")) == expected


def test_every_subpackage_on_disk_is_named_on_the_page():
    missing = subpackages_on_disk() - rooms_named(PAGE.read_text(encoding="utf-8"))
    assert not missing, f"rooms of numba_cuda/ that docs/architecture.rst does not name: {sorted(missing)}"


# ---- the checks bite ---------------------------------------------------------------------

_PAGE = """\
Rooms
-----

``numba_cuda/a/``
   A.
``numba_cuda/b/``, ``numba_cuda/c/``
   B and C.

Layers
------

.. code-block:: text
   :caption: layers of numba_cuda, top to bottom

   dispatch
   compiler | runtime
   toolkit

After.
"""


def test_parsers_read_the_page_form():
    assert page_layers(_PAGE) == {"numba_cuda": [("dispatch",), ("compiler", "|", "runtime"),
                                                 ("toolkit",)]}
    assert rooms_named(_PAGE) == {"a", "b", "c"}


def _contracts(*layers):
    return {"tool": {"importlinter": {"root_package": "numba_cuda", "contracts": [
        {"name": "L", "type": "layers", "containers": ["numba_cuda"], "layers": list(layers)},
        {"name": "F", "type": "forbidden"}]}}}


@pytest.mark.parametrize("layers, same", [
    (("dispatch", "compiler | runtime", "toolkit"), True),
    (("dispatch", "compiler|runtime", "toolkit"), True),
    (("compiler | runtime", "dispatch", "toolkit"), False),        # order
    (("dispatch", "compiler : runtime", "toolkit"), False),        # not independent
    (("dispatch", "compiler | runtime", "common", "toolkit"), False),  # a layer the page lacks
    (("dispatch", "compiler", "runtime", "toolkit"), False),
])
def test_a_page_that_differs_from_the_contract_fails(layers, same):
    assert (page_layers(_PAGE) == contract_layers(_contracts(*layers))) is same


def test_a_room_missing_from_the_page_is_found(tmp_path):
    for room in ("a", "b", "d"):
        (tmp_path / room).mkdir()
        (tmp_path / room / "__init__.py").write_text("")
    (tmp_path / "not_a_package").mkdir()
    assert subpackages_on_disk(tmp_path) - rooms_named(_PAGE) == {"d"}
