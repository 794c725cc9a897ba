"""``JitOptions`` (numba_cuda.common.jit_options): the options of ``cuda.jit`` parsed and checked
once, by one function, for the GPU target and the simulator alike."""

import dataclasses

import pytest

import numba_cuda as real
from numba_cuda.common.jit_options import JitOptions
from numba_cuda.simulator import api as sim


def _kernel(a):
    a[0] = 1


def test_parsed_once_into_a_frozen_value():
    options = JitOptions.parse({"link": "x.cu", "forceinline": True, "launch_bounds": 128,
                                "debug": 1, "cache": True, "nopython": True})
    assert options.link == ("x.cu",) and options.inline == "always" and options.debug is True
    assert options.launch_bounds == (128,) and options.cache is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.debug = False
    assert JitOptions.parse(options.as_dict()) == options  # what pickles and clones carry
    assert set(options.compile_fields()) == {"debug", "lineinfo", "fastmath", "opt", "inline",
                                             "max_registers", "boundscheck", "lto",
                                             "launch_bounds"}


def test_the_dispatcher_keeps_the_parsed_value():
    kernel = real.jit(lineinfo=True, max_registers=32)(_kernel)
    assert isinstance(kernel.jit_options, JitOptions)
    assert kernel.jit_options.lineinfo and kernel.jit_options.max_registers == 32
    assert kernel.options.lineinfo and kernel.options.max_registers == 32  # the compiler's


@pytest.mark.parametrize("options, error, match", [
    ({"bogus": 1}, TypeError, "unknown @cuda.jit options: bogus; known: device, inline"),
    ({"debug": "no"}, ValueError, "debug must be True or False, not 'no'"),
    ({"cache": "yes"}, ValueError, "cache must be True or False, not 'yes'"),
    ({"max_registers": 0}, ValueError, "max_registers must be a positive int, got 0"),
    ({"inline": "sometimes"}, ValueError, "inline must be 'always', 'never', a bool or a cost-model"),
    ({"launch_bounds": 0}, Exception, "launch_bounds"),
])
def test_both_targets_refuse_a_bad_option_alike(options, error, match):
    messages = []
    for target in (real, sim):
        with pytest.raises(error, match=match) as info:
            target.jit(**options)(_kernel)
        messages.append((type(info.value), str(info.value)))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("jit", [real.jit, sim.jit], ids=["gpu", "simulator"])
def test_debug_combinations_warn_on_both_targets(jit):
    import warnings

    from numba.core.errors import NumbaInvalidConfigWarning

    with pytest.warns(NumbaInvalidConfigWarning, match="not supported by CUDA"):
        jit(debug=True, opt=True)
    with pytest.warns(NumbaInvalidConfigWarning, match="debug and lineinfo are mutually exclusive"):
        jit(debug=True, lineinfo=True, opt=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jit(debug=True)             # optimisation is off by default with debug=True
        jit(debug=True, opt=False)
        jit(lineinfo=True)
        jit()
