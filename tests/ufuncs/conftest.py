"""Fixtures for the ufunc tests (shared with tests/cg: tests/support/kernel_fixtures.py)."""

import pytest

from tests.support.kernel_fixtures import assemble, available_ccs, ccs, code, ptx_for, run_script  # noqa: F401


@pytest.fixture
def kernel_ptx(ccs):
    """``kernel_ptx(dispatcher, argtypes)``: compile a (generated) kernel dispatcher for
    ``argtypes``, assemble its PTX for every target cc with ptxas; returns ``{cc: ptx}``."""

    def compile_all(dispatcher, argtypes):
        argtypes = tuple(argtypes)
        dispatcher.compile(argtypes)
        out = {}
        for cc in ccs:
            ptx = dispatcher.inspect_asm(argtypes, cc=cc)
            assemble(ptx, cc)
            out[cc] = ptx
        return out

    return compile_all
