"""``CUDATargetContext.insert_string_const_addrspace`` (NVIDIA's method, which cuDF's string UDFs
lower string literals with): the string in constant memory, once per module, handed out as a
generic ``i8*``."""

import re

from numba import uint8, void
from numba.core import types
from numba.cuda.extending import intrinsic


@intrinsic
def _first_bytes(typingctx):
    def codegen(context, builder, sig, args):
        a = context.insert_string_const_addrspace(builder, "héllo")
        b = context.insert_string_const_addrspace(builder, "héllo")  # the same global
        c = context.insert_string_const_addrspace(builder, "bye")
        assert a.type == c.type == context.get_value_type(types.voidptr)
        first = builder.add(builder.load(a), builder.load(b))
        return builder.add(first, builder.load(c))
    return uint8(), codegen


def test_string_constants_are_in_constant_memory_once(cuda):
    def kernel(out):
        out[0] = _first_bytes()

    compiled = cuda.jit(kernel).compile((uint8[::1],))
    llvm = compiled.inspect_llvm()
    globals_ = re.findall(r'^@"__conststring__\.[0-9a-f]+" = internal addrspace\(4\) constant '
                          r'(\[\d+ x i8\] c"[^"]*")', llvm, re.MULTILINE)
    assert sorted(globals_) == ['[4 x i8] c"bye\\00"', '[7 x i8] c"h\\c3\\a9llo\\00"']
    assert llvm.count("addrspacecast") >= 3
    # libNVVM reads the bytes through the generic pointers: 'h' + 'h' + 'b' = 306 = 50 (mod 256)
    ptx = compiled.get_ptx((8, 0))
    assert re.search(r"mov\.u16\s+%rs\d+, 50;", ptx)
