"""recipe/recipe.yaml passes conda-forge's linter, checked the way conda-smithy checks it.

conda-smithy (not installable from PyPI) lints a v1 recipe **without** the
variant values: it loads the YAML, renders the ``context`` section with
Jinja2 whose undefined names print themselves back (``${{ name }}``) but
raise on arithmetic, ``int()`` and the like, then renders the rest of the
document with that context.  A recipe that cannot be rendered that way
gets no lint at all on conda-forge.  ``_lint_render`` below re-states that
renderer; the tests after it re-state the rules of conda-smithy's linter
(lint_recipe.py, linter/lints.py, linter/hints.py) that apply to a
single-output ``noarch: python`` v1 recipe, as lints (must hold) and the
hints conda-forge reviewers ask to be fixed.
"""

import re

import jinja2
import pytest
import yaml
from jinja2.sandbox import SandboxedEnvironment

# conda-smithy's expected top-level order of a single-output v1 recipe.
SECTION_ORDER = ["schema_version", "context", "package", "source", "build", "requirements", "tests", "about", "extra"]
PYTHON_BUILD_BACKENDS = {"setuptools", "flit", "flit-core", "hatchling", "poetry", "poetry-core", "pdm-backend",
                         "meson-python", "scikit-build-core", "maturin"}
JINJA_EXPR = re.compile(r"\$\{\{(.*?)\}\}")


class _EchoUndefined(jinja2.DebugUndefined):
    """Undefined that prints back as ``${{ name }}`` and fails on any other use."""

    def __str__(self):
        return "$" + super().__str__()


def _jinja_env():
    env = SandboxedEnvironment(variable_start_string="${{", variable_end_string="}}",
                               trim_blocks=True, lstrip_blocks=True, undefined=_EchoUndefined)
    stub = lambda *a, **k: "stub"  # noqa: E731
    env.globals.update(compiler=stub, stdlib=stub, pin_subpackage=stub, pin_compatible=stub, cdt=stub,
                       match=lambda *a: False, is_unix=lambda *a: True, is_win=lambda *a: False,
                       is_linux=lambda *a: True, unix=True, linux=True,
                       target_platform="linux-64", build_platform="linux-64")
    return env


def _lint_render(text):
    """Render a v1 recipe as conda-smithy's linter does: no variant values."""
    recipe = yaml.safe_load(text)
    env = _jinja_env()
    context = dict(recipe.get("context") or {})
    for key, value in context.items():
        if isinstance(value, str):
            context[key] = env.from_string(value).render(context)
    body = yaml.safe_dump(recipe, sort_keys=False, width=10_000)
    return yaml.safe_load(env.from_string(body).render(context))


def _flatten(reqs):
    """Requirements with ``if/then/else`` entries flattened (conda-smithy's flatten_v1_if_else)."""
    out = []
    for req in reqs or []:
        if isinstance(req, dict):
            for branch in ("then", "else"):
                value = req.get(branch, [])
                out.extend(_flatten(value if isinstance(value, list) else [value]))
        else:
            out.append(req)
    return out


@pytest.fixture(scope="module")
def text(deps):
    return deps.RECIPE.read_text()


@pytest.fixture(scope="module")
def raw(text):
    return yaml.safe_load(text)


# ---- the renderer itself ---------------------------------------------------

def test_renderer_fails_on_arithmetic_with_an_undefined_variant_key():
    """The failure conda-forge's bot reported for the old recipe, reproduced by this renderer."""
    old = 'context:\n  next: ${{ (cuda_major_version | int) + 1 }}\npackage:\n  name: x\n'
    with pytest.raises(jinja2.UndefinedError, match="'cuda_major_version' is undefined"):
        _lint_render(old)


def test_renderer_keeps_interpolated_undefined_names():
    rendered = _lint_render('context:\n  v: "1.2.3"\npackage:\n  name: x\n  version: ${{ v }}\n'
                            'build:\n  string: cuda${{ cuda_major_version }}_${{ v }}\n')
    assert rendered["package"]["version"] == "1.2.3"
    assert rendered["build"]["string"] == "cuda${{ cuda_major_version }}_1.2.3"


def test_renderer_fails_on_arithmetic_with_a_rendered_context_value():
    """Context values that are templates render to strings, so adding to them fails too."""
    with pytest.raises(TypeError):
        _lint_render('context:\n  n: 0\n  off: ${{ 1 if k == "x" else 0 }}\npackage:\n  name: x\n'
                     'build:\n  number: ${{ n + off }}\n')


# ---- the recipe, without the variant config ---------------------------------

def test_recipe_renders_without_the_variant_config(text, deps):
    rendered = _lint_render(text)
    assert rendered["package"]["name"] == "numba-cuda"
    assert rendered["package"]["version"] == deps.package_version()


def test_variant_keys_are_only_interpolated_or_compared(text, deps):
    """A variant key appears only as ``${{ key }}`` or in ``A if key == "x" else B``.

    Those two render without the variant values; a filter (``key | int``) or
    arithmetic on the key does not.
    """
    keys = set(deps.load_yaml(deps.VARIANTS))
    literal = r'(?:"[^"]*"|\d+)'
    for expr in JINJA_EXPR.findall(text):
        used = {k for k in keys if re.search(rf"\b{k}\b", expr)}
        for key in used:
            choice = rf'{literal} if {key} == "[^"]*" else {literal}'
            assert (re.fullmatch(rf" {key} ", expr) or re.fullmatch(rf" {choice} ", expr)
                    or re.fullmatch(rf" number \+ \({choice}\) ", expr)), expr


# ---- conda-smithy lints -----------------------------------------------------

def test_top_level_sections_expected_and_in_order(raw):
    sections = list(raw)
    assert set(sections) <= set(SECTION_ORDER), set(sections) - set(SECTION_ORDER)
    assert sections == sorted(sections, key=SECTION_ORDER.index)
    assert raw["schema_version"] == 1


def test_about_has_homepage_license_summary_and_repository(text):
    about = _lint_render(text)["about"]
    for key in ("homepage", "license", "summary", "repository", "documentation"):
        assert about.get(key), key
    license = about["license"].lower()
    assert license.strip() != "unknown"
    assert "license" not in license


def test_maintainers_are_a_nonempty_list(raw):
    maintainers = raw["extra"]["recipe-maintainers"]
    assert isinstance(maintainers, list) and maintainers
    assert "feedstock-name" not in raw["extra"] or not raw["extra"]["feedstock-name"].endswith("-feedstock")


def test_recipe_has_tests(raw):
    assert raw["tests"]


def test_no_comment_selectors(text):
    bad = [n for n, line in enumerate(text.splitlines(), 1) if re.search(r"#\s*\[[^\]]+\]\s*$", line)]
    assert not bad, f"comment selectors (# [linux]) on lines {bad}"


def test_build_has_a_number(raw):
    assert raw["build"].get("number") is not None


def test_requirements_order(raw):
    order = ["build", "host", "run"]
    seen = [k for k in raw["requirements"] if k in order]
    assert seen == sorted(seen, key=order.index)


def test_url_sources_have_a_hash(raw):
    sources = raw["source"] if isinstance(raw["source"], list) else [raw["source"]]
    for source in sources:
        if "url" in source:
            assert {"sha256", "sha1", "md5"} & set(source), source


def test_exactly_one_trailing_newline(text):
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_noarch_value_and_no_selectors_in_requirements(raw):
    assert raw["build"]["noarch"] in ("python", "generic")
    for section, reqs in raw["requirements"].items():
        assert not any(isinstance(r, dict) for r in reqs or []), (
            f"requirements.{section} has an if: selector, which noarch recipes may not use")


def test_single_space_in_pinned_requirements(raw):
    for section, reqs in raw["requirements"].items():
        for req in _flatten(reqs):
            if "${{" in req:
                continue
            parts = req.split()
            assert not (len(parts) > 2 and parts[1] in ("!=", "=", "==", ">", "<", "<=", ">=")), req
            assert not re.search(r"[<>=]", parts[0]), req


def test_no_unquoted_floats(raw):
    def walk(key, value):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{key}.{k}", v)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(f"{key}[{i}]", v)
        else:
            assert not isinstance(value, float), f"{key} = {value!r} parses as a float: quote it"

    for key, value in raw.items():
        walk(key, value)


def test_jinja_expressions_have_one_space_inside(text):
    bad = [m for m in JINJA_EXPR.findall(text) if m != f" {m.strip()} "]
    assert not bad, bad


def test_python_min_in_host_run_and_tests(raw):
    """hint_noarch_python_use_python_min and the lower-bound lint, for v1 syntax."""
    host = _flatten(raw["requirements"]["host"])
    run = _flatten(raw["requirements"]["run"])
    assert any(re.fullmatch(r"python\s+\$\{\{ python_min \}\}\.\*", r) for r in host), host
    assert any(re.fullmatch(r"python\s+>=\$\{\{ python_min \}\}", r) for r in run), run
    test_reqs = []
    for test in raw["tests"]:
        test_reqs += (test.get("requirements") or {}).get("run") or []
        if "python" in test:
            pv = test["python"].get("python_version")
            test_reqs += [f"python {v}" for v in ([pv] if isinstance(pv, str) else pv or [])]
    assert any(re.fullmatch(r"python\s+\$\{\{ python_min \}\}\.\*", r) for r in test_reqs), test_reqs


def test_python_tests_cover_the_latest_python(raw):
    """hint_noarch_python_test_latest: every python test lists "*" besides python_min."""
    python_tests = [t["python"] for t in raw["tests"] if "python" in t]
    assert python_tests
    for test in python_tests:
        assert test["python_version"] == ["${{ python_min }}.*", "*"]


def test_host_names_a_python_build_backend(raw):
    host = {r.split()[0] for r in _flatten(raw["requirements"]["host"])}
    assert host & PYTHON_BUILD_BACKENDS
    assert "pip" in host and "pip install" in raw["build"]["script"]


def test_variant_file_is_not_empty(deps):
    assert deps.VARIANTS.read_text().strip()
