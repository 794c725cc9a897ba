"""What the first compile of a process imports (benchmarks/compile.py measures its cost against
the reference): no module of the package on that path makes a dataclass (0.6-1.8 ms each; the
plain ``Record`` classes of numba_cuda.common.records stand in), and the debug-info merge
(whose patterns cost ~2 ms to compile) is imported only by a compile that needs it."""

import copy
import dataclasses
import pickle

import pytest

from numba_cuda.common.records import FrozenRecord, Record

FIRST_COMPILE = """
import dataclasses, inspect, sys
from numba import cuda, float32, void

def add_one(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + 1

cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(9, 0))
made = sorted(f"{name}.{value.__name__}" for name, module in list(sys.modules.items())
              if name.startswith("numba_cuda") and module is not None
              for value in list(vars(module).values())
              if inspect.isclass(value) and value.__module__ == name
              and dataclasses.is_dataclass(value))
print("dataclasses:", made)
print("merge imported:", "numba_cuda.compiler.module_merge" in sys.modules)
cuda.compile_ptx(add_one, void(float32[::1], float32[::1]), cc=(9, 0), debug=True, opt=False)
print("after debug:", "numba_cuda.compiler.module_merge" in sys.modules)
"""


def test_the_first_compile_makes_no_dataclass_and_skips_the_debug_merge(run_python):
    proc = run_python(FIRST_COMPILE)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "dataclasses: []" in lines, proc.stdout
    assert "merge imported: False" in lines, proc.stdout
    # a kernel with debug info has two compile units to merge
    assert "after debug: True" in lines, proc.stdout


class Point(Record):
    def __init__(self, x, y=0):
        self.x, self.y = x, y


class Frozen(FrozenRecord):
    def __init__(self, x, items=()):
        vars(self).update(x=x, items=tuple(items))


def test_a_record_compares_and_prints_by_its_fields_as_a_dataclass_does():
    assert Point.FIELDS == ("x", "y") and Frozen.FIELDS == ("x", "items")  # __init__'s parameters
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(1, 3)
    assert repr(Point(1, "a")) == "Point(x=1, y='a')"
    assert Point(1) != Frozen(1)  # another class is never equal
    with pytest.raises(TypeError, match="unhashable"):
        hash(Point(1))  # mutable: unhashable, as a dataclass with eq
    point = Point(1)
    point.y = 5
    assert point == Point(1, 5)
    assert pickle.loads(pickle.dumps(point)) == point and copy.copy(point) == point


def test_a_frozen_record_is_hashable_and_refuses_assignment():
    value = Frozen(1, [2, 3])
    assert value.items == (2, 3) and value == Frozen(1, (2, 3))
    assert hash(value) == hash(Frozen(1, (2, 3))) and len({value, Frozen(1, (2, 3))}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError, match="'x' of Frozen"):
        value.x = 2
    with pytest.raises(AttributeError):  # FrozenInstanceError is an AttributeError
        del value.items
    assert value.x == 1
    # pickles and copies restore the instance dict without assigning
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.deepcopy(value) == value


def test_the_compile_path_classes_keep_their_dataclass_behaviour():
    from numba_cuda.common.jit_options import JitOptions
    from numba_cuda.compiler.pipeline import CompileOptions
    from numba_cuda.toolkit.model import Component, Toolkit

    from numba_cuda.common.jit_options import JIT_OPTION_NAMES

    assert JitOptions.FIELDS == JIT_OPTION_NAMES  # as_dict() gives cuda.jit's keywords
    options = CompileOptions.from_user(debug=True)
    assert options == CompileOptions.from_user(debug=True)
    assert {options: 1}[CompileOptions.from_user(debug=True)] == 1  # an in-memory cache key
    assert repr(CompileOptions()).startswith("CompileOptions(debug=False, lineinfo=False,")
    assert JitOptions.parse({"link": ["a.cu"]}) == JitOptions(link=("a.cu",))
    with pytest.raises(TypeError):
        JitOptions(bogus=1)
    first, second = Component("nvvm"), Component("nvvm")
    first.tried.append(("x", "y"))
    assert second.tried == []  # no shared default list
    assert Toolkit().components == {} and Toolkit().components is not Toolkit().components
