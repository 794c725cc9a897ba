"""Pickles naming a module path that moved still load: the class comes back through the compat
table's row for the old path (``numba_cuda.cudadrv.driver.Driver`` was pickled before
``cudadrv`` moved into ``numba_cuda.compat``).

The payloads are built by hand with the old module name (protocol 0 names a class's module as
text), on both targets: in the simulator the same old path is the simulator's module.
"""

import inspect
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

_PROBE = textwrap.dedent(
    """
    import importlib, inspect, json, pickle, pkgutil, sys
    from numba import cuda
    from numba_cuda.compat.table import GPU, ROWS, SIMULATOR
    column = SIMULATOR if sys.argv[1] == "simulator" else GPU
    out = {}
    pairs = []  # (old path, module of compat code it is), the modules below package rows too
    for path, row in ROWS.items():
        target = row[column]
        if target is None or not target.startswith("numba_cuda.compat."):
            continue
        pairs.append((path, target))
        module = importlib.import_module(target)
        for sub in pkgutil.iter_modules(getattr(module, "__path__", [])):
            if f"{path}.{sub.name}" not in ROWS:
                pairs.append((f"{path}.{sub.name}", f"{target}.{sub.name}"))
    for path, target in pairs:
        module = importlib.import_module(target)
        for name, cls in vars(module).items():
            if not (inspect.isclass(cls) and cls.__module__ == target and cls.__name__ == name
                    and not name.startswith("_")):
                continue
            payload = pickle.dumps(cls, protocol=0)
            old = payload.replace(target.encode() + b"\\n", path.encode() + b"\\n")
            assert old != payload and target.encode() not in old
            try:
                out[f"{path}.{name}"] = pickle.loads(old) is cls
            except Exception as exc:
                out[f"{path}.{name}"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out))
    """
)


def _probe(target):
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if target == "simulator":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    proc = subprocess.run([sys.executable, "-c", _PROBE, target], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import json

    return json.loads(proc.stdout.splitlines()[-1])


# (not "gpu": a test id of that name is taken for the gpu marker)
@pytest.mark.parametrize("target", ["real", "simulator"])
def test_classes_of_moved_modules_unpickle_from_their_old_paths(target):
    results = _probe(target)
    # the classes of the modules that moved: Numba's cudadrv driver and runtime on each target
    expected = {"real": {"numba_cuda.cudadrv.driver.Driver", "numba_cuda.cudadrv.nvvm.NVVM"},
                "simulator": {"numba_cuda.cudadrv.driver.Driver",
                              "numba_cuda.cudadrv.runtime.Runtime",
                              "numba_cuda.simulator.cudadrv.runtime.Runtime"}}[target]
    assert expected <= set(results), results
    assert {key: value for key, value in results.items() if value is not True} == {}


def test_an_instance_pickled_under_the_old_path_loads():
    from numba_cuda.compat.simulator.cudadrv.runtime import Runtime

    payload = pickle.dumps(Runtime(), protocol=0)
    old = payload.replace(b"numba_cuda.compat.simulator.cudadrv.runtime\n",
                          b"numba_cuda.simulator.cudadrv.runtime\n")
    assert b"numba_cuda.compat" not in old
    loaded = pickle.loads(old)
    assert type(loaded) is Runtime and loaded.get_version() == (-1, -1)
    assert inspect.getmodule(type(loaded)).__name__ == "numba_cuda.compat.simulator.cudadrv.runtime"
