"""Render recipe/recipe.yaml offline with py-rattler-build (no channel needed).

Prints, for each variant and each platform asked for, the build string and
the run requirements and constraints -- what conda-forge would build from
the recipe.  Used by ``scripts/render-recipe`` and by the packaging tests
(``tests/packaging/test_recipe_render.py``), which import :func:`render`.

    python scripts/render_recipe.py                      # linux-64
    python scripts/render_recipe.py --platform win-64 --platform linux-aarch64
    python scripts/render_recipe.py --json
    python scripts/render_recipe.py --staged-recipes dist/numba_cuda-0.1.0.tar.gz OUTDIR \
        --maintainer HANDLE --repository https://...

``--staged-recipes`` writes OUTDIR/recipe.yaml: the recipe with its
``source`` switched from the checkout to the PyPI sdist (url + sha256), which
is the form conda-forge's staged-recipes repository takes.

Needs ``py-rattler-build`` (in numba-cuda's ``test`` extra).
"""

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECIPE = ROOT / "recipe" / "recipe.yaml"
VARIANTS = ROOT / "conda_build_config.yaml"
PLATFORMS = ("linux-64", "linux-aarch64", "win-64")
# The oldest py-rattler-build with the Python API used below (pyproject.toml's test extra).
RATTLER_BUILD_MIN = "0.58"
RATTLER_BUILD_API = ("JinjaConfig", "PlatformConfig", "RenderConfig", "Stage0Recipe", "VariantConfig")
# Placeholders in recipe/recipe.yaml that must be replaced before submission.
MAINTAINER_PLACEHOLDER = "REPLACE-ME-maintainer-handle"
REPOSITORY_PLACEHOLDER = "https://replace-me.invalid/numba-cuda"


def _rattler_build():
    """The ``rattler_build`` module; exits naming the problem: not installed, or too old."""
    try:
        import rattler_build
    except ImportError as exc:
        raise SystemExit(
            f"py-rattler-build is not installed ({exc}); install it with "
            f"'pip install \"py-rattler-build>={RATTLER_BUILD_MIN}\"' or 'pip install -e \".[test]\"'"
        ) from exc
    missing = [name for name in RATTLER_BUILD_API if not hasattr(rattler_build, name)]
    if missing:
        try:
            from importlib.metadata import version

            installed = version("py-rattler-build")
        except Exception:  # pragma: no cover - metadata missing
            installed = "unknown"
        raise SystemExit(
            f"py-rattler-build {installed} is installed but too old: it lacks {', '.join(missing)}; "
            f"this script needs py-rattler-build>={RATTLER_BUILD_MIN} "
            f"('pip install -U \"py-rattler-build>={RATTLER_BUILD_MIN}\"')"
        )
    return rattler_build


def render(platform="linux-64", recipe=RECIPE, variants=VARIANTS):
    """Render ``recipe`` against ``variants`` for ``platform``.

    Returns one plain dict per variant: ``variant``, ``name``, ``version``,
    ``build_string``, ``noarch``, ``host``, ``run``, ``run_constraints`` and
    ``recipe`` (the whole rendered stage-1 recipe as a dict).
    """
    rb = _rattler_build()
    JinjaConfig, PlatformConfig, RenderConfig = rb.JinjaConfig, rb.PlatformConfig, rb.RenderConfig
    Stage0Recipe, VariantConfig = rb.Stage0Recipe, rb.VariantConfig
    platform_config = PlatformConfig(target_platform=platform)
    variant_config = VariantConfig.from_conda_build_config(str(variants), JinjaConfig(platform=platform_config))
    rendered = Stage0Recipe.from_file(str(recipe)).render(variant_config, RenderConfig(platform=platform_config))
    results = []
    for variant in rendered:
        stage1 = variant.recipe.to_dict()
        requirements = stage1.get("requirements", {})
        results.append(
            {
                "variant": dict(variant.variant),
                "name": stage1["package"]["name"],
                "version": stage1["package"]["version"],
                "build_string": stage1["build"]["string"],
                "noarch": stage1["build"].get("noarch"),
                "host": list(requirements.get("host", [])),
                "run": list(requirements.get("run", [])),
                "run_constraints": list(requirements.get("run_constraints", [])),
                "recipe": stage1,
            }
        )
    return results


def staged_recipe_text(sdist, recipe=RECIPE, maintainers=(), repository=None):
    """The recipe with ``source: path: ..`` replaced by the sdist's url and sha256.

    ``maintainers`` (GitHub handles) replace the maintainer placeholder and
    ``repository`` the repository placeholder; both are required, so that no
    placeholder reaches staged-recipes.
    """
    if not maintainers:
        raise SystemExit(f"the recipe lists the placeholder {MAINTAINER_PLACEHOLDER!r} as maintainer: "
                         "pass --maintainer HANDLE (repeatable) with the conda-forge maintainers' GitHub handles")
    if not repository or "replace-me" in repository.lower() or not re.fullmatch(r"https://[^\s/]+/\S+", repository):
        raise SystemExit(f"the recipe's about.repository is the placeholder {REPOSITORY_PLACEHOLDER!r}: "
                         "pass --repository https://... with the public repository URL")
    for handle in maintainers:
        if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:/[A-Za-z0-9-]+)?", handle) \
                or "REPLACE-ME" in handle:
            raise SystemExit(f"{handle!r} is not a GitHub handle")
    sdist = Path(sdist)
    match = re.fullmatch(r"numba_cuda-(.+)\.tar\.gz", sdist.name)
    if not match:
        raise SystemExit(f"{sdist} is not a numba-cuda sdist (numba_cuda-VERSION.tar.gz)")
    text = Path(recipe).read_text()
    version = re.search(r'^  version: "([^"]+)"$', text, re.M).group(1)
    if match.group(1) != version:
        raise SystemExit(f"{sdist.name} is version {match.group(1)} but the recipe says {version}")
    sha256 = hashlib.sha256(sdist.read_bytes()).hexdigest()
    source = re.compile(r"^source:\n(?:  .*\n|\s*\n)*?  path: \.\.\n", re.M)
    new_source = (
        "source:\n"
        "  url: https://pypi.org/packages/source/n/numba-cuda/numba_cuda-${{ version }}.tar.gz\n"
        f"  sha256: {sha256}\n"
    )
    text, count = source.subn(new_source, text)
    if count != 1:
        raise SystemExit(f"could not find the 'source: path: ..' block in {recipe}")
    placeholder = f"    - {MAINTAINER_PLACEHOLDER}\n"
    if text.count(placeholder) != 1 or text.count(REPOSITORY_PLACEHOLDER) != 1:
        raise SystemExit(f"could not find the maintainer and repository placeholders in {recipe}")
    text = text.replace(placeholder, "".join(f"    - {h}\n" for h in maintainers))
    return text.replace(REPOSITORY_PLACEHOLDER, repository)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", action="append", choices=PLATFORMS, help="target platform (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the rendered variants as JSON")
    parser.add_argument("--staged-recipes", nargs=2, metavar=("SDIST", "OUTDIR"),
                        help="write OUTDIR/recipe.yaml with the sdist as source (needs --maintainer and --repository)")
    parser.add_argument("--maintainer", action="append", default=[],
                        help="with --staged-recipes: a maintainer's GitHub handle (repeatable)")
    parser.add_argument("--repository", help="with --staged-recipes: the public repository URL (about.repository)")
    args = parser.parse_args(argv)

    if args.staged_recipes:
        sdist, outdir = args.staged_recipes
        os.makedirs(outdir, exist_ok=True)
        out = Path(outdir) / "recipe.yaml"
        out.write_text(staged_recipe_text(sdist, maintainers=args.maintainer, repository=args.repository))
        (Path(outdir) / "conda_build_config.yaml").write_text(VARIANTS.read_text())
        (Path(outdir) / "tests").mkdir(exist_ok=True)
        (Path(outdir) / "tests" / "check_install.py").write_text((RECIPE.parent / "tests" / "check_install.py").read_text())
        print(f"wrote {out} (+ conda_build_config.yaml, tests/check_install.py)")
        return 0

    report = {}
    for platform in args.platform or ["linux-64"]:
        report[platform] = render(platform)
    if args.json:
        for variants in report.values():
            for v in variants:
                v.pop("recipe")
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    for platform, variants in report.items():
        print(f"== {platform}: {len(variants)} variant(s)")
        for v in variants:
            print(f"  {v['name']} {v['version']} {v['build_string']}  (noarch: {v['noarch']}, variant {v['variant']})")
            for req in v["run"]:
                print(f"    run             {req}")
            for req in v["run_constraints"]:
                print(f"    run_constraints {req}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
