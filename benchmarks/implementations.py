"""Run one benchmark script's measurement in a child process, for this package or the reference.

Each implementation gets its own interpreter, so their imports, caches and memory stay apart.
The reference is NVIDIA's numba-cuda from a folder holding its package (``numba_cuda/`` and its
``_numba_cuda_redirector.py``), e.g. a copy taken before it was uninstalled; the child runs with
``python -S`` so this checkout's ``.pth`` files (redirector, editable install) stay out, and the
script's ``--child reference`` imports the reference's redirector itself.
"""

import json
import os
import site
import subprocess
import sys


def run_child(script, impl, reference=None, extra=(), timeout=300):
    """``python script --child impl [extra]``; the JSON after its ``RESULT`` line, or ``{"error"}``."""
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    cmd = [sys.executable]
    cwd = os.path.dirname(os.path.abspath(script))
    if impl == "reference":
        # (absolute: the child runs in /, where a folder relative to the caller's names nothing)
        env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(reference)] + site.getsitepackages())
        cmd.append("-S")
        cwd = "/"
    cmd += [os.path.abspath(script), "--child", impl, *extra]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or f"exit {proc.returncode}"}
    return json.loads(lines[-1][6:])
