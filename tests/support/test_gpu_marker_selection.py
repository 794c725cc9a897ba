"""The suite's GPU skipping (tests/conftest.py) goes by the ``gpu`` marker only."""

import pytest

from tests import conftest


class _Item:
    def __init__(self, name, marked):
        self.keywords = {name: 1, "gpu": 1} if "[gpu]" in name else {name: 1}
        if marked:
            self.keywords["gpu"] = 1
        self._marked = marked
        self.added = []

    def get_closest_marker(self, name):
        return pytest.mark.gpu.mark if name == "gpu" and self._marked else None

    def add_marker(self, marker):
        self.added.append(marker)


def test_a_parameter_named_gpu_is_not_skipped_but_the_marker_is(monkeypatch):
    monkeypatch.setattr(conftest, "gpu_unavailable_reason", lambda: "no driver here")
    by_id = _Item("test_rows[gpu]", marked=False)
    by_marker = _Item("test_launch", marked=True)
    conftest.pytest_collection_modifyitems(None, [by_id, by_marker])
    assert by_id.added == []
    assert [m.kwargs["reason"] for m in by_marker.added] == ["needs a GPU: no driver here"]
