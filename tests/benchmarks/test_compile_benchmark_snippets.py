"""The compile benchmark's measuring snippets, run against this package (the reference venv and
the timings themselves are for ``python benchmarks/compile.py`` only)."""

import json
import pathlib
import sys

from tests.support.script_modules import load_script

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_benchmark():
    return load_script("benchmarks/compile.py", "compile_benchmark")


def test_corpus_snippet_compiles_every_entry(tmp_path):
    bench = load_benchmark()
    result = json.loads(bench.run(sys.executable, bench.CORPUS_SNIPPET, ROOT, tmp_path))
    entries = result["entries"]
    assert len(entries) >= 40
    failures = {name: e["error"] for name, e in entries.items() if "error" in e}
    assert not failures
    assert all(pathlib.Path(e["ptx"]).read_text().startswith("//") for e in entries.values())
    assert result["total"] > 0


def test_breakdown_snippet_sees_our_passes_and_nvvm():
    bench = load_benchmark()
    names = "corpus_compiler::add_one,corpus_compiler::grid_stride_loop"
    phases = json.loads(bench.run(sys.executable, bench.BREAKDOWN_SNIPPET, ROOT, names))
    assert phases["front_end"] > 0
    assert phases["lowering"] > 0
    assert phases["nvvm"] > 0
    assert phases["front_end"] + phases["lowering"] + phases["nvvm"] <= phases["total"]


def test_nvvm_floor_snippet_loads_libnvvm():
    bench = load_benchmark()
    seconds = float(bench.run(sys.executable, bench.NVVM_FLOOR_SNIPPET))
    assert 0 < seconds < 5.0


def test_own_importtime_counts_only_this_package():
    bench = load_benchmark()
    seconds = bench.own_importtime(sys.executable)
    assert 0 < seconds < 1.0


def test_first_breakdown_groups_modules_in_import_order():
    bench = load_benchmark()
    labels = [label for label, _ in bench.IMPORT_GROUPS]
    assert labels[-1] == "the package's own"
    groups = bench.grouped(["subprocess", "numba.core.typing.arraydecl", "numba_cuda.compiler.api",
                            "cuda.pathfinder", "llvmlite.binding", "_numba_cuda_redirector",
                            "numba_cuda.lang.fp16", "numba.cuda.cudadrv.nvvm"])
    assert dict(zip(labels, groups)) == {
        "the standard library and others": ["subprocess"],
        "Numba's and llvmlite's": ["numba.core.typing.arraydecl", "llvmlite.binding"],
        "cuda-bindings' and cuda-pathfinder's": ["cuda.pathfinder"],
        "the package's own": ["numba_cuda.compiler.api", "_numba_cuda_redirector",
                              "numba_cuda.lang.fp16", "numba.cuda.cudadrv.nvvm"]}


def test_first_breakdown_of_this_package(capsys):
    bench = load_benchmark()
    got = bench.first_breakdown({"ours": sys.executable}, 1)["ours"]
    own_count, own_seconds = got["imports"]["the package's own"]
    # the first compile imports the compiler's layers (the test process has imported them
    # already, but the snippet runs in a fresh one)
    assert own_count >= 20 and own_seconds > 0
    assert got["failed"] == 0
    assert 0 < got["second"] and 0 < got["first"]
    bench.print_first_breakdown({"ours": got, "reference": got}, {"ours": 0.1, "reference": 0.2})
    out = capsys.readouterr().out
    assert "imports: the package's own" in out and "the next kernel of the same shape" in out


def test_launch_benchmark_runs_on_the_fake_driver(tmp_path):
    import subprocess

    out = tmp_path / "launch.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "launch.py"), "--no-gpu",
                           "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text())
    assert set(result["times_us"]) == {"0", "1", "4", "16"}
    assert result["empty_us"] > 0


def test_warm_cache_process_runs_neither_front_end_nor_libnvvm(tmp_path):
    bench = load_script("benchmarks/cache.py", "cache_benchmark")
    cold = bench.run_once(sys.executable, tmp_path)
    warm = bench.run_once(sys.executable, tmp_path)
    assert cold["ready"] >= 40
    assert cold["front_end"] >= cold["ready"] and cold["nvvm"] >= cold["ready"]
    assert warm["ready"] == cold["ready"]
    assert warm["front_end"] == 0 and warm["nvvm"] == 0
