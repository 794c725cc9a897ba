"""A small third-party extension for CUDA kernels, written only against ``numba.cuda.extending``.

* ``Vec2(x, y)``: a new type usable inside kernels (data model, attributes, constructor);
* ``Vec2.dot(other)`` (method), ``Vec2.norm1`` (attribute);
* ``clamp(x, lo, hi)``: a plain Python function given a CUDA implementation with ``overload``;
* ``add_seven(x)``: an ``intrinsic`` emitting inline PTX;
* ``halve(x)``: a ``register_jitable`` helper usable everywhere.
"""

from llvmlite import ir

from numba.cuda.extending import (
    intrinsic,
    lower_builtin,
    make_attribute_wrapper,
    models,
    overload,
    overload_attribute,
    overload_method,
    register_jitable,
    register_model,
    signature,
    type_callable,
    typeof_impl,
    types,
)


class Vec2:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Vec2Type(types.Type):
    def __init__(self):
        super().__init__(name="Vec2")


vec2_type = Vec2Type()


@typeof_impl.register(Vec2)
def _typeof_vec2(val, c):
    return vec2_type


@register_model(Vec2Type)
class Vec2Model(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("x", types.float64), ("y", types.float64)])


make_attribute_wrapper(Vec2Type, "x", "x")
make_attribute_wrapper(Vec2Type, "y", "y")


@type_callable(Vec2)
def _type_vec2(context):
    def typer(x, y):
        if isinstance(x, types.Number) and isinstance(y, types.Number):
            return vec2_type
    return typer


@lower_builtin(Vec2, types.Number, types.Number)
def _build_vec2(context, builder, sig, args):
    x, y = (context.cast(builder, v, t, types.float64) for v, t in zip(args, sig.args))
    from numba.core import cgutils

    vec = cgutils.create_struct_proxy(vec2_type)(context, builder)
    vec.x = x
    vec.y = y
    return vec._getvalue()


@overload_method(Vec2Type, "dot")
def _vec2_dot(self, other):
    if isinstance(other, Vec2Type):
        def impl(self, other):
            return self.x * other.x + self.y * other.y
        return impl


@overload_attribute(Vec2Type, "norm1")
def _vec2_norm1(self):
    def get(self):
        return abs(self.x) + abs(self.y)
    return get


def clamp(x, lo, hi):
    """Plain Python; kernels get the overload below."""
    return min(max(x, lo), hi)


@overload(clamp)
def _clamp_cuda(x, lo, hi):
    if all(isinstance(t, types.Float) for t in (x, lo, hi)):
        def impl(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x
        return impl


@intrinsic
def add_seven(typingctx, x):
    """x + 7 on int32, computed by an inline PTX instruction."""
    if not isinstance(x, types.Integer):
        return None
    sig = signature(types.int32, types.int32)

    def codegen(context, builder, signature_, args):
        (value,) = args
        value = context.cast(builder, value, x, types.int32)
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32)])
        asm = ir.InlineAsm(fnty, "add.s32 $0, $1, 7;", "=r,r")
        return builder.call(asm, [value])

    return sig, codegen


@register_jitable
def halve(x):
    return x / 2
