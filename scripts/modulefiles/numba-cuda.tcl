#%Module1.0
# Environment Modules (Tcl) modulefile template for numba-cuda installed in a
# conda environment; Lmod reads it too.
#
# A site creates the environment once (conda/mamba/micromamba, from
# conda-forge), then installs this file with @NUMBA_CUDA_PREFIX@ replaced by
# that environment's prefix, e.g.
#
#   sed 's|@NUMBA_CUDA_PREFIX@|/sw/envs/numba-cuda-cu13|' numba-cuda.tcl \
#       > /sw/modulefiles/numba-cuda/0.1.0-cu13
#
# Loading it only puts the environment's bin/ first on PATH.  It does not
# activate the environment (no CONDA_PREFIX, no activation scripts) and sets
# no CUDA_HOME or LD_LIBRARY_PATH: numba-cuda finds its CUDA toolkit from
# the interpreter's own prefix (sys.prefix/conda-meta), so `python` and
# `numba-cuda` from that bin/ work as they are.  See docs/install/hpc-modules.rst.

set prefix "@NUMBA_CUDA_PREFIX@"

proc ModulesHelp { } {
    global prefix
    puts stderr "numba-cuda: the CUDA target for Numba (Python kernels compiled to PTX)."
    puts stderr ""
    puts stderr "Puts $prefix/bin first on PATH: its python has numba-cuda,"
    puts stderr "numba and a CUDA toolkit from conda-forge.  Check with"
    puts stderr ""
    puts stderr "    numba-cuda sysinfo"
    puts stderr ""
    puts stderr "which should report every toolkit component with source \"conda\"."
}

module-whatis "Name: numba-cuda"
module-whatis "Description: the CUDA target for Numba, from the conda environment $prefix"
module-whatis "URL: https://numba-cuda.readthedocs.io"

if { [module-info mode load] && ![file isdirectory [file join $prefix conda-meta]] } {
    error "numba-cuda: $prefix is not a conda environment (it has no conda-meta/ folder). Set 'prefix' in [info script] to the environment that has numba-cuda installed."
}

prepend-path PATH [file join $prefix bin]
