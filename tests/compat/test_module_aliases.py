"""Import paths of Numba's built-in ``numba.cuda`` and of NVIDIA's numba-cuda keep working.

Each path is imported in a fresh interpreter on the real target and in the simulator
(``NUMBA_ENABLE_CUDASIM=1``); a path that aliases a module must yield that very module object.
Every row of the compat table (``numba_cuda.compat.table.ROWS``) is imported on both targets,
under ``numba.cuda`` and under ``numba_cuda``, and must be its column's target; the examples
below say independently of the table what some paths must be.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from numba_cuda.compat.table import GPU, ROWS, SIMULATOR

# alias path -> the module it must be (the same object), on both targets
SAME_MODULE = {
    "numba.cuda.core": "numba.core",
    "numba.cuda.core.config": "numba.core.config",
    "numba.cuda.core.callconv": "numba.core.callconv",
    "numba.cuda.core.errors": "numba.core.errors",
    "numba.cuda.core.caching": "numba.core.caching",
    "numba.cuda.core.compiler_machinery": "numba.core.compiler_machinery",
    "numba.cuda.core.untyped_passes": "numba.core.untyped_passes",
    "numba.cuda.core.rewrites": "numba.core.rewrites",
    "numba.cuda.np": "numba.np",
    "numba.cuda.np.numpy_support": "numba.np.numpy_support",
    "numba.cuda.typing": "numba.core.typing",
    "numba.cuda.typing.templates": "numba.core.typing.templates",
    "numba.cuda.typing.typeof": "numba.core.typing.typeof",
    "numba.cuda.typeconv": "numba.core.typeconv",
    "numba.cuda.datamodel.models": "numba.core.datamodel.models",
    "numba.cuda.misc.special": "numba.misc.special",
    "numba.cuda.cloudpickle": "numba.cloudpickle",
    "numba.cuda.utils": "numba.core.utils",
    "numba.cuda.serialize": "numba.core.serialize",
    "numba.cuda.cgutils": "numba.core.cgutils",
    "numba.cuda.config": "numba.core.config",
    "numba.cuda.stubs": "numba_cuda.lang.stubs",
    "numba.cuda.descriptor": "numba_cuda.compiler.target",
    "numba.cuda.cudadrv.nvrtc": "numba_cuda.linking.nvrtc",
    "numba.cuda.cudadrv.linkable_code": "numba_cuda.linking.linkable",
    "numba.cuda.deviceufunc": "numba_cuda.ufuncs.schedule",
    "numba.cuda._compat": "numba_cuda.runtime.cuda_core_version",
    "numba.cuda.cuda_paths": "numba_cuda.toolkit.cuda_paths",
    "numba.cuda.cudadrv.dummyarray": "numba_cuda.runtime.array_views",
}

# alias path -> (simulator module, GPU-target module) it must be
PER_TARGET_MODULE = {
    "numba.cuda.api": ("numba_cuda.simulator.api", "numba_cuda.runtime.api"),
    "numba.cuda.kernels.reduction": ("numba_cuda.simulator.reduction", "numba_cuda.ufuncs.reduction"),
    "numba.cuda.libdevice": ("numba_cuda.simulator.libdevice", "numba_cuda.libdevice"),
}

# name -> expression that must be true after ``from numba import cuda`` (both targets)
CHECKS = {
    "core.caching plug-in classes": "all(hasattr(__import__('numba.cuda.core.caching', "
                                    "fromlist=['x']), n) for n in "
                                    "('_CacheLocator', 'CacheImpl', 'IndexDataCacheFile'))",
    "serialize.dumps": "__import__('numba.cuda.serialize', fromlist=['x']).dumps is "
                       "numba.core.serialize.dumps",
    "from numba.cuda import float32, void": "cuda.float32 is numba.types.float32 and "
                                            "cuda.void is numba.types.void",
    "every numba.core.types.__all__ name": "all(getattr(cuda, n) is getattr(numba.types, n) "
                                           "for n in numba.core.types.__all__ "
                                           "if n not in ('bool', 'float_')) and "
                                           "cuda.types.bool_ is numba.types.bool_",
    "numba.cuda.types": "cuda.types.float32 is numba.types.float32 and "
                        "cuda.types.Array is numba.types.Array",
    "numba.cuda.types CUDA types": "cuda.types.Dim3.__name__ == 'Dim3Type' and "
                                   "cuda.types.GridGroup.__name__ == 'GridGroupType'",
    "HAS_NUMBA": "cuda.HAS_NUMBA is True",
    "FakeCUDAArray": "__import__('numba.cuda.simulator.cudadrv.devicearray', fromlist=['x'])"
                     ".FakeCUDAArray is __import__('numba_cuda.simulator.devicearray', "
                     "fromlist=['x']).DeviceNDArray",
    "target contexts": "__import__('numba.cuda.target', fromlist=['x']).CUDATargetContext"
                       ".__name__ == 'CUDATargetContext'",
    "flags": "__import__('numba.cuda.flags', fromlist=['x']).Flags is numba.core.compiler.Flags",
    "cudadrv.enums": "__import__('numba.cuda.cudadrv.enums', fromlist=['x']).CU_JIT_INPUT_PTX "
                     "== int(__import__('cuda.bindings.driver', fromlist=['x'])"
                     ".CUjitInputType.CU_JIT_INPUT_PTX)",
    "cudadrv.drvapi": "__import__('numba.cuda.cudadrv.drvapi', fromlist=['x']).cu_device_ptr "
                      "is __import__('ctypes').c_size_t",
    "compiler entry points": "__import__('numba.cuda.compiler', fromlist=['x']).compile_ptx "
                             "is __import__('numba_cuda.compiler.api', fromlist=['x'])"
                             ".compile_ptx",
    "compiler.run_frontend": "__import__('numba.cuda.compiler', fromlist=['x']).run_frontend "
                             "is numba.core.compiler.run_frontend",
    "extending boxing names": "__import__('numba.cuda.extending', fromlist=['x']).NativeValue "
                              "is numba.core.extending.NativeValue",
    "simulator package API": "__import__('numba.cuda.simulator', fromlist=['x']).jit is "
                             "__import__('numba_cuda.simulator.api', fromlist=['x']).jit",
    "vector_types table": "__import__('numba.cuda.vector_types', fromlist=['x'])"
                          ".vector_types['float32x4'].user_facing_object is cuda.float4 and "
                          "cuda.float32x4.aliases == ('float4',) and "
                          "len(__import__('numba.cuda.vector_types', fromlist=['x'])"
                          ".vector_types) == 40",
    "simulator vector_types table": "__import__('numba.cuda.simulator.vector_types', "
                                    "fromlist=['x']).vector_types['int32x2'].user_facing_object"
                                    " is __import__('numba_cuda.simulator.api', "
                                    "fromlist=['x']).int2",
    "link items at top level": "all(getattr(cuda, n) is getattr(__import__("
                               "'numba_cuda.linking.linkable', fromlist=['x']), n) for n in "
                               "('LinkableCode', 'CUSource', 'PTXSource', 'Cubin', 'Fatbin', "
                               "'Object', 'Archive', 'LTOIR'))",
    "literal_unroll": "cuda.literal_unroll is numba.literal_unroll",
    "decorators": "__import__('numba.cuda.decorators', fromlist=['x']).jit is cuda.jit and "
                  "__import__('numba.cuda.decorators', fromlist=['x']).declare_device is "
                  "cuda.declare_device",
    "dispatcher.CUDADispatcher": "isinstance(cuda.jit(lambda a: None), "
                                 "__import__('numba.cuda.dispatcher', fromlist=['x'])"
                                 ".CUDADispatcher)",
    "itanium_mangler": "__import__('numba.cuda.itanium_mangler', fromlist=['x']).escape_string"
                       "('<lambda>') == '_3clambda_3e' and "
                       "__import__('numba.cuda.itanium_mangler', fromlist=['x']).mangle_identifier "
                       "is numba.core.itanium_mangler.mangle_identifier",
    "kernels.transpose": "callable(__import__('numba.cuda.kernels.transpose', fromlist=['x'])"
                         ".transpose)",
    "cudadrv.devicearray.from_record_like": "callable(__import__('numba.cuda.cudadrv.devicearray', "
                                            "fromlist=['x']).from_record_like)",
    "launchconfig": "__import__('numba.cuda.launchconfig', fromlist=['x']) is cuda.launchconfig"
                    " and cuda.launchconfig.current_launch_config() is None",
    "simulator.kernel.FakeCUDAKernel": "issubclass(__import__('numba_cuda.simulator.dispatcher', "
                                       "fromlist=['x']).SimDeviceFunction, __import__("
                                       "'numba.cuda.simulator.kernel', fromlist=['x'])"
                                       ".FakeCUDAKernel)",
    "numba.cuda.deviceufunc.GUFuncEngine": "__import__('numba.cuda.deviceufunc', fromlist=['x'])"
                                           ".GUFuncEngine.from_signature('(n),()->(n)')"
                                           ".schedule([(3, 4), ()]).pinned == [False, True]",
    "numba.cuda.core.callconv.CUDACallConv": "__import__('numba.cuda.core.callconv', "
                                             "fromlist=['x']).CUDACallConv is __import__("
                                             "'numba_cuda.compiler.target_context', "
                                             "fromlist=['x']).CUDACallConv and __import__("
                                             "'numba.cuda.core.callconv', fromlist=['x'])"
                                             ".CUDACABICallConv.__name__ == 'CUDACABICallConv'",
    "numba.cuda.compiler front-end names": "__import__('numba.cuda.compiler', fromlist=['x'])"
                                           ".CompilerBase is numba.core.compiler.CompilerBase",
    "simulator cudadrv.driver._Linker, nvvm.LibDevice": "(not " + "__import__('os').environ.get("
                                   "'NUMBA_ENABLE_CUDASIM')) or (__import__("
                                   "'numba.cuda.cudadrv.driver', fromlist=['x'])._Linker.__name__"
                                   " == 'Linker' and __import__('numba.cuda.cudadrv.nvvm', "
                                   "fromlist=['x']).LibDevice.__module__ == "
                                   "'numba_cuda.compat.simulator.cudadrv.nvvm')",
    "cudadrv.nvvm.LibDevice and nvvmError": "issubclass(__import__('numba.cuda.cudadrv.nvvm', "
                                            "fromlist=['x']).nvvmError, Exception) and "
                                            "callable(__import__('numba.cuda.cudadrv.nvvm', "
                                            "fromlist=['x']).LibDevice)",
    "a path alias keeps its module's own spec": "__import__('numba.cuda._compat', fromlist=['x'])"
                                                ".__spec__.name == "
                                                "'numba_cuda.runtime.cuda_core_version'",
    "cudadrv submodules as attributes": "cuda.cudadrv.nvrtc is "
                                        "__import__('numba_cuda.linking.nvrtc', fromlist=['x'])",
}

_PROBE = textwrap.dedent(
    """
    import importlib, json, sys
    import numba, numba.core.compiler, numba.core.extending, numba.core.serialize
    from numba import cuda
    same, per_target, checks, simulator = json.loads(sys.argv[1])
    from numba_cuda.compat.table import GPU, ROWS, SIMULATOR, resolve
    out = {}
    column = SIMULATOR if simulator else GPU
    def record(key, fn):
        try:
            out[key] = bool(fn())
        except Exception as exc:
            out[key] = f"{type(exc).__name__}: {exc}"
    for alias, target in same.items():
        record(alias, lambda: importlib.import_module(alias) is importlib.import_module(target))
    for alias, (sim, gpu) in per_target.items():
        record(alias, lambda: importlib.import_module(alias)
               is importlib.import_module(sim if simulator else gpu))
    for name, expr in checks.items():
        record(name, lambda: eval(expr))
    for path, row in ROWS.items():
        # the row's own path (the module of that name in the package where its column is None)
        target = row[column] or path
        old = "numba.cuda" + path[len("numba_cuda"):]
        record("row " + path, lambda: importlib.import_module(path)
               is resolve(target) is importlib.import_module(old))
    ours = [type(f).__module__ + "." + type(f).__qualname__ for f in sys.meta_path
            if type(f).__module__.split(".")[0] in ("numba_cuda", "_numba_cuda_redirector")]
    out["finders"] = ours
    print(json.dumps(out))
    """
)


def _probe(simulator):
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    payload = json.dumps([SAME_MODULE, PER_TARGET_MODULE, CHECKS, simulator])
    proc = subprocess.run([sys.executable, "-c", _PROBE, payload], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def results():
    return {"gpu": _probe(False), "simulator": _probe(True)}


@pytest.mark.parametrize("target", ["gpu", "simulator"])
@pytest.mark.parametrize("key", [*SAME_MODULE, *PER_TARGET_MODULE, *CHECKS,
                                 *(f"row {path}" for path in ROWS)])
def test_alias_path(results, target, key):
    assert results[target][key] is True, results[target][key]


@pytest.mark.parametrize("target", ["gpu", "simulator"], ids=["real", "simulator"])
def test_one_finder_serves_every_old_path(results, target):
    # After importing every path of the table: the redirector's finder (numba.cuda ->
    # numba_cuda) and the compat yard's, once each.
    assert sorted(results[target]["finders"]) == [
        "_numba_cuda_redirector.NumbaCudaRedirector", "numba_cuda.compat.CompatFinder"]


def test_rows_name_paths_under_the_package_and_targets_for_both_targets():
    for path, row in ROWS.items():
        assert path.startswith("numba_cuda."), path
        assert len(row) == 2 and (row[GPU] or row[SIMULATOR]), path
        for target in row:
            # a row's target is never another row's path (one hop: the very module)
            assert target is None or not any(
                target == p or target.startswith(p + ".") for p in ROWS), (path, target)


def test_the_finder_imports_nothing_until_a_path_is_imported():
    # (not even the table: it is read at the first import of a numba_cuda submodule)
    code = ("import sys; from numba import cuda; "
            "print(sorted(m for m in ('numba_cuda.compat.table', 'numba_cuda.compat.gpu', "
            "'numba_cuda.compat.simulator', 'numba_cuda.ufuncs.reduction', 'numba_cuda.lang.stubs'"
            ") if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_no_row_lies_in_a_room_the_finder_passes_by():
    from numba_cuda.compat import ROOMS_WITHOUT_ROWS
    from numba_cuda.compat.table import ROWS

    assert [path for path in ROWS if (path + ".").startswith(ROOMS_WITHOUT_ROWS)] == []


def test_subtree_paths_follow_their_package_row():
    from numba_cuda.compat.table import target_of

    assert target_of("numba_cuda.core.typing.templates", GPU) == "numba.core.typing.templates"
    assert target_of("numba_cuda.cudadrv.nvrtc", SIMULATOR) == "numba_cuda.linking.nvrtc"
    assert target_of("numba_cuda.cudadrv.driver", SIMULATOR) == \
        "numba_cuda.compat.simulator.cudadrv.driver"
    assert target_of("numba_cuda.libdevice", GPU) is None
    assert target_of("numba_cuda.launchconfig", GPU) is None
    assert target_of("numba_cuda", GPU) is None


def test_a_missing_submodule_of_an_aliased_package_is_an_ordinary_import_error():
    with pytest.raises(ModuleNotFoundError, match="numba.cuda.core.no_such_module"):
        import numba.cuda.core.no_such_module  # noqa: F401


def test_cudadrv_enums_are_the_driver_bindings_values():
    from cuda.bindings import driver

    from numba.cuda.cudadrv import enums

    assert enums.CUDA_SUCCESS == 0
    assert enums.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK == int(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    assert "CU_JIT_INPUT_CUBIN" in dir(enums)
    with pytest.raises(AttributeError, match="CU_NO_SUCH_CONSTANT"):
        enums.CU_NO_SUCH_CONSTANT


def test_the_type_names_are_numba_types_all_but_the_numpy_dependent_ones():
    import numba.core.types

    from numba_cuda._exports import NUMBA_TYPE_NAMES

    assert set(NUMBA_TYPE_NAMES) <= set(numba.core.types.__all__)
    assert set(numba.core.types.__all__) - set(NUMBA_TYPE_NAMES) <= {"bool", "float_"}



@pytest.mark.parametrize("simulator", [False, True], ids=["real", "simulator"])
def test_cudadrv_submodules_are_attributes_before_any_import_of_them(simulator):
    # a fresh process: the attribute is the first use of each submodule
    names = ["driver", "devicearray", "devices", "runtime", "libs", "nvvm", "error", "enums",
             "drvapi", "nvrtc", "linkable_code"]
    code = textwrap.dedent(f"""
        import importlib
        from numba import cuda
        first = {{n: getattr(cuda.cudadrv, n) for n in {names!r}}}
        print(all(first[n] is importlib.import_module("numba.cuda.cudadrv." + n) for n in first))
        """)
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "True"


@pytest.mark.parametrize("simulator", [False, True], ids=["real", "simulator"])
def test_from_a_row_package_import_its_subrows_first_thing(simulator):
    # ``from numba.cuda.cudadrv import nvrtc`` before anything imported the submodule: the
    # import system looks the name up on the package, then imports <package.__name__>.nvrtc,
    # the *real* name of the package (a compat module): each package of compat code must answer
    # the rows below its path itself.
    pairs = sorted({(path.rpartition(".")[0], path.rpartition(".")[2]) for path in ROWS
                    if path.rpartition(".")[0] in ROWS})
    assert ("numba_cuda.cudadrv", "nvrtc") in pairs and ("numba_cuda.kernels", "reduction") in pairs
    code = textwrap.dedent(f"""
        import importlib, json, subprocess, sys
        out = {{}}
        for package, name in {pairs!r}:
            old = "numba.cuda" + package[len("numba_cuda"):]
            try:
                value = getattr(__import__(old, fromlist=[name]), name)
                out[old + "." + name] = value is importlib.import_module(old + "." + name)
            except Exception as exc:
                out[old + "." + name] = f"{{type(exc).__name__}}: {{exc}}"
        print(json.dumps(out))
        """)
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.splitlines()[-1])
    assert {key: value for key, value in results.items() if value is not True} == {}


def test_no_row_is_shadowed_by_a_module_of_the_package():
    # The finder answers before the path finder: a file at a row's path would be dead code, and
    # an old path gets a row, not a shim module (the top of numba_cuda/ holds no aliases).
    from pathlib import Path

    import numba_cuda

    root = Path(numba_cuda.__file__).parent
    for path, row in ROWS.items():
        if None in row:
            continue  # the module of that name is the path on the other target
        rel = Path(*path.split(".")[1:])
        assert not (root / rel).is_dir() and not (root / rel).with_suffix(".py").exists(), path
