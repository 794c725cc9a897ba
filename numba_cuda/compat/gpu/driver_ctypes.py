"""The ctypes types of CUDA driver handles, as Numba named them.

``numba.cuda.cudadrv.drvapi`` (Numba's path for them) is this module, on the GPU target and in
the simulator: code that passes driver handles through ctypes (``cu_stream``,
``cu_device_ptr`` ...) imports them from there.  Numba's ``API_PROTOTYPES`` (its ctypes binding of the driver) does not exist:
this package calls the driver through ``cuda.bindings``.
"""

from ctypes import CFUNCTYPE, c_byte, c_int, c_size_t, c_void_p, py_object

cu_device = c_int
cu_device_attribute = c_int
cu_context = c_void_p
cu_module = c_void_p
cu_jit_option = c_int
cu_jit_input_type = c_int
cu_function = c_void_p
cu_device_ptr = c_size_t
cu_stream = c_void_p
cu_event = c_void_p
cu_link_state = c_void_p
cu_function_attribute = c_int
#: ``CU_IPC_HANDLE_SIZE`` (64) bytes.
cu_ipc_mem_handle = c_byte * 64
cu_uuid = c_byte * 16
cu_stream_callback_pyobj = CFUNCTYPE(None, cu_stream, c_int, py_object)
cu_occupancy_b2d_size = CFUNCTYPE(c_size_t, c_int)
