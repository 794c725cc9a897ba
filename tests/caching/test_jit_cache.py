"""``cuda.jit(cache=True)`` end to end: a second process loads the kernel instead of compiling it.

Each scenario runs in fresh interpreters (the way a user meets the cache) that count calls of the
compiler's front end (``compile_cuda``) and report the dispatcher's hit/miss counters as JSON.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

KERNEL_MODULE = '''
from numba import cuda, float32


@cuda.jit(device=True)
def twice(v):
    return v * 2


@cuda.jit("void(float32[::1], float32)", cache=True)
def scale(x, k):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = twice(x[i]) * k


@cuda.jit(cache=True, fastmath=True)
def lazy(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1
'''

# Imports the kernel module, compiles what it is asked to, prints a JSON report.
DRIVER = r'''
import json, os, sys, warnings
sys.path.insert(0, sys.argv[1])
import numba_cuda.dispatch.dispatcher as dispatcher_module
front_end_calls = []
_real = dispatcher_module.compile_cuda
def counting(pyfunc, *args, **kwargs):
    front_end_calls.append(pyfunc.__name__)
    return _real(pyfunc, *args, **kwargs)
dispatcher_module.compile_cuda = counting
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    exec(sys.argv[2])
    import kmod
    from numba import float32
    kmod.lazy.compile((float32[::1],))
    report = {"front_end": list(front_end_calls), "warnings": [str(w.message) for w in caught]}
for name in ("scale", "lazy"):
    k = getattr(kmod, name)
    (ovl,) = k.overloads.values()
    report[name] = {"hits": sum(k.stats.cache_hits.values()), "misses": sum(k.stats.cache_misses.values()),
                    "kind": type(ovl).__name__, "ptx": ovl.get_ptx()}
exec(sys.argv[3])
print("REPORT" + json.dumps(report))
'''


def run(module_dir, before="", after="", env_extra=None, check=True):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_ENABLE_CUDASIM")}
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(module_dir), textwrap.dedent(before), textwrap.dedent(after)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT")][-1]
        return json.loads(line[len("REPORT"):])
    return proc


@pytest.fixture
def module_dir(tmp_path):
    (tmp_path / "kmod.py").write_text(KERNEL_MODULE)
    return tmp_path


def _entries(module_dir):
    cache = module_dir / "__pycache__"
    return sorted(p.name for p in cache.iterdir() if p.suffix == ".nbcu") if cache.exists() else []


def test_second_process_loads_instead_of_compiling(module_dir):
    first = run(module_dir)
    assert sorted(first["front_end"]) == ["lazy", "scale", "twice"]
    assert first["scale"] == {**first["scale"], "hits": 0, "misses": 1, "kind": "LaunchableKernel"}
    assert len(_entries(module_dir)) == 2  # one per kernel signature; the device function has none

    second = run(module_dir)
    assert second["front_end"] == []  # nothing compiled: not the kernels, not the device function
    for name in ("scale", "lazy"):
        assert second[name]["hits"] == 1 and second[name]["misses"] == 0
        assert second[name]["kind"] == "CachedKernel"
        assert second[name]["ptx"] == first[name]["ptx"]
    assert not second["warnings"]


def test_source_edit_recompiles(module_dir):
    run(module_dir)
    (module_dir / "kmod.py").write_text(KERNEL_MODULE.replace("v * 2", "v * 3"))
    report = run(module_dir)
    assert sorted(report["front_end"]) == ["lazy", "scale", "twice"]
    assert "mul" in report["scale"]["ptx"]
    assert len(_entries(module_dir)) == 2  # the old source's entries were pruned


def test_options_and_link_files_are_part_of_the_key(make_module, tmp_path):
    from numba import cuda

    mod = make_module(source="def k(x):\n    x[0] = 1\n")
    helper = tmp_path / "helper.cu"
    helper.write_text('extern "C" __device__ int h(int* r) { *r = 1; return 0; }\n')

    def path(**options):
        return cuda.jit(cache=True, **options)(mod.k)._kernel_cache.store.path("(int32[::1],)", (9, 0))

    plain = path()
    assert path() == plain
    assert len({plain, path(fastmath=True), path(lineinfo=True), path(max_registers=32),
                path(opt=False), path(link=[str(helper)])}) == 6
    with_link = path(link=[str(helper)])
    helper.write_text('extern "C" __device__ int h(int* r) { *r = 2; return 0; }\n')
    assert path(link=[str(helper)]) != with_link  # editing a linked file invalidates


def test_without_cache_nothing_is_stored(make_module):
    from numba import cuda, int32

    mod = make_module(source="def k(x):\n    x[0] = 1\n")
    kernel = cuda.jit(mod.k)
    kernel.compile((int32[::1],))
    assert not kernel._kernel_cache.enabled
    assert not os.path.exists(os.path.join(os.path.dirname(mod.__file__), "__pycache__")) or not [
        n for n in os.listdir(os.path.join(os.path.dirname(mod.__file__), "__pycache__"))
        if n.endswith(".nbcu")]


def test_corrupt_entries_recompile_with_a_warning(module_dir):
    run(module_dir)
    for name in _entries(module_dir):
        path = module_dir / "__pycache__" / name
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])  # truncated
    report = run(module_dir)
    assert sorted(report["front_end"]) == ["lazy", "scale", "twice"]
    assert any("unusable" in w and "recompiling" in w for w in report["warnings"]), report["warnings"]
    # ...and the entries were rewritten whole: the next process loads them silently.
    again = run(module_dir)
    assert again["front_end"] == [] and not again["warnings"]


def test_garbage_entries_never_crash(module_dir):
    run(module_dir)
    for name in _entries(module_dir):
        (module_dir / "__pycache__" / name).write_bytes(os.urandom(333))
    report = run(module_dir)
    assert "scale" in report["front_end"]


def test_other_toolkit_is_ignored(module_dir):
    run(module_dir)
    report = run(module_dir, before="""
        import numba_cuda.dispatch.disk_cache as dc
        dc._toolkit_key = lambda: (("nvvm", "99.9", "/elsewhere/libnvvm.so"),)
    """)
    assert sorted(report["front_end"]) == ["lazy", "scale", "twice"]
    assert not report["warnings"]  # ignored silently: it is simply another key


def test_other_package_version_is_ignored(module_dir):
    run(module_dir)
    report = run(module_dir, before="import numba_cuda; numba_cuda.__version__ = '0.0.1.dev0'")
    assert sorted(report["front_end"]) == ["lazy", "scale", "twice"]


def test_cached_kernel_compiles_for_real_when_needed(module_dir):
    run(module_dir)
    report = run(module_dir, after="""
        k = kmod.scale
        (ovl,) = k.overloads.values()
        report["ptx_cc_other"] = ovl.get_ptx((8, 6))
        report["after_other_cc"] = list(front_end_calls)
        import io
        buf = io.StringIO(); k.inspect_types(file=buf)
        report["types"] = buf.getvalue()
    """)
    assert report["front_end"] == []
    assert ".target sm_86" in report["ptx_cc_other"]
    assert "scale" in report["after_other_cc"]
    assert "float32" in report["types"]


def test_cache_dir_from_environment(module_dir, tmp_path):
    central = tmp_path / "central-cache"
    run(module_dir, env_extra={"NUMBA_CACHE_DIR": str(central)})
    assert _entries(module_dir) == []
    assert len(list(central.rglob("*.nbcu"))) == 2
    report = run(module_dir, env_extra={"NUMBA_CACHE_DIR": str(central)})
    assert report["front_end"] == []


@pytest.mark.slow
def test_eight_processes_compiling_the_same_kernel(module_dir):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_ENABLE_CUDASIM")}
    procs = [
        subprocess.Popen([sys.executable, "-c", DRIVER, str(module_dir), "", ""],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(8)
    ]
    outputs = [p.communicate(timeout=900) for p in procs]
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err[-2000:]
        report = json.loads([ln for ln in out.splitlines() if ln.startswith("REPORT")][-1][6:])
        assert not [w for w in report["warnings"] if "unusable" in w], report["warnings"]
    assert len(_entries(module_dir)) == 2
    assert not [n for n in os.listdir(module_dir / "__pycache__") if n.startswith(".tmp-")]
    after = run(module_dir)
    assert after["front_end"] == [] and not after["warnings"]


def test_simulator_accepts_cache_and_writes_nothing(module_dir):
    code = f"""
        import sys
        sys.path.insert(0, {str(module_dir)!r})
        import numpy as np
        import kmod
        x = np.arange(4, dtype=np.float32)
        kmod.scale[1, 4](x, np.float32(3))
        kmod.lazy[1, 4](x)
        print(x.tolist())
    """
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "[1.0, 7.0, 13.0, 19.0]"
    assert _entries(module_dir) == []


@pytest.mark.gpu
def test_cached_kernel_runs_on_the_gpu(module_dir):
    run(module_dir)
    code = f"""
        import sys
        sys.path.insert(0, {str(module_dir)!r})
        import numpy as np
        import kmod
        x = np.arange(4, dtype=np.float32)
        kmod.scale[1, 4](x, np.float32(3))
        (ovl,) = kmod.scale.overloads.values()
        print(type(ovl).__name__, x.tolist())
    """
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "CachedKernel [0.0, 6.0, 12.0, 18.0]"


FACTORY_MODULE = '''
from numba import cuda

SCALE = 3.0


def make(c):
    @cuda.jit("void(float32[::1])", cache=True)
    def k(a):
        a[0] = c * SCALE
    return k
'''


def _f32_bits(value):
    import struct

    return str(struct.unpack("<I", struct.pack("<f", value))[0])


def test_closure_and_global_values_select_their_own_entries(make_module):
    # Two kernels made by one factory share file, qualname and line, not their constants.
    mod = make_module(source=FACTORY_MODULE)
    one = mod.make(1.0)
    ptx_one = one.inspect_asm(one.signatures[0])
    two = mod.make(2.0)
    (ovl,) = two.overloads.values()
    assert type(ovl).__name__ != "CachedKernel"  # compiled, not make(1.0)'s entry
    assert _f32_bits(6.0) in two.inspect_asm(two.signatures[0])  # 2.0 * 3.0 stored
    assert _f32_bits(3.0) in ptx_one and _f32_bits(6.0) not in ptx_one
    again = mod.make(1.0)
    (ovl,) = again.overloads.values()
    assert type(ovl).__name__ == "CachedKernel"
    mod.SCALE = 5.0  # a global Numba freezes as a constant
    (ovl,) = mod.make(1.0).overloads.values()
    assert type(ovl).__name__ != "CachedKernel"


def test_numba_cache_dir_that_is_a_file_does_not_break_the_import(module_dir, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    report = run(module_dir, env_extra={"NUMBA_CACHE_DIR": str(blocker)})
    unwritable = [w for w in report["warnings"] if "not writable" in w]
    assert len(unwritable) == 1 and str(blocker) in unwritable[0], report["warnings"]
    assert len(_entries(module_dir)) == 2  # written to the next location, __pycache__
    again = run(module_dir, env_extra={"NUMBA_CACHE_DIR": str(blocker)})
    assert again["front_end"] == [] and not again["warnings"]


def test_cache_machinery_is_imported_only_for_cache_true(tmp_path):
    """Dispatchers without ``cache=True`` (and ``compile_ptx``) never import the on-disk cache
    (``dispatch.disk_cache``, ``numba_cuda.caching``): it is not part of the first compile."""
    code = textwrap.dedent("""
        import json, sys
        from numba import cuda, float32, void

        def add(a):
            a[0] += 1

        cuda.jit(void(float32[::1]))(add)
        cuda.compile_ptx(add, void(float32[::1]), cc=(8, 0))
        before = [m for m in ("numba_cuda.dispatch.disk_cache", "numba_cuda.caching")
                  if m in sys.modules]
        cuda.jit(cache=True)(add)
        after = [m for m in ("numba_cuda.dispatch.disk_cache", "numba_cuda.caching")
                 if m in sys.modules]
        print(json.dumps([before, after]))
    """)
    script = tmp_path / "uses_cache.py"  # cache=True needs the source in a file
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    before, after = json.loads(proc.stdout.strip().splitlines()[-1])
    assert before == []
    assert after == ["numba_cuda.dispatch.disk_cache", "numba_cuda.caching"]
