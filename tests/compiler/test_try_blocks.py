"""``try``/``except`` in kernels and device functions: one clear ``UnsupportedError`` naming the
``try`` line, not Numba's internal ``AttributeError: 'CUDACallConv' object has no attribute
'set_try_status'``."""

import pytest
from numba import cuda, int32
from numba.core.errors import UnsupportedError

THIS_FILE = "test_try_blocks.py"


def _except_exception(out):
    out[0] = 0
    try:  # TRY-LINE
        out[0] = 1
    except Exception:
        out[0] = 2


def _bare_except(out):
    try:  # TRY-LINE
        out[0] = 1
    except:  # noqa: E722
        out[0] = 2


def _except_value_error(out):
    try:  # TRY-LINE
        out[0] = 1
    except ValueError:
        out[0] = 2


def _try_finally(out):
    try:  # TRY-LINE
        out[0] = 1
    finally:
        out[0] = 2


def _try_except_else(out):
    try:  # TRY-LINE

        # a comment and a blank line before the first statement
        out[0] = 1
    except Exception:
        out[0] = 2
    else:
        out[0] = 3


def _second_block_only(out):
    if out[0] > 1:
        out[0] = 4
    for i in range(3):
        try:  # TRY-LINE
            out[i] = 1
        except Exception:
            pass


def _line_of(fn, marker="TRY-LINE"):
    import inspect

    lines, first = inspect.getsourcelines(fn)
    return next(first + i for i, text in enumerate(lines) if marker in text)


@pytest.mark.parametrize("fn", [_except_exception, _bare_except, _except_value_error, _try_finally,
                                _try_except_else, _second_block_only],
                         ids=lambda f: f.__name__.strip("_"))
def test_try_is_refused_at_its_line(fn):
    with pytest.raises(UnsupportedError, match="try/except is not supported in CUDA kernels") as info:
        cuda.compile_ptx(fn, (int32[:],), cc=(7, 5))
    message = str(info.value)
    assert "set_try_status" not in message and "CUDACallConv" not in message
    assert THIS_FILE in message
    assert f"line {_line_of(fn)}:" in message
    assert "if statement" in message  # the way out


@cuda.jit(device=True)
def _device_with_try(x):
    try:  # TRY-LINE
        return x + 1
    except Exception:
        return 0


def _calls_device(out):
    out[0] = _device_with_try(out[0])


def test_try_in_a_device_function_names_the_device_functions_line():
    with pytest.raises(UnsupportedError, match="try/except is not supported") as info:
        cuda.compile_ptx(_calls_device, (int32[:],), cc=(7, 5))
    assert f"line {_line_of(_device_with_try.py_func)}:" in str(info.value)


def test_try_is_refused_in_device_compiles_too():
    def f(x):
        try:
            return x
        except Exception:
            return x + 1

    with pytest.raises(UnsupportedError, match="try/except is not supported"):
        cuda.compile_ptx(f, (int32,), device=True, cc=(7, 5))
