"""The neutral floor: what the GPU target and the simulator share.

Nothing here imports another part of numba_cuda (only :mod:`numba_cuda.errors`, the exception
types, which import nothing); every part of the package may import these modules.  The import
contracts in pyproject.toml keep it so.

* ``args``                 -- ``cuda.In``/``Out``/``InOut`` and ``ParameterBinder`` (``numba.cuda.args``)
* ``array_layout``         -- strides, contiguity, the span of an array's memory
* ``collection_pause``     -- the cyclic collector paused while a compile or a lazy import runs
* ``cuda_array_interface`` -- the one validator of ``__cuda_array_interface__``
* ``env_flags``            -- the one reader of on/off environment variables, and its rule
* ``emm``, ``emm_memory``  -- the external memory manager interface and its driverless memory classes
* ``error_record``         -- the layout of the record a kernel writes when it raises
* ``graph_capture_errors`` -- the wording of what a CUDA graph capture refuses, on both targets
* ``jit_options``          -- ``JitOptions``: the options of ``cuda.jit``, parsed once for both targets
* ``kernel_image``         -- ``KernelImage``: a compiled kernel as the runtime loads and launches it
* ``launch_dims``          -- the checks of ``kernel[griddim, blockdim]`` and of launch bounds
* ``package_versions``     -- installed packages' versions, read without importing them
* ``pickling``             -- how ``@cuda.jit`` objects pickle, on both targets
* ``records``              -- ``Record``/``FrozenRecord``: value classes without dataclasses' start-up cost
* ``unsupported``          -- what neither target accepts as a kernel or an argument, and its wording
"""
