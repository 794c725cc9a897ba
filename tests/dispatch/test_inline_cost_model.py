"""``cuda.jit(inline=cost_model)``: Numba's cost model, ``cost_model(expr, caller_ir, callee_ir)
-> bool``, decides at each call site whether a device function's IR is inlined into its caller
(as Numba's ``jit`` and NVIDIA's ``cuda.jit`` take it)."""

import pytest
from numba import cuda, types

SIG = (types.int32[::1],)


def _caller_ir(verdict, seen):
    def cost_model(expr, caller_ir, callee_ir):
        seen.append((expr.op, type(caller_ir).__name__, type(callee_ir).__name__))
        return verdict

    @cuda.jit(inline=cost_model)
    def set_zero(a):
        a[0] = 0

    @cuda.jit(SIG)
    def call_set_zero(a):
        set_zero(a)

    return call_set_zero.inspect_llvm(SIG)


def _calls_set_zero(ir):
    return any(" call " in line and "8set_zero" in line for line in ir.splitlines())


@pytest.mark.parametrize("verdict", [True, False])
def test_the_cost_model_decides_each_call_site(verdict):
    seen = []
    ir = _caller_ir(verdict, seen)
    assert seen == [("call", "FunctionIR", "FunctionIR")]
    assert _calls_set_zero(ir) is not verdict


def test_other_inline_values_are_refused_naming_the_forms():
    with pytest.raises(ValueError, match="cost-model function"):
        cuda.jit(inline="sometimes")(lambda: None)
    with pytest.raises(ValueError, match="cost-model function"):
        cuda.jit(inline=int)(lambda: None)  # a class is no cost model


def test_specialize_keeps_the_cost_model():
    calls = []

    def cost_model(expr, caller_ir, callee_ir):
        calls.append(1)
        return True

    k = cuda.jit(inline=cost_model)(lambda a: None)
    assert k.jit_options.inline is cost_model
    assert k._user_options()["inline"] is cost_model
