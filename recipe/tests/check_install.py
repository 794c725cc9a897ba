"""Check an installed numba-cuda: toolkit found, right CUDA major, PTX compiles.

Used by the conda recipe's tests (``--source conda``) and by
tests/packaging/test_build_dist.py on a fresh pip venv (``--source pip``).
Needs no GPU.  Exits non-zero with a message naming what is wrong.

    python check_install.py --source conda            # major from cuda-version in conda-meta
    python check_install.py --source pip --major 13
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

COMPONENTS = ("nvvm", "libdevice", "nvrtc", "cudart", "nvjitlink", "include", "ptxas")


def conda_cuda_major():
    """The major of the cuda-version package installed in this interpreter's prefix."""
    records = glob.glob(os.path.join(sys.prefix, "conda-meta", "cuda-version-*.json"))
    if len(records) != 1:
        sys.exit(f"expected one cuda-version record in {sys.prefix}/conda-meta, found {records}")
    with open(records[0]) as f:
        return int(json.load(f)["version"].split(".")[0])


def sysinfo():
    exe = shutil.which("numba-cuda", path=os.path.dirname(sys.executable)) or shutil.which("numba-cuda")
    cmd = [exe, "sysinfo", "--json"] if exe else [sys.executable, "-m", "numba_cuda", "sysinfo", "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    if "Traceback" in proc.stderr:
        sys.exit(f"{cmd} printed a traceback:\n{proc.stderr}")
    return json.loads(proc.stdout)


def check_sysinfo(info, major, source):
    problems = []
    if info.get("target") != "numba-cuda":
        problems.append(f"target is {info.get('target')!r}, expected 'numba-cuda'")
    if info.get("redirected") is not True:
        problems.append("numba.cuda does not resolve to numba-cuda")
    toolkit = info["toolkit"]
    if toolkit.get("cuda_major") != major:
        problems.append(f"toolkit CUDA major is {toolkit.get('cuda_major')}, expected {major}")
    for name in COMPONENTS:
        comp = toolkit["components"].get(name)
        if comp is None:
            problems.append(f"{name}: not reported")
        elif comp.get("path") is None or comp.get("error"):
            problems.append(f"{name}: not found ({comp.get('error')})")
        elif comp.get("source") != source:
            problems.append(f"{name}: found at {comp['path']} from source {comp.get('source')!r}, expected {source!r}")
    return problems


def compile_kernel():
    from numba import cuda

    def axpy(out, a, x, y):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    ptx, _ = cuda.compile_ptx(axpy, "void(float32[::1], float32, float32[::1], float32[::1])")
    if ".entry" not in ptx or ".target" not in ptx:
        sys.exit(f"compile_ptx returned something that is not a PTX kernel:\n{ptx[:500]}")
    return ptx


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="expected toolkit source (conda, pip ...)")
    parser.add_argument("--major", type=int, help="expected CUDA major (default: from cuda-version in conda-meta)")
    parser.add_argument("--skip-compile", action="store_true", help="only check sysinfo")
    args = parser.parse_args(argv)
    major = args.major if args.major is not None else conda_cuda_major()

    info = sysinfo()
    problems = check_sysinfo(info, major, args.source)
    if problems:
        sys.exit("numba-cuda sysinfo --json:\n  " + "\n  ".join(problems) + "\n" + json.dumps(info, indent=2))
    print(f"toolkit: CUDA {major}, every component found from {args.source!r}")
    if not args.skip_compile:
        ptx = compile_kernel()
        print(f"compile_ptx: {len(ptx.splitlines())} lines of PTX")


if __name__ == "__main__":
    main()
