"""numba_cuda.common, the floor shared by the GPU target and the simulator: its modules' old
names (``numba_cuda.args`` ..., ``numba.cuda.args``) still import, as the very same modules, so
code and pickles written against them keep working."""

import importlib
import pickle

import pytest

from numba_cuda.compat.table import ROWS, SIMULATOR

MOVED_MODULES = {old: new for old, (new, _) in ROWS.items() if new and new.startswith("numba_cuda.common.")}


def test_every_common_module_has_its_old_name():
    assert len(MOVED_MODULES) == 9
    assert all(ROWS[old][SIMULATOR] == new for old, new in MOVED_MODULES.items())


@pytest.mark.parametrize("old, new", sorted(MOVED_MODULES.items()))
def test_old_name_is_the_module_itself(old, new):
    module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new  # the real module keeps its name


def test_peer_path_and_old_pickles_resolve():
    import numba.cuda.args as peer

    from numba_cuda.common import args, pickling

    assert peer is args
    # Pickles written before the move name the old modules (protocol 0 GLOBAL opcodes).
    assert pickle.loads(b"cnumba_cuda.args\nInOut\n.") is args.InOut
    assert pickle.loads(b"cnumba_cuda.pickling\nby_reference\n.") is pickling.by_reference
    # ... and new pickles name the new ones.
    assert b"numba_cuda.common.args" in pickle.dumps(args.In, protocol=0)


def test_a_name_that_never_existed_is_still_missing():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("numba_cuda.no_such_common_module")


def test_the_floor_contract_forbids_every_other_room():
    """The contract lists rooms by name: a room added later must join the list."""
    import pathlib
    import tomllib

    root = pathlib.Path(__file__).resolve().parents[2]
    contracts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (floor,) = [c for c in contracts if c.get("source_modules") == ["numba_cuda.common"]]
    rooms = {f"numba_cuda.{p.parent.name}" for p in (root / "numba_cuda").glob("*/__init__.py")}
    assert set(floor["forbidden_modules"]) == rooms - {"numba_cuda.common"}
