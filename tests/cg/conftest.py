"""Fixtures for the cooperative-groups tests (shared with tests/ufuncs: tests/support/kernel_fixtures.py)."""

from tests.support.kernel_fixtures import assemble, available_ccs, ccs, code, ptx_for, run_script  # noqa: F401
