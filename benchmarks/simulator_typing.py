"""The simulator against the compiled kernel's typing, on many random programs.

    python benchmarks/simulator_typing.py [--programs 200] [--exprs 40] [--argsets 6] [--seed 0]

The larger run of ``tests/simulator/test_compiled_typing.py``'s random-program test (see
``tests/simulator/typing_programs.py`` for what the programs contain and what the oracle is):
every program runs as a simulated device function and compiled by Numba's CPU target with the
CUDA error model (and ``NUMBA_OPT=0``: see ``main``); prints each difference (expression, arguments, both values and types) and a
summary line.  Exit status 1 when any differs.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: tests.simulator.typing_programs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--exprs", type=int, default=40)
    parser.add_argument("--argsets", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=20, help="differences printed at most")
    opts = parser.parse_args(argv)

    # LLVM without optimisation: Numba marks signed + - * "nsw", and the optimiser may then
    # compute an overflowing expression as if it did not overflow (undefined behaviour the
    # GPU compiler may exploit too); unoptimised code wraps, as the simulator does.
    os.environ.setdefault("NUMBA_OPT", "0")
    import numba

    from numba_cuda.simulator import api as cuda
    from tests.simulator import typing_programs as tp

    start = time.perf_counter()
    checked = ndiff = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(opts.programs):
            seed = opts.seed + n
            source, exprs = tp.program_source(seed, opts.exprs)
            path = Path(tmp) / f"sim_typing_{seed}.py"
            path.write_text(source)
            module = tp.load(path, f"sim_typing_{seed}")
            sim = cuda.jit(device=True)(module.f)
            compiled = numba.njit(error_model="numpy")(module.f)
            diffs = tp.compare(sim, compiled, tp.argument_sets(seed, opts.argsets), exprs)
            checked += opts.argsets * len(exprs)
            for d in diffs:
                if ndiff < opts.show:
                    print(f"seed {seed}: {d!r}")
                ndiff += 1
    print(f"{opts.programs} programs, {checked} evaluations, {ndiff} differences, "
          f"{time.perf_counter() - start:.1f} s")
    return 1 if ndiff else 0


if __name__ == "__main__":
    sys.exit(main())
