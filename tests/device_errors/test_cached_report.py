"""A debug kernel loaded from the on-disk cache (cache=True) by a second process keeps its
error record and exception table."""

import json
import os
import subprocess
import sys
import textwrap

MODULE = '''
from numba import cuda


@cuda.jit(debug=True, opt=False, cache=True)
def checked(a, i):
    assert i < 4, "i is too large"
    a[i] = 1
'''

SCRIPT = '''
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("cached_debug_module", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
from numba import float64, int64
compiled = module.checked.compile((float64[::1], int64))
image = compiled.image()
table = image.exceptions
print(json.dumps({
    "kind": type(compiled).__name__,
    "error_global": image.error_global,
    "in_ptx": image.error_global in image.ptx,
    "messages": sorted(f"{type(e).__name__}: {e}" for e in
                       (table.exception_for((i, 1, 0, 0, 2, 0, 0)) for i in table.entries)),
}))
'''


def _run(path, env):
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT), str(path)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_second_process_loads_the_record_and_table(tmp_path):
    path = tmp_path / "cached_debug_module.py"
    path.write_text(MODULE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    first = _run(path, env)
    second = _run(path, env)
    assert first["kind"] == "LaunchableKernel" and second["kind"] == "CachedKernel"
    assert second["error_global"] == first["error_global"] and second["in_ptx"]
    assert second["messages"] == first["messages"]
    assert any(m.startswith("AssertionError: i is too large in kernel 'checked' at thread "
                            "(1, 0, 0) of block (2, 0, 0)") for m in second["messages"])
    assert any(m.startswith("IndexError: index is out of bounds") for m in second["messages"])
