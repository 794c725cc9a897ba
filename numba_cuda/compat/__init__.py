"""The compat yard: every import path kept for code written elsewhere, in one table.

Code written for Numba's built-in ``numba.cuda`` and for NVIDIA's numba-cuda imports modules by
paths this package does not lay out as they did (``numba.cuda.cudadrv.driver``,
``numba.cuda.core.config``, ``numba.cuda.stubs``, ``numba.cuda.dispatcher`` ...).  Each such
path is one row of :data:`.table.ROWS` (its module on the GPU target, and in the simulator), and
one meta-path finder (:mod:`.finder`) serves them all.  The modules of compat code -- names
arranged as an old module had them -- live in :mod:`.gpu` and :mod:`.simulator`.

Nothing else in the package imports this package (an import-linter contract in
pyproject.toml): ``numba_cuda/__init__.py`` calls :func:`install` once, and the rest of the
package reaches an old path, where it must, by its name (``numba_cuda.cudadrv``) through the
finder.  Importing this package is cheap: the table is data and nothing it names is imported
until its path is.
"""


def install(simulator):
    """Install the finder for the GPU target, or for the simulator when ``simulator`` is true."""
    from .finder import install as _install

    return _install(simulator)
