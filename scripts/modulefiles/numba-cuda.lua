-- Lmod modulefile template for numba-cuda installed in a conda environment.
--
-- A site creates the environment once (conda/mamba/micromamba, from
-- conda-forge), then installs this file with @NUMBA_CUDA_PREFIX@ replaced by
-- that environment's prefix, e.g.
--
--   sed 's|@NUMBA_CUDA_PREFIX@|/sw/envs/numba-cuda-cu13|' numba-cuda.lua \
--       > /sw/modulefiles/numba-cuda/0.1.0-cu13.lua
--
-- Loading it only puts the environment's bin/ first on PATH.  It does not
-- activate the environment (no CONDA_PREFIX, no activation scripts) and sets
-- no CUDA_HOME or LD_LIBRARY_PATH: numba-cuda finds its CUDA toolkit from
-- the interpreter's own prefix (sys.prefix/conda-meta), so `python` and
-- `numba-cuda` from that bin/ work as they are.  See docs/install/hpc-modules.rst.

local prefix = "@NUMBA_CUDA_PREFIX@"

help([[
numba-cuda: the CUDA target for Numba (Python kernels compiled to PTX).

Puts ]] .. prefix .. [[/bin first on PATH: its python has numba-cuda,
numba and a CUDA toolkit from conda-forge.  Check with

    numba-cuda sysinfo

which should report every toolkit component with source "conda".
]])

whatis("Name: numba-cuda")
whatis("Description: the CUDA target for Numba, from the conda environment " .. prefix)
whatis("URL: https://numba-cuda.readthedocs.io")

if mode() == "load" and not isDir(pathJoin(prefix, "conda-meta")) then
    LmodError("numba-cuda: " .. prefix .. " is not a conda environment (it has no conda-meta/ folder). " ..
              "Set 'prefix' in " .. myFileName() .. " to the environment that has numba-cuda installed.")
end

prepend_path("PATH", pathJoin(prefix, "bin"))
