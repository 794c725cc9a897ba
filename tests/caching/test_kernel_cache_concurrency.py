"""Eight processes writing and reading the same cache entry at once never see a torn entry."""

import os
import subprocess
import sys
import textwrap
import time

import pytest

WORKER = r'''
import hashlib, importlib.util, os, sys, time, warnings

warnings.simplefilter("error")          # any CacheWarning (a corrupt read) fails the worker

spec = importlib.util.spec_from_file_location("hammered", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
from numba_cuda.caching import KernelCache

worker, rounds, go = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
cache = KernelCache(mod.kernel, options_key=(("opt", True),), toolkit_key=("nvvm", (2, 0)))
while time.time() < go:                  # start together
    time.sleep(0.001)

hits = misses = 0
for i in range(rounds):
    # Payloads differ per writer and per round, and are large enough (~200 KB) that a
    # non-atomic write would be observed half-done.
    blob = hashlib.sha256(f"{worker}-{i}".encode()).digest() * (200_000 // 32)
    payload = {"writer": worker, "round": i, "blob": blob,
               "digest": hashlib.sha256(blob).hexdigest()}
    cache.save("(float32[::1],)", (9, 0), payload)
    got = cache.load("(float32[::1],)", (9, 0))
    if got is None:
        misses += 1
        continue
    hits += 1
    expected = hashlib.sha256(f"{got['writer']}-{got['round']}".encode()).digest() * (200_000 // 32)
    if got["blob"] != expected or hashlib.sha256(got["blob"]).hexdigest() != got["digest"]:
        print(f"MIXED ENTRY writer={got['writer']} round={got['round']}", flush=True)
        sys.exit(3)
print(f"ok hits={hits} misses={misses}")
'''


@pytest.mark.slow
def test_eight_processes_hammering_one_key(tmp_path):
    src = tmp_path / "hammered.py"
    src.write_text("def kernel(x):\n    x[0] = 1\n")
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    go = time.time() + 3.0  # time for every interpreter to start
    procs = [
        subprocess.Popen(
            [sys.executable, str(worker), str(src), str(n), "60", repr(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        for n in range(8)
    ]
    outputs = [p.communicate(timeout=240)[0] for p in procs]
    for p, out in zip(procs, outputs):
        assert p.returncode == 0, out
        assert out.strip().startswith("ok"), out
    # Every read found an entry (there is always a complete one after the first write).
    for out in outputs:
        assert "misses=0" in out, out
    # The store holds exactly one, complete, entry and no leftover temporary files.
    pycache = tmp_path / "__pycache__"
    names = sorted(p.name for p in pycache.iterdir())
    assert len([n for n in names if n.endswith(".nbcu") and not n.startswith(".tmp-")]) == 1, names
    assert not [n for n in names if n.startswith(".tmp-")], names
