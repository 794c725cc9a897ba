"""Fixtures for the cooperative-groups tests (shared with tests/ufuncs: tests/kernel_fixtures.py)."""

from tests.kernel_fixtures import assemble, available_ccs, ccs, code, ptx_for, run_script  # noqa: F401
