"""numba.cuda.launchconfig (NVIDIA's numba-cuda has it): the launch configuration is current while
a launch compiles the kernel, capture_compile_config records it, pre-launch callbacks run before
each launch, and a kernel marked launch-config sensitive is compiled per launch configuration
(on the fake driver)."""

import pickle

import numpy as np
import pytest
from numba.core import types
from numba.core.extending import intrinsic

from tests.support.fake_driver import installed_for_launches


@pytest.fixture
def fake(monkeypatch):
    yield from installed_for_launches(monkeypatch)


def test_the_launch_configuration_is_current_while_a_launch_compiles(fake):
    from numba import cuda
    from numba.cuda import launchconfig

    @cuda.jit
    def f(x):
        x[0] = 1

    seen = {}
    original = f._compile_for_args

    def wrapped(*args, **kws):  # what NVIDIA's suite and cuda.cccl do
        seen["config"] = launchconfig.current_launch_config()
        return original(*args, **kws)

    f._compile_for_args = wrapped
    arr = cuda.to_device(np.zeros(1, np.int32))
    assert launchconfig.current_launch_config() is None
    f[2, 3](arr)
    cfg = seen["config"]
    assert cfg.dispatcher is f and cfg.griddim == (2, 1, 1) and cfg.blockdim == (3, 1, 1)
    assert cfg.args[0] is arr
    assert launchconfig.current_launch_config() is None
    with pytest.raises(RuntimeError, match="No launch config set for this thread"):
        launchconfig.ensure_current_launch_config()
    seen.clear()
    f[2, 3](arr)  # compiled already: no compile, nothing seen
    assert seen == {}


def test_capture_compile_config(fake):
    from numba import cuda
    from numba.cuda import launchconfig

    @cuda.jit
    def f(x):
        x[0] = 1

    arr = cuda.to_device(np.zeros(1, np.int32))
    with launchconfig.capture_compile_config(f) as capture:
        f[1, 32](arr)
    assert capture["config"].dispatcher is f and capture["config"].blockdim == (32, 1, 1)
    assert "_compile_config_captures" not in f.__dict__ or f.__dict__["_compile_config_captures"] == []
    with launchconfig.capture_compile_config(f) as again:
        f[1, 32](arr)
    assert again["config"] is None  # already compiled
    with pytest.raises(TypeError, match="dispatcher is required"):
        with launchconfig.capture_compile_config(None):
            pass


def test_pre_launch_callbacks_run_before_each_launch(fake):
    from numba import cuda

    @cuda.jit
    def f(x):
        x[0] = 1

    arr = cuda.to_device(np.zeros(1, np.int32))
    f[1, 1](arr)  # compiled and planned: the callbacks must still run
    calls = []
    config = f[1, 4]
    config.pre_launch_callbacks.append(lambda kernel, cfg: calls.append((kernel, cfg, len(fake.launches))))
    before = len(fake.launches)
    config(arr)
    config(arr)
    assert [c[2] for c in calls] == [before, before + 1]  # each ran before its launch
    assert calls[0][1] is config and calls[0][0] is next(iter(f.overloads.values()))
    with pytest.raises(pickle.PicklingError, match="pre-launch callbacks"):
        pickle.dumps(config)


def _block_size_intrinsic():
    """An intrinsic that bakes the launch's block size into the code (as cuda.cccl's block-wide
    algorithms do) and marks the compile launch-config sensitive."""
    from numba.cuda import launchconfig

    @intrinsic(target="cuda")
    def launch_block_size(typingctx):
        def codegen(context, builder, sig, args):
            # lowering runs for every compile (Numba keeps an intrinsic's typing per signature)
            cfg = launchconfig.ensure_current_launch_config()
            cfg.dispatcher.mark_launch_config_sensitive()
            return context.get_constant(types.int64, cfg.blockdim[0])

        return types.int64(), codegen

    return launch_block_size


def test_launch_config_sensitive_kernels_compile_per_configuration(fake):
    from numba import cuda

    launch_block_size = _block_size_intrinsic()

    @cuda.jit
    def f(x):
        x[0] = launch_block_size()

    arr = cuda.to_device(np.zeros(1, np.int64))
    f[1, 32](arr)
    (kernel,) = f.overloads.values()
    assert kernel.launch_config_sensitive
    f[1, 64](arr)
    f[1, 32](arr)
    kernels = {key[1][1][0]: k for key, k in f._launch_config_kernels.items()}
    assert sorted(kernels) == [32, 64]  # two compiles; the first configuration's kernel reused
    assert kernels[32] is kernel and kernels[64] is not kernel
    for size, k in kernels.items():  # each has its own block size baked in
        ptx = k.image((7, 5)).ptx if hasattr(k.image((7, 5)), "ptx") else str(k.image((7, 5)))
        assert f"{size};" in ptx, size
    launched = [id(launch["module"]) for launch in fake.launches[-3:]]
    assert launched[0] == launched[2] != launched[1]


def test_mark_outside_a_launch_is_refused(fake):
    from numba import cuda

    @cuda.jit
    def f(x):
        x[0] = 1

    @cuda.jit
    def g(x):
        x[0] = 2

    with pytest.raises(RuntimeError, match="No launch config"):
        f.mark_launch_config_sensitive()
    original = f._compile_for_args

    def wrapped(*args, **kws):
        g.mark_launch_config_sensitive()
        return original(*args, **kws)

    f._compile_for_args = wrapped
    with pytest.raises(RuntimeError, match="active launch configuration's dispatcher"):
        f[1, 1](cuda.to_device(np.zeros(1, np.int32)))


def test_eager_compiles_have_no_launch_configuration():
    from numba import cuda
    from numba.cuda import launchconfig

    seen = []

    @intrinsic(target="cuda")
    def probe(typingctx):
        seen.append(launchconfig.current_launch_config())
        return types.int64(), lambda context, builder, sig, args: context.get_constant(types.int64, 0)

    def k(x):
        x[0] = probe()

    cuda.compile_ptx(k, (types.int64[:],), cc=(7, 5))
    assert seen == [None]
