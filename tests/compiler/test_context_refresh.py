"""The CUDA contexts skip refresh() when no registry grew, without ever missing a registration:
including ones added *while* a refresh runs (Numba's overload templates add lowerings while
they are being installed)."""

from numba.core import imputils, types
from numba.core.target_extension import target_override
from numba.core.typing import signature

from numba_cuda.compiler.target import cuda_target
from numba_cuda.dispatch.registration import ensure_registered


def _first():
    pass


def _second():
    pass


def _impl(context, builder, sig, args):
    return context.get_dummy_value()


def test_refresh_is_skipped_when_nothing_changed(cuda):
    ensure_registered()
    ctx = cuda_target.target_context
    with target_override("cuda"):
        ctx.refresh()
        ctx.refresh()
        stamp = ctx._refreshed_stamp
        calls = []
        original = ctx.load_additional_registries
        ctx.load_additional_registries = lambda: calls.append(1) or original()
        try:
            ctx.refresh()
        finally:
            del ctx.load_additional_registries
    assert calls == [] and ctx._refreshed_stamp == stamp


def test_registration_added_during_a_refresh_is_installed_by_the_next_one(cuda):
    ensure_registered()
    ctx = cuda_target.target_context
    typing_ctx = ctx.typing_context
    sig = signature(types.none)
    with target_override("cuda"):
        ctx.refresh()
        # A new registration makes the next refresh run; while it runs (in the typing refresh,
        # after the builtin registry was installed), another lowering is registered.
        imputils.builtin_registry.lower(_first)(_impl)
        original = typing_ctx.refresh

        def refresh_and_register():
            typing_ctx.refresh = original
            imputils.builtin_registry.lower(_second)(_impl)
            original()

        typing_ctx.refresh = refresh_and_register
        try:
            ctx.refresh()
        finally:
            typing_ctx.refresh = original
        ctx.refresh()
        assert ctx._defns[_first].find(())
        assert ctx._defns[_second].find(())
        assert ctx.get_function(_second, sig) is not None
